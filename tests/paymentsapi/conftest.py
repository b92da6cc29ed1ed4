"""Fixtures of the client's tests.

- `upstream` / `make_client`: a scripted fake upstream on httpx.MockTransport, for fault
  handling. This folder is the only place where the upstream is mocked.
- `sandbox_client`: the real client over the real sandbox, in-process through WSGI; it shares
  the test's database transaction because the WSGI app runs in the test's thread.
- `funded`: an ACTIVE sandbox customer with a wallet and a bank account to quote between.
"""

import uuid
from decimal import Decimal

import httpx
import pytest
from django.core.wsgi import get_wsgi_application

from paymentsapi import PaymentsApiClient
from tests.paymentsapi.sandbox_data import active_customer, bank_account, crypto_wallet

API_KEY = "sk_live_do_not_leak_4f9a1c2e7b"
BASE_URL = "https://payments.example/v1"
SANDBOX_URL = "http://testserver/sandbox"


class Upstream:
    """Answers with the scripted answers in order (the last one repeats) and records requests.

    An answer is an httpx.Response, an exception instance to raise, or a callable(request).
    """

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer

    @property
    def paths(self) -> list[str]:
        return [request.url.path for request in self.requests]


@pytest.fixture
def sleeps() -> list[float]:
    """The delays the client slept for, instead of sleeping."""
    return []


@pytest.fixture
def make_client(sleeps):
    def make(*answers, **options) -> tuple[PaymentsApiClient, Upstream]:
        upstream = Upstream(*answers)
        options.setdefault("max_retries", 2)
        client = PaymentsApiClient(
            api_key=API_KEY, base_url=BASE_URL, transport=httpx.MockTransport(upstream), sleep=sleeps.append, **options
        )
        return client, upstream

    return make


def ok(body=None, status=200, **kwargs) -> httpx.Response:
    return httpx.Response(status, json=body if body is not None else {}, **kwargs)


def api_error(status: int, code: str, message: str = "Something went wrong", details=None, **kwargs) -> httpx.Response:
    body = {"message": message, "code": code, "details": details, "statusCode": status}
    return httpx.Response(status, json=body, **kwargs)


def customer_body(**fields) -> dict:
    body = {
        "customerId": str(uuid.uuid4()),
        "customerStatus": "CREATED",
        "customerType": "INDIVIDUAL",
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "verificationLink": "https://forms.example/verify/abc",
        "updatedAt": "2025-11-20T10:00:00Z",
        "organizationId": str(uuid.uuid4()),
    }
    return {**body, **fields}


def transaction_body(**fields) -> dict:
    body = {
        "transactionId": str(uuid.uuid4()),
        "customerId": str(uuid.uuid4()),
        "quoteId": str(uuid.uuid4()),
        "transactionStatus": "AWAITING_TRANSFER",
        "source": {
            "sourceCurrency": {"label": "USD"},
            "sourcePaymentMethod": "ACH",
            "sourceAmount": "100.10",
            "sourcePaymentAccountId": str(uuid.uuid4()),
        },
        "destination": {
            "destinationPaymentAccountId": str(uuid.uuid4()),
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": {
                "label": "USDC",
                "chain": "BASE",
                "contractAddress": "0xabc",
                "currencyDecimals": 6,
            },
            "exchangeRate": "0.9990",
            "destinationAmount": "99.000001",
        },
        "fees": {
            "feeCurrency": {"label": "USD"},
            "serviceFee": {"feeAmount": "1.00", "feeUSDAmount": "1.00"},
            "developerFee": {"feeAmount": "0.10", "feeUSDAmount": "0.10"},
        },
        "createdAt": "2025-11-20T10:00:00Z",
        "updatedAt": "2025-11-20T10:00:00Z",
        "transferInstructions": {"type": "fiat", "transferBankName": "Bank", "transferRoutingNumber": "021000021"},
        "expiresAt": "2025-11-21T10:00:00Z",
    }
    return {**body, **fields}


# --- The real sandbox -------------------------------------------------------------------------


@pytest.fixture
def sandbox_transport(in_process):
    """WSGI transport into this project (see `in_process` in tests/conftest.py)."""
    return httpx.WSGITransport(app=get_wsgi_application())


@pytest.fixture
def sandbox_key(db) -> str:
    from sandbox.auth import create_key

    return create_key()[1]


@pytest.fixture
def make_sandbox_client(db, sandbox_transport):
    """make_sandbox_client(tier="builder", read_only=True, organization_id=...) -> a client of a new key."""
    from sandbox.auth import create_key

    def make(api_key: str | None = None, **key_options) -> PaymentsApiClient:
        if api_key is None:
            api_key = create_key(**key_options)[1]
        return PaymentsApiClient(
            api_key=api_key, base_url=SANDBOX_URL, transport=sandbox_transport, max_retries=0, sleep=lambda _: None
        )

    return make


@pytest.fixture
def sandbox_client(make_sandbox_client, sandbox_key) -> PaymentsApiClient:
    return make_sandbox_client(sandbox_key)


class Helpers:
    """The sandbox's test helpers ({base_url}/test-helpers/...), which the client does not cover."""

    def __init__(self, transport, api_key: str):
        self.http = httpx.Client(
            transport=transport,
            base_url=f"{SANDBOX_URL}/test-helpers",
            headers={"Authorization": f"Bearer {api_key}"},
        )

    def post(self, path: str, body: dict | None = None) -> dict:
        response = self.http.post(path, json=body or {})
        assert response.is_success, (path, response.status_code, response.text)
        return response.json() if response.content else {}

    def review(self, customer_id: str, outcome: str = "ACTIVE", issues: list | None = None) -> dict:
        return self.post(f"customers/{customer_id}/review", {"outcome": outcome, "issues": issues or []})

    def fund(self, account_id: str, *, currency: str, amount: Decimal, chain: str | None = None) -> dict:
        body = {"currency": currency, "amount": str(amount), **({"chain": chain} if chain else {})}
        return self.post(f"payment-accounts/{account_id}/fund", body)

    def advance_transaction(self, transaction_id: str, to: str) -> dict:
        return self.post(f"transactions/{transaction_id}/advance", {"to": to})

    def advance_clock(self, seconds: float) -> dict:
        return self.post("clock/advance", {"seconds": seconds})


@pytest.fixture
def helpers(sandbox_transport, sandbox_key) -> Helpers:
    return Helpers(sandbox_transport, sandbox_key)


@pytest.fixture
def funded(sandbox_client, helpers):
    """An ACTIVE customer with a USDC wallet on BASE (source) and a USD ACH bank account."""
    customer = active_customer(sandbox_client, helpers)
    wallet = crypto_wallet(sandbox_client, customer.customer_id)
    bank = bank_account(sandbox_client, customer.customer_id)
    return customer, wallet, bank
