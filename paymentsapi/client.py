"""The one place of the back-office that speaks HTTP to the Payments API.

    client = get_client()                      # from Django settings, shared per process
    customer = client.get_customer(customer_id=..., include_payment_methods=True)
    for account in client.iter_payment_accounts(customer_id=customer.customer_id): ...

Every call has a timeout. Only calls that cannot do anything twice are retried (GET, DELETE,
and POST /transactions, which always carries an idempotency key, the same on every try),
on timeouts, connection failures, 429, 500 and 502/503/504, with exponential backoff, jitter and
`Retry-After`. Errors are the classes of `errors.py`. The API key is never logged and never
appears in an exception's text.
"""

import contextlib
import copy
import functools
import json
import logging
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

import httpx
import pybreaker
from django.conf import settings
from pydantic import BaseModel, SecretStr, ValidationError

from core.middleware import current_request_id

from .errors import (
    ApiConnectionError,
    ApiTimeout,
    ApiUnavailable,
    PaymentsApiError,
    ServerError,
    TransportError,
    UnexpectedResponse,
    error_for,
)
from .pagination import MAX_PAGE_SIZE, iter_items, next_token
from .types import (
    AutomationRule,
    Balance,
    CancelResult,
    Customer,
    CustomerType,
    DeveloperFee,
    ExchangeRate,
    ExternalBankAccount,
    ExternalCryptoWallet,
    JsonNumber,
    KybData,
    KycData,
    Page,
    PaymentAccount,
    PaymentAccountType,
    Quote,
    QuoteDestination,
    QuoteSource,
    ServiceAutoFiatAccount,
    ServiceCryptoWallet,
    ServiceFiatAccount,
    Transaction,
    TransactionTemplate,
    Trigger,
    WebhookDelivery,
    WebhookEndpoint,
)

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


class PaymentsApiClient:
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
    ):
        if http_client is not None and transport is not None:
            raise ValueError("Give either http_client or transport, not both")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.max_retries = max(0, max_retries)
        self.max_retry_after = max_retry_after
        self._api_key = api_key
        self._sleep = sleep
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.Client(transport=transport, timeout=self.timeout)
        self.breaker = breaker or make_breaker()

    @classmethod
    def from_settings(cls, **overrides: Any) -> "PaymentsApiClient":
        """A client configured by PAYMENTS_API_* settings; keyword arguments override them."""
        options: dict[str, Any] = {
            "api_key": settings.PAYMENTS_API_KEY,
            "base_url": settings.PAYMENTS_API_BASE_URL,
            "timeout": settings.PAYMENTS_API_TIMEOUT,
            "max_retries": getattr(settings, "PAYMENTS_API_MAX_RETRIES", DEFAULT_MAX_RETRIES),
        }
        options.update(overrides)
        return cls(**options)

    def __repr__(self) -> str:
        return f"PaymentsApiClient(base_url={self.base_url!r})"

    def with_options(self, *, timeout: float | None = None, max_retries: int | None = None) -> "PaymentsApiClient":
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

    def __enter__(self) -> "PaymentsApiClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- Customers ------------------------------------------------------------------------

    def create_customer(
        self,
        *,
        customer_type: CustomerType | str,
        email: str,
        first_name: str | None = None,
        last_name: str | None = None,
        business_name: str | None = None,
        kyc_data: KycData | Mapping[str, Any] | None = None,
        kyb_data: KybData | Mapping[str, Any] | None = None,
    ) -> Customer:
        body = _compact(
            customerType=customer_type,
            email=email,
            firstName=first_name,
            lastName=last_name,
            businessName=business_name,
            kycData=kyc_data,
            kybData=kyb_data,
        )
        return self._model(Customer, self._request("POST", "/customers", body=body))

    def list_customers(
        self, *, page_token: str | None = None, page_size: int | None = None, organization_id: str | None = None
    ) -> Page[Customer]:
        params = {"pageToken": page_token, "pageSize": page_size, "organizationId": organization_id}
        return self._page(Customer, self._request("GET", "/customers", params=params), "customers")

    def iter_customers(
        self, *, page_size: int = MAX_PAGE_SIZE, organization_id: str | None = None
    ) -> Iterator[Customer]:
        return iter_items(
            lambda token: self.list_customers(page_token=token, page_size=page_size, organization_id=organization_id)
        )

    def get_customer(self, *, customer_id: str, include_payment_methods: bool = False) -> Customer:
        params = {"includePaymentMethods": True} if include_payment_methods else None
        return self._model(Customer, self._request("GET", f"/customer/{_segment(customer_id)}", params=params))

    def update_customer(
        self,
        *,
        customer_id: str,
        kyc_data: KycData | Mapping[str, Any] | None = None,
        kyb_data: KybData | Mapping[str, Any] | None = None,
    ) -> Customer:
        """PATCH: send only the fields to change (the national ID triple goes together)."""
        body = _compact(kycData=kyc_data, kybData=kyb_data)
        return self._model(Customer, self._request("PATCH", f"/customers/{_segment(customer_id)}", body=body))

    # --- Payment accounts -----------------------------------------------------------------

    def create_payment_account(
        self,
        *,
        customer_id: str,
        payment_account_type: PaymentAccountType | str,
        nickname: str | None = None,
        organization_id: str | None = None,
        is_third_party: bool | None = None,
        external_bank_account: ExternalBankAccount | Mapping[str, Any] | None = None,
        service_auto_fiat_account: ServiceAutoFiatAccount | Mapping[str, Any] | None = None,
        service_fiat_account: ServiceFiatAccount | Mapping[str, Any] | None = None,
        external_crypto_wallet: ExternalCryptoWallet | Mapping[str, Any] | None = None,
        service_crypto_wallet: ServiceCryptoWallet | Mapping[str, Any] | None = None,
    ) -> PaymentAccount:
        """A bank account without its numbers comes back PENDING with `bank_account_form_link`."""
        body = _compact(
            customerId=customer_id,
            paymentAccountType=payment_account_type,
            nickname=nickname,
            organizationId=organization_id,
            isThirdParty=is_third_party,
            externalBankAccount=external_bank_account,
            serviceAutoFiatAccount=service_auto_fiat_account,
            serviceFiatAccount=service_fiat_account,
            externalCryptoWallet=external_crypto_wallet,
            serviceCryptoWallet=service_crypto_wallet,
        )
        return self._model(PaymentAccount, self._request("POST", "/payment-accounts", body=body))

    def list_payment_accounts(
        self, *, page_token: str | None = None, page_size: int | None = None, customer_id: str | None = None
    ) -> Page[PaymentAccount]:
        params = {"pageToken": page_token, "pageSize": page_size, "customerId": customer_id}
        return self._page(PaymentAccount, self._request("GET", "/payment-accounts", params=params), "paymentAccounts")

    def iter_payment_accounts(
        self, *, page_size: int = MAX_PAGE_SIZE, customer_id: str | None = None
    ) -> Iterator[PaymentAccount]:
        return iter_items(
            lambda token: self.list_payment_accounts(page_token=token, page_size=page_size, customer_id=customer_id)
        )

    def get_payment_account(self, *, payment_account_id: str) -> PaymentAccount:
        return self._model(PaymentAccount, self._request("GET", f"/payment-accounts/{_segment(payment_account_id)}"))

    def get_payment_account_balance(
        self, *, payment_account_id: str, chain: str | None = None, currency: str | None = None
    ) -> Balance:
        path = f"/payment-accounts/{_segment(payment_account_id)}/balance"
        return self._model(Balance, self._request("GET", path, params={"chain": chain, "currency": currency}))

    # --- Exchange rates and quotes --------------------------------------------------------

    def get_exchange_rate(
        self,
        *,
        source_currency: str,
        source_payment_method: str,
        destination_payment_method: str,
        destination_currency: str,
        source_amount: Decimal | None = None,
    ) -> ExchangeRate:
        """With `source_amount`, the answer also carries fees and the destination amount."""
        params = {
            "sourceCurrency": source_currency,
            "sourcePaymentMethod": source_payment_method,
            "sourceAmount": source_amount,
            "destinationPaymentMethod": destination_payment_method,
            "destinationCurrency": destination_currency,
        }
        return self._model(ExchangeRate, self._request("GET", "/exchange-rates", params=params))

    def create_quote(
        self,
        *,
        customer_id: str,
        source: QuoteSource | Mapping[str, Any],
        destination: QuoteDestination | Mapping[str, Any],
        developer_fee: DeveloperFee | Mapping[str, Any] | None = None,
        guarantee_quote: bool | None = None,
    ) -> Quote:
        body = _compact(
            customerId=customer_id,
            source=source,
            destination=destination,
            developerFee=developer_fee,
            guaranteeQuote=guarantee_quote,
        )
        return self._model(Quote, self._request("POST", "/quotes", body=body))

    # --- Transactions ---------------------------------------------------------------------

    def create_transaction(
        self, *, quote_id: str, correlation_id: str | None = None, idempotency_key: str | None = None
    ) -> Transaction:
        """Create a transaction from a quote.

        Every try sends the same `x-idempotency-key`, so a retry after a lost answer replays
        the first answer instead of creating a second transaction. Pass your own key (kept
        with your record) to make a later, separate call safe too; else a UUID is made here.
        """
        body = _compact(quoteId=quote_id, correlationId=correlation_id)
        key = idempotency_key or str(uuid.uuid4())
        return self._model(Transaction, self._request("POST", "/transactions", body=body, idempotency_key=key))

    def get_transaction(self, *, transaction_id: str) -> Transaction:
        return self._model(Transaction, self._request("GET", f"/transactions/{_segment(transaction_id)}"))

    def cancel_transaction(self, *, transaction_id: str) -> CancelResult:
        """DELETE; only CREATED or AWAITING_TRANSFER can be cancelled (else BadRequest)."""
        return self._model(CancelResult, self._request("DELETE", f"/transactions/{_segment(transaction_id)}") or {})

    # --- Automation rules -----------------------------------------------------------------

    def create_automation_rule(
        self,
        *,
        name: str,
        customer_id: str,
        transaction_template: TransactionTemplate | Mapping[str, Any],
        trigger: Trigger | Mapping[str, Any],
    ) -> AutomationRule:
        body = _compact(name=name, customerId=customer_id, transactionTemplate=transaction_template, trigger=trigger)
        return self._model(AutomationRule, self._request("POST", "/automation-rules", body=body))

    def list_automation_rules(
        self,
        *,
        customer_id: str | None = None,
        source_payment_account_id: str | None = None,
        page_token: str | None = None,
        page_size: int | None = None,
    ) -> Page[AutomationRule]:
        params = {
            "customerId": customer_id,
            "sourcePaymentAccountId": source_payment_account_id,
            "pageToken": page_token,
            "pageSize": page_size,
        }
        return self._page(AutomationRule, self._request("GET", "/automation-rules", params=params), "automationRules")

    def iter_automation_rules(
        self,
        *,
        customer_id: str | None = None,
        source_payment_account_id: str | None = None,
        page_size: int = MAX_PAGE_SIZE,
    ) -> Iterator[AutomationRule]:
        return iter_items(
            lambda token: self.list_automation_rules(
                customer_id=customer_id,
                source_payment_account_id=source_payment_account_id,
                page_token=token,
                page_size=page_size,
            )
        )

    def get_automation_rule(self, *, rule_id: str) -> AutomationRule:
        return self._model(AutomationRule, self._request("GET", f"/automation-rules/{_segment(rule_id)}"))

    def update_automation_rule(
        self,
        *,
        rule_id: str,
        name: str,
        customer_id: str,
        transaction_template: TransactionTemplate | Mapping[str, Any],
        trigger: Trigger | Mapping[str, Any],
    ) -> AutomationRule:
        """PUT replaces the whole rule: give every field, not only the changed ones."""
        body = _compact(
            id=rule_id, name=name, customerId=customer_id, transactionTemplate=transaction_template, trigger=trigger
        )
        return self._model(AutomationRule, self._request("PUT", f"/automation-rules/{_segment(rule_id)}", body=body))

    # --- Webhook endpoints ----------------------------------------------------------------

    def create_webhook_endpoint(self, *, url: str, events: list[str]) -> WebhookEndpoint:
        """The answer carries the signing `secret`, shown this once: store it now."""
        body = {"url": url, "events": list(events)}
        return self._model(WebhookEndpoint, self._request("POST", "/webhooks", body=body))

    def list_webhook_endpoints(
        self, *, page_token: str | None = None, page_size: int | None = None
    ) -> Page[WebhookEndpoint]:
        params = {"pageToken": page_token, "pageSize": page_size}
        body = self._request("GET", "/webhooks", params=params)
        return self._page(WebhookEndpoint, body, "webhooks", "webhookEndpoints", "data")

    def iter_webhook_endpoints(self, *, page_size: int = MAX_PAGE_SIZE) -> Iterator[WebhookEndpoint]:
        return iter_items(lambda token: self.list_webhook_endpoints(page_token=token, page_size=page_size))

    def get_webhook_endpoint(self, *, webhook_id: str) -> WebhookEndpoint:
        return self._model(WebhookEndpoint, self._request("GET", f"/webhooks/{_segment(webhook_id)}"))

    def delete_webhook_endpoint(self, *, webhook_id: str) -> None:
        self._request("DELETE", f"/webhooks/{_segment(webhook_id)}")

    def list_webhook_deliveries(
        self, *, webhook_id: str, page_token: str | None = None, page_size: int | None = None
    ) -> Page[WebhookDelivery]:
        params = {"pageToken": page_token, "pageSize": page_size}
        body = self._request("GET", f"/webhooks/{_segment(webhook_id)}/deliveries", params=params)
        return self._page(WebhookDelivery, body, "deliveries", "webhookDeliveries", "data")

    def iter_webhook_deliveries(self, *, webhook_id: str, page_size: int = MAX_PAGE_SIZE) -> Iterator[WebhookDelivery]:
        return iter_items(
            lambda token: self.list_webhook_deliveries(webhook_id=webhook_id, page_token=token, page_size=page_size)
        )

    # --- HTTP -----------------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        """One call through the circuit breaker: while the upstream keeps failing, calls fail
        at once with ApiUnavailable instead of waiting for timeouts, and one trial call after
        the pause tells whether it is back."""
        try:
            return self.breaker.call(self._send, method, path, **kwargs)
        except pybreaker.CircuitBreakerError:
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
    ) -> Any:
        """Send, retry where safe, and return the parsed JSON of a 2xx (None for an empty body)."""
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request_id = current_request_id()
        if request_id != "-":
            headers["X-Request-ID"] = request_id
        if idempotency_key:
            headers["x-idempotency-key"] = idempotency_key
        content = None
        if body is not None:
            content = json.dumps(to_wire(body)).encode()
            headers["Content-Type"] = "application/json"
        query = {name: value for name, value in to_wire(dict(params or {})).items() if value is not None}

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
                if attempt < attempts:
                    self._sleep(self._backoff(attempt))
                    continue
                # The reason is in the message already; the httpx exception holds the request.
                raise error from None

            status = response.status_code
            self._log(method, path, status, started, attempt, request_id, logging.WARNING if status >= 500 else None)
            if response.is_success:
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
            request_id,
        )

    def _transport_error(self, exc: httpx.RequestError, method: str, path: str) -> PaymentsApiError:
        reason = self._redact(str(exc)) or type(exc).__name__
        if isinstance(exc, httpx.TimeoutException):
            return ApiTimeout(f"No answer from the Payments API to {method} {path} in time ({reason})")
        return ApiConnectionError(f"Could not reach the Payments API for {method} {path}: {reason}")

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

    def _model(self, model: type[M], data: Any) -> M:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            # Field locations only: the input values may be personal data.
            where = ", ".join(".".join(map(str, error["loc"])) for error in exc.errors(include_input=False)[:5])
            raise UnexpectedResponse(
                f"The Payments API answered with an invalid {model.__name__} (at {where})"
            ) from None

    def _page(self, model: type[M], body: Any, *keys: str) -> Page[M]:
        if isinstance(body, dict):
            for key in keys:
                if isinstance(body.get(key), list):
                    return Page(
                        items=[self._model(model, item) for item in body[key]], next_page_token=next_token(body)
                    )
        raise UnexpectedResponse(f"The Payments API answered a list without {keys[0]!r}")


def to_wire(value: Any) -> Any:
    """Python values -> JSON values: models by their camelCase names, Decimals as strings.

    Floats are refused: money is Decimal end to end, and a float would already have lost digits.
    """
    if isinstance(value, BaseModel):
        return to_wire(value.model_dump(by_alias=True, exclude_none=True))
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, JsonNumber):
        if not value.is_finite() or len(value.as_tuple().digits) > 15:
            raise ValueError(f"Cannot send {value} as a JSON number without losing digits")
        # Up to 15 significant digits, a float's shortest repr is exactly this decimal text.
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"Cannot send the amount {value}")
        return format(value, "f")  # never exponent form such as 1E+2
    if isinstance(value, float):
        raise TypeError("Floats are not sent to the Payments API: use Decimal for amounts")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Mapping):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(item) for item in value]
    raise TypeError(f"Cannot send a {type(value).__name__} to the Payments API")


def _compact(**fields: Any) -> dict[str, Any]:
    """The body without the fields left as None (unset, not null)."""
    return {name: value for name, value in fields.items() if value is not None}


def _segment(value: str) -> str:
    """An id as one path segment: an id with "/" or ".." must not reach another path."""
    text = str(value)
    if not text or "/" in text or text in (".", "..") or "?" in text or "#" in text:
        raise ValueError(f"Not a usable id: {text!r}")
    return text


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


def make_breaker(*, fail_max: int | None = None, reset_timeout: float | None = None) -> pybreaker.CircuitBreaker:
    """Per process: after `fail_max` failed calls in a row, calls pause for `reset_timeout` s."""
    return pybreaker.CircuitBreaker(
        fail_max=fail_max or getattr(settings, "PAYMENTS_API_BREAKER_FAILURES", 5),
        reset_timeout=reset_timeout or getattr(settings, "PAYMENTS_API_BREAKER_RESET_SECONDS", 30),
        exclude=[_not_an_outage],
        throw_new_error_on_trip=False,
        name="payments-api",
    )


# The test seam: while `override_client()` is active, get_client() answers this client.
_override: PaymentsApiClient | None = None


@contextlib.contextmanager
def override_client(client: PaymentsApiClient) -> Iterator[PaymentsApiClient]:
    """For tests only: every get_client() in the block answers `client` (e.g. one over an
    httpx.MockTransport that fails on command). One seam for all callers, which import
    get_client by name and so cannot be patched one module at a time reliably."""
    global _override
    previous, _override = _override, client
    try:
        yield client
    finally:
        _override = previous


def get_client() -> PaymentsApiClient:
    """The shared client of the current settings: one connection pool per process and settings.

    With PAYMENTS_API_IN_PROCESS the requests go through WSGI into this same project (the
    mounted sandbox) instead of a socket: for tests and for set-up commands that run before
    the server is up. It is still HTTP: nothing of the sandbox is imported.
    """
    if _override is not None:
        return _override
    return _shared_client(
        settings.PAYMENTS_API_BASE_URL,
        settings.PAYMENTS_API_KEY,
        float(settings.PAYMENTS_API_TIMEOUT),
        getattr(settings, "PAYMENTS_API_MAX_RETRIES", DEFAULT_MAX_RETRIES),
        bool(getattr(settings, "PAYMENTS_API_IN_PROCESS", False)),
    )


@functools.lru_cache(maxsize=4)
def _shared_client(
    base_url: str, api_key: str, timeout: float, max_retries: int, in_process: bool
) -> PaymentsApiClient:
    transport = None
    if in_process:
        from django.core.wsgi import get_wsgi_application

        transport = httpx.WSGITransport(app=get_wsgi_application())
    return PaymentsApiClient(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries, transport=transport
    )
