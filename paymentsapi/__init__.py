"""Client of the Payments API: a plain library (no Django, nothing of the project).

    from paymentsapi import NotFound, PaymentsApiClient

    client = PaymentsApiClient(api_key=..., base_url=...)
    try:
        customer = client.customers.get(customer_id=customer_id)
    except NotFound:
        ...

The back-office gets its shared client from `upstream.client.get_client()`.
"""

from . import types
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

# Every typed model is a name of the package too (paymentsapi.Customer is paymentsapi.types.Customer).
from .types import *  # noqa: F403

__all__ = [
    "ApiConnectionError",
    "ApiNoAnswer",
    "ApiTimeout",
    "ApiUnavailable",
    "BadRequest",
    "FieldError",
    "Forbidden",
    "InternalServerError",
    "NotFound",
    "PaymentsApiClient",
    "PaymentsApiError",
    "RateLimited",
    "ServerError",
    "TransportError",
    "Unauthorized",
    "UnexpectedResponse",
    "ValidationFailed",
    "error_for",
    "make_breaker",
    "to_wire",
    *types.__all__,
]
