"""Typed results (and request parts) of the Payments API, as pydantic v2 models, one module per
resource; every name is also here, so `from paymentsapi import types as api; api.Customer` works.

Conventions of every model:
- attributes are snake_case, the wire is camelCase (`customer.customer_status` <- `customerStatus`);
  models can be built with either name;
- amounts and rates are `Decimal` (the wire carries decimal strings, and the client writes
  Decimals back as strings, never floats); times are aware `datetime`s;
- fields the API adds later are kept (`model.model_extra`), never an error;
- enums are open: a status the spec does not list yet becomes a pseudo-member instead of
  failing the whole response (`CustomerStatus("ON_HOLD").is_known is False`).
"""

from ._base import ApiModel, JsonNumber, OpenEnum
from .automation_rules import (
    AmountType,
    AutomationRule,
    RuleAmount,
    TemplateDestination,
    TemplateSource,
    TransactionTemplate,
    Trigger,
    TriggerType,
)
from .customers import (
    Address,
    AssociatedPerson,
    BusinessDocument,
    BusinessInfo,
    Customer,
    CustomerStatus,
    CustomerType,
    Document,
    KybData,
    KycData,
    VerificationIssue,
)
from .exchange_rates import ExchangeRate
from .payment_accounts import (
    Balance,
    ExternalBankAccount,
    ExternalCryptoWallet,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
    ServiceAutoFiatAccount,
    ServiceCryptoWallet,
    ServiceFiatAccount,
    WalletAddress,
)
from .quotes import Quote, QuoteDestination, QuoteSource
from .shared import Currency, DeveloperFee, DeveloperFeeType, FeeAmount, FeeComponent, Fees, FeeType, Page
from .transactions import (
    TERMINAL_TRANSACTION_STATUSES,
    AnyTransferInstructions,
    CancelResult,
    CryptoTransferInstructions,
    FiatTransferInstructions,
    Transaction,
    TransactionDestination,
    TransactionSource,
    TransactionStatus,
    TransferInstructions,
)
from .webhooks import WebhookDelivery, WebhookEndpoint

__all__ = [
    "TERMINAL_TRANSACTION_STATUSES",
    "Address",
    "AmountType",
    "AnyTransferInstructions",
    "ApiModel",
    "AssociatedPerson",
    "AutomationRule",
    "Balance",
    "BusinessDocument",
    "BusinessInfo",
    "CancelResult",
    "CryptoTransferInstructions",
    "Currency",
    "Customer",
    "CustomerStatus",
    "CustomerType",
    "DeveloperFee",
    "DeveloperFeeType",
    "Document",
    "ExchangeRate",
    "ExternalBankAccount",
    "ExternalCryptoWallet",
    "FeeAmount",
    "FeeComponent",
    "FeeType",
    "Fees",
    "FiatTransferInstructions",
    "JsonNumber",
    "KybData",
    "KycData",
    "OpenEnum",
    "Page",
    "PaymentAccount",
    "PaymentAccountStatus",
    "PaymentAccountType",
    "Quote",
    "QuoteDestination",
    "QuoteSource",
    "RuleAmount",
    "ServiceAutoFiatAccount",
    "ServiceCryptoWallet",
    "ServiceFiatAccount",
    "TemplateDestination",
    "TemplateSource",
    "Transaction",
    "TransactionDestination",
    "TransactionSource",
    "TransactionStatus",
    "TransactionTemplate",
    "TransferInstructions",
    "Trigger",
    "TriggerType",
    "VerificationIssue",
    "WalletAddress",
    "WebhookDelivery",
    "WebhookEndpoint",
]
