"""What every call of the client goes through: transport, retries, the circuit breaker,
redaction of the API key, parsing, and the status -> error mapping.

Every call has a timeout. Only calls that cannot do anything twice are retried (GET, DELETE,
and writes that carry an idempotency key, the same on every try), on timeouts, connection
failures, 429, 500 and 502/503/504, with exponential backoff, jitter and `Retry-After`.
Errors are the classes of `errors.py`. The API key is never logged and never appears in an
exception's text.
"""

import copy
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Self, TypeVar

import httpx
import pybreaker
from pydantic import BaseModel, ValidationError

from ._wire import compact, to_wire
from .errors import (
    ApiConnectionError,
    ApiNoAnswer,
    ApiTimeout,
    ApiUnavailable,
    PaymentsApiError,
    ServerError,
    TransportError,
    UnexpectedResponse,
    error_for,
)
from .pagination import next_token
from .types import Page

log = logging.getLogger("paymentsapi")

M = TypeVar("M", bound=BaseModel)
Body = Mapping[str, Any] | BaseModel

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_RETRIES = 2
# 500 too: for a read or an idempotent write, a second try costs little and often succeeds.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
INITIAL_BACKOFF = 0.5
MAX_BACKOFF = 8.0
# A Retry-After longer than this is cut to it: a staff member or a task is waiting.
MAX_RETRY_AFTER = 30.0
DEFAULT_BREAKER_FAILURES = 5
DEFAULT_BREAKER_RESET_SECONDS = 30.0


def _no_request_id() -> str | None:
    return None


# observer(method, path, outcome, seconds): one call per try, for metrics. The outcome is
# "ok", "4xx", "5xx", "timeout", "unreachable", or "circuit_open" for a call the breaker held back.
Observer = Callable[[str, str, str, float], None]


def _no_observer(method: str, path: str, outcome: str, seconds: float) -> None:
    pass


class BaseClient:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_retry_after: float = MAX_RETRY_AFTER,
        breaker: pybreaker.CircuitBreaker | None = None,
        request_id: Callable[[], str | None] = _no_request_id,
        observer: Observer = _no_observer,
    ):
        """`request_id()` names the caller's current request (or None): it is sent as
        X-Request-ID and written in the log line of every try, to follow a call across logs."""
        if http_client is not None and transport is not None:
            raise ValueError("Give either http_client or transport, not both")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.max_retries = max(0, max_retries)
        self.max_retry_after = max_retry_after
        self._api_key = api_key
        self._sleep = sleep
        self._request_id = request_id
        self._observe = observer
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.Client(transport=transport, timeout=self.timeout)
        self.breaker = breaker or make_breaker()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def with_options(self, *, timeout: float | None = None, max_retries: int | None = None) -> Self:
        """The same client (connection pool, breaker) with other limits: for reads a person is
        waiting on, e.g. a preview, a short timeout and no retries."""
        other = copy.copy(self)
        if timeout is not None:
            other.timeout = httpx.Timeout(timeout)
        if max_retries is not None:
            other.max_retries = max(0, max_retries)
        other._owns_http_client = False  # closing the copy must not close the shared pool
        return other

    def close(self) -> None:
        if self._owns_http_client:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        """One call through the circuit breaker: while the upstream keeps failing, calls fail
        at once with ApiUnavailable instead of waiting for timeouts, and one trial call after
        the pause tells whether it is back."""
        try:
            return self.breaker.call(self._send, method, path, **kwargs)
        except pybreaker.CircuitBreakerError:
            self._observe(method, path, "circuit_open", 0.0)
            raise ApiUnavailable(
                f"The Payments API has been failing; calls pause for {self.breaker.reset_timeout:.0f} s "
                f"before trying again ({method} {path} was not sent)"
            ) from None

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Body | None = None,
        idempotency_key: str | None = None,
        answer_headers: dict[str, str] | None = None,
    ) -> Any:
        """Send, retry where safe, and return the parsed JSON of a 2xx (None for an empty body);
        the 2xx's headers go into `answer_headers` when given."""
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request_id = self._request_id()
        if request_id:
            headers["X-Request-ID"] = request_id
        if idempotency_key:
            headers["x-idempotency-key"] = idempotency_key
        content = None
        if body is not None:
            content = json.dumps(compact(to_wire(body))).encode()
            headers["Content-Type"] = "application/json"
        query = compact(to_wire(dict(params or {})))

        # Repeating these cannot do anything twice: reads, deletes, and writes with an idempotency key.
        retryable = method in ("GET", "DELETE") or idempotency_key is not None
        attempts = 1 + (self.max_retries if retryable else 0)
        for attempt in range(1, attempts + 1):
            started = time.monotonic()
            try:
                response = self._http.request(
                    method, self.base_url + path, params=query, content=content, headers=headers, timeout=self.timeout
                )
            except httpx.RequestError as exc:
                error = self._transport_error(exc, method, path)
                self._log(method, path, type(error).__name__, started, attempt, request_id, logging.WARNING)
                outcome = "timeout" if isinstance(error, ApiTimeout) else "unreachable"
                self._observe(method, path, outcome, time.monotonic() - started)
                if attempt < attempts:
                    self._sleep(self._backoff(attempt))
                    continue
                # The reason is in the message already; the httpx exception holds the request.
                raise error from None

            status = response.status_code
            self._log(method, path, status, started, attempt, request_id, logging.WARNING if status >= 500 else None)
            self._observe(
                method, path, "ok" if response.is_success else f"{status // 100}xx", time.monotonic() - started
            )
            if response.is_success:
                if answer_headers is not None:
                    answer_headers.update(response.headers)
                return self._parse(response, method, path)
            retry_after = _parse_retry_after(response.headers.get("Retry-After"))
            error = self._error(response, retry_after)
            if attempt < attempts and status in RETRY_STATUSES:
                delay = min(retry_after, self.max_retry_after) if retry_after is not None else self._backoff(attempt)
                self._sleep(delay)
                continue
            raise error
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int) -> float:
        """0.5 s, 1 s, 2 s, ... up to 8 s, less up to a quarter at random so clients spread out."""
        return min(INITIAL_BACKOFF * 2 ** (attempt - 1), MAX_BACKOFF) * (1 - 0.25 * random.random())

    def _log(self, method, path, outcome, started, attempt, request_id, level=None) -> None:
        # Method, path, outcome and timing only: never headers (the key) nor bodies (personal data).
        elapsed_ms = (time.monotonic() - started) * 1000
        log.log(
            level or logging.INFO,
            "%s %s -> %s in %.0f ms (attempt %d, request id %s)",
            method,
            path,
            outcome,
            elapsed_ms,
            attempt,
            request_id or "-",
        )

    def _transport_error(self, exc: httpx.RequestError, method: str, path: str) -> PaymentsApiError:
        reason = self._redact(str(exc)) or type(exc).__name__
        # Only a connection never made means the request was never sent; a read or write that
        # broke, or a timeout after connecting, may have left the call done upstream.
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol | httpx.PoolTimeout):
            return ApiConnectionError(f"Could not reach the Payments API for {method} {path}: {reason}")
        if isinstance(exc, httpx.TimeoutException):
            return ApiTimeout(f"No answer from the Payments API to {method} {path} in time ({reason})")
        return ApiNoAnswer(f"The connection to the Payments API broke during {method} {path} ({reason})")

    def _parse(self, response: httpx.Response, method: str, path: str) -> Any:
        if not response.content:
            return None
        try:
            return json.loads(response.content, parse_float=Decimal)
        except ValueError:
            raise UnexpectedResponse(
                f"The Payments API answered {method} {path} with a body that is not JSON",
                status=response.status_code,
            ) from None

    def _error(self, response: httpx.Response, retry_after: float | None) -> PaymentsApiError:
        status = response.status_code
        try:
            body = json.loads(response.content, parse_float=Decimal)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {}
        code = body.get("code") if isinstance(body.get("code"), str) else None
        message = body.get("message")
        if not isinstance(message, str) or not message:
            kind = response.headers.get("Content-Type", "no content type").split(";")[0]
            message = (
                f"The Payments API answered HTTP {status} {response.reason_phrase} "
                f"without the spec's error body ({kind})"
            )
        return error_for(
            status=status,
            code=code,
            message=self._redact(message),
            details=self._redact_all(body.get("details")),
            retry_after=retry_after,
            request_id=response.headers.get("X-Request-ID"),
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[API key]") if self._api_key else text

    def _redact_all(self, value: Any) -> Any:
        """The key out of every string of an error's details (their messages reach str())."""
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, list):
            return [self._redact_all(item) for item in value]
        if isinstance(value, dict):
            return {key: self._redact_all(item) for key, item in value.items()}
        return value


def parse_model(model: type[M], data: Any) -> M:
    """The answer as `model`; an answer without the spec's shape is an UnexpectedResponse."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # Field locations only: the input values may be personal data.
        where = ", ".join(".".join(map(str, error["loc"])) for error in exc.errors(include_input=False)[:5])
        raise UnexpectedResponse(f"The Payments API answered with an invalid {model.__name__} (at {where})") from None


def parse_page(model: type[M], body: Any, *keys: str) -> Page[M]:
    """A list answer as a Page: the items under the first of `keys` that holds a list."""
    if isinstance(body, dict):
        for key in keys:
            if isinstance(body.get(key), list):
                return Page(items=[parse_model(model, item) for item in body[key]], next_page_token=next_token(body))
    raise UnexpectedResponse(f"The Payments API answered a list without {keys[0]!r}")


def _parse_retry_after(value: str | None) -> float | None:
    """The seconds form of Retry-After; the HTTP-date form and garbage fall back to backoff."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _not_an_outage(exc: BaseException) -> bool:
    """Only transport failures and 5xx count against the upstream; a 4xx is our request's fault."""
    return not isinstance(exc, (TransportError, ServerError))


def make_breaker(
    *, fail_max: int = DEFAULT_BREAKER_FAILURES, reset_timeout: float = DEFAULT_BREAKER_RESET_SECONDS
) -> pybreaker.CircuitBreaker:
    """Per process: after `fail_max` failed calls in a row, calls pause for `reset_timeout` s."""
    return pybreaker.CircuitBreaker(
        fail_max=fail_max,
        reset_timeout=reset_timeout,
        exclude=[_not_an_outage],
        throw_new_error_on_trip=False,
        name="payments-api",
    )
