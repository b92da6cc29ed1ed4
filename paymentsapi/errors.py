"""Errors of the Payments API client: one class per error `code` of the spec, plus transport failures.

    PaymentsApiError                      anything the client raises
    ├── BadRequest                        400 BAD_REQUEST
    ├── ValidationFailed                  400 VALIDATION_ERROR, with .field_errors
    ├── Unauthorized                      401 UNAUTHORIZED
    ├── Forbidden                         403 FORBIDDEN
    ├── NotFound                          404 NOT_FOUND
    ├── RateLimited                       429, with .retry_after
    ├── ServerError                       any other 5xx
    │   └── InternalServerError           500 INTERNAL_SERVER_ERROR
    ├── UnexpectedResponse                a 2xx whose body is not what the spec shows
    └── TransportError                    no usable answer from the API
        ├── ApiUnavailable                502/503/504 (a gateway or the API is down)
        ├── ApiNoAnswer                   sent, but no answer: the call may have been done
        │   └── ApiTimeout                no answer within the timeout
        └── ApiConnectionError            never sent: connection refused, DNS failure, ...

`error_for()` is the one place that maps a status and a code to a class.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldError:
    """One item of a VALIDATION_ERROR's details: `path` such as ("kycData", "nationalIdNumber")."""

    path: tuple[str | int, ...]
    message: str
    location: str = "body"

    @property
    def field(self) -> str:
        """The path joined with dots, e.g. "kycData.documents.0.type"; "" for the whole request."""
        return ".".join(str(part) for part in self.path)


class PaymentsApiError(Exception):
    status: int | None = None
    code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Any = None,
        request_id: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.details = details
        self.request_id = request_id

    def __str__(self) -> str:
        prefix = " ".join(str(part) for part in (self.status, self.code) if part)
        return f"{prefix}: {self.message}" if prefix else self.message


class BadRequest(PaymentsApiError):
    status, code = 400, "BAD_REQUEST"


class ValidationFailed(PaymentsApiError):
    status, code = 400, "VALIDATION_ERROR"

    def __str__(self) -> str:
        # The field messages make a log line or a failed test say what was wrong.
        fields = "; ".join(f"{error.field or '(request)'}: {error.message}" for error in self.field_errors[:5])
        return f"{super().__str__()} ({fields})" if fields else super().__str__()

    @property
    def field_errors(self) -> list[FieldError]:
        """The details as FieldErrors; items that do not have the spec's shape are skipped."""
        if not isinstance(self.details, list):
            return []
        errors = []
        for item in self.details:
            if isinstance(item, dict) and isinstance(item.get("message"), str):
                path = item.get("path")
                path = tuple(path) if isinstance(path, list | tuple) else ((path,) if path else ())
                errors.append(FieldError(path=path, message=item["message"], location=item.get("location") or "body"))
        return errors

    def messages_by_field(self) -> dict[str, list[str]]:
        """{"kycData.nationalIdNumber": ["..."], "": [errors of the whole request]} for a form."""
        result: dict[str, list[str]] = {}
        for error in self.field_errors:
            result.setdefault(error.field, []).append(error.message)
        return result


class Unauthorized(PaymentsApiError):
    status, code = 401, "UNAUTHORIZED"


class Forbidden(PaymentsApiError):
    status, code = 403, "FORBIDDEN"


class NotFound(PaymentsApiError):
    status, code = 404, "NOT_FOUND"


class RateLimited(PaymentsApiError):
    status = 429

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(PaymentsApiError):
    status = 500


class InternalServerError(ServerError):
    status, code = 500, "INTERNAL_SERVER_ERROR"


class UnexpectedResponse(PaymentsApiError):
    """A success status with a body the client cannot read (not JSON, or not the spec's shape)."""


class TransportError(PaymentsApiError):
    """The API gave no usable answer; trying again later may work."""


class ApiUnavailable(TransportError):
    pass


class ApiNoAnswer(TransportError):
    """The request may have reached the API, but no answer came back (the connection broke
    after it was sent): a write may have been done."""


class ApiTimeout(ApiNoAnswer):
    pass


class ApiConnectionError(TransportError):
    """The request was never sent (no connection could be made): nothing was done."""


_BY_CODE: dict[str, type[PaymentsApiError]] = {
    "BAD_REQUEST": BadRequest,
    "VALIDATION_ERROR": ValidationFailed,
    "UNAUTHORIZED": Unauthorized,
    "FORBIDDEN": Forbidden,
    "NOT_FOUND": NotFound,
    "INTERNAL_SERVER_ERROR": InternalServerError,
}

# Used when the body carries no code the spec knows (a proxy's HTML page, a future code).
_BY_STATUS: dict[int, type[PaymentsApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    429: RateLimited,
    500: InternalServerError,
    502: ApiUnavailable,
    503: ApiUnavailable,
    504: ApiUnavailable,
}


def error_for(
    *,
    status: int,
    code: str | None,
    message: str,
    details: Any = None,
    retry_after: float | None = None,
    request_id: str | None = None,
) -> PaymentsApiError:
    """The exception for an error answer: 429 first, then the spec's code, then the status class."""
    if status == 429:
        cls: type[PaymentsApiError] = RateLimited
    elif code in _BY_CODE:
        cls = _BY_CODE[code]
    elif status in _BY_STATUS:
        cls = _BY_STATUS[status]
    elif status >= 500:
        cls = ServerError
    else:
        cls = PaymentsApiError
    kwargs: dict[str, Any] = {"status": status, "code": code, "details": details, "request_id": request_id}
    if cls is RateLimited:
        kwargs["retry_after"] = retry_after
    return cls(message, **kwargs)
