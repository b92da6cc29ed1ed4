"""Client of the Payments API: a plain library (no Django, nothing of the project).

    from paymentsapi import NotFound, PaymentsApiClient

    client = PaymentsApiClient(api_key=..., base_url=...)
    try:
        customer = client.customers.get(customer_id=customer_id)
    except NotFound:
        ...

The back-office gets its shared client from `upstream.client.get_client()`.
"""

from ._base_client import make_breaker
from ._wire import to_wire
from .client import PaymentsApiClient
from .errors import (
    ApiConnectionError,
    ApiNoAnswer,
    ApiTimeout,
    ApiUnavailable,
    BadRequest,
    FieldError,
    Forbidden,
    InternalServerError,
    NotFound,
    PaymentsApiError,
    RateLimited,
    ServerError,
    TransportError,
    Unauthorized,
    UnexpectedResponse,
    ValidationFailed,
    error_for,
)
from .types import (
    AutomationRule,
    Balance,
    CancelResult,
    CryptoTransferInstructions,
    Currency,
    Customer,
    CustomerStatus,
    CustomerType,
    DeveloperFee,
    ExchangeRate,
    FiatTransferInstructions,
    KybData,
    KycData,
    Page,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
    Quote,
    QuoteDestination,
    QuoteSource,
    Transaction,
    TransactionStatus,
    TransactionTemplate,
    Trigger,
    WebhookDelivery,
    WebhookEndpoint,
)

__all__ = [
    "ApiConnectionError",
    "ApiNoAnswer",
    "ApiTimeout",
    "ApiUnavailable",
    "AutomationRule",
    "BadRequest",
    "Balance",
    "CancelResult",
    "CryptoTransferInstructions",
    "Currency",
    "Customer",
    "CustomerStatus",
    "CustomerType",
    "DeveloperFee",
    "ExchangeRate",
    "FiatTransferInstructions",
    "FieldError",
    "Forbidden",
    "InternalServerError",
    "KybData",
    "KycData",
    "NotFound",
    "Page",
    "PaymentAccount",
    "PaymentAccountStatus",
    "PaymentAccountType",
    "PaymentsApiClient",
    "PaymentsApiError",
    "Quote",
    "QuoteDestination",
    "QuoteSource",
    "RateLimited",
    "ServerError",
    "Transaction",
    "TransactionStatus",
    "TransactionTemplate",
    "TransportError",
    "Trigger",
    "Unauthorized",
    "UnexpectedResponse",
    "ValidationFailed",
    "WebhookDelivery",
    "WebhookEndpoint",
    "error_for",
    "make_breaker",
    "to_wire",
]
