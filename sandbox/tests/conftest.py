import copy
import datetime as dt

import httpx
import pytest
from rest_framework.test import APIClient

from sandbox import clock
from sandbox.auth import create_key
from sandbox.models import Tier
from sandbox.services import webhooks

BASE = "/sandbox"
# Reviews stay UNDER_REVIEW until a test decides them (the review helper) or moves the clock
# this far; tests of the automatic review set their own delay (0 settles right after commit).
LONG_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


@pytest.fixture(autouse=True)
def _reviews_wait_for_the_test(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = LONG_REVIEW_DELAY_SECONDS


@pytest.fixture
def api_key(db):
    """(ApiKey row, plain key) of a standard-tier key."""
    return create_key()


@pytest.fixture
def api(api_key):
    """An APIClient authenticated with a standard key; paths are relative to {base_url}."""
    return SandboxClient(api_key[1])


@pytest.fixture
def make_api(db):
    """make_api(tier="builder", read_only=True, organization_id=...) -> another client."""

    def make(**options):
        options.setdefault("tier", Tier.STANDARD)
        return SandboxClient(create_key(**options)[1], key=None)

    return make


class SandboxClient:
    """APIClient with the bearer key set and paths relative to the sandbox base URL."""

    def __init__(self, plain_key: str | None, key=None):
        self.client = APIClient()
        self.plain_key = plain_key
        if plain_key:
            self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain_key}")

    def _call(self, method, path, data=None, **extra):
        kwargs = {"format": "json"} if data is not None and method != "get" else {}
        return getattr(self.client, method)(BASE + path, data, **kwargs, **extra)

    def get(self, path, params=None, **extra):
        return self._call("get", path, params, **extra)

    def post(self, path, data=None, **extra):
        return self._call("post", path, data if data is not None else {}, **extra)

    def patch(self, path, data=None, **extra):
        return self._call("patch", path, data if data is not None else {}, **extra)

    def put(self, path, data=None, **extra):
        return self._call("put", path, data if data is not None else {}, **extra)

    def delete(self, path, **extra):
        return self.client.delete(BASE + path, **extra)


class Receiver:
    """The integrator's server: answers in order (the last one repeats) and keeps each request.
    An answer is a status code, an exception class to raise, or a callable(request)."""

    def __init__(self):
        self.answers: list = [200]
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, type) and issubclass(answer, Exception):
            raise answer("simulated", request=request)
        if callable(answer):
            return answer(request)
        return httpx.Response(answer, json={"ok": answer < 300})


@pytest.fixture
def receiver(monkeypatch):
    """The integrator's server for every webhook delivery, in memory: no test reaches the network."""
    fake = Receiver()
    monkeypatch.setattr(webhooks, "delivery_client", lambda: httpx.Client(transport=httpx.MockTransport(fake)))
    return fake


# "Just before" a due time, with room for the real seconds a loaded machine spends between two
# lines of a test (the sandbox clock is real time plus an offset).
JUST_BEFORE = dt.timedelta(seconds=10)


def advance_to(moment: dt.datetime) -> None:
    """Move the sandbox clock forward to `moment`, from where it stands now."""
    clock.advance(max(0.0, (moment - clock.now()).total_seconds()))


def assert_error(response, status: int, code: str):
    """The spec's error body, with this status and code; returns the body."""
    body = response.json()
    assert response.status_code == status, body
    assert body["code"] == code, body
    assert body["statusCode"] == status
    assert isinstance(body["message"], str) and body["message"]
    assert "details" in body
    return body


# --- Customers -------------------------------------------------------------------------------

KYC_DATA = {
    "legalFirstName": "Ada",
    "legalLastName": "Lovelace",
    "phoneNumber": "+12025550123",
    "dateOfBirth": "1990-12-10",
    "nationalIdType": "ssn",
    "nationalIdNumber": "123-45-6789",
    "nationalIdIssuingCountry": "US",
    "nationality": "US",
}
KYB_DATA = {
    "businessInfo": {
        "legalBusinessName": "Analytical Engines LLC",
        "businessType": "LIMITED_LIABILITY_COMPANY",
        "registrationCountry": "US",
        "formationDate": "2015-03-01",
    },
    "businessRegistrationNumber": "REG-1",
}


def customer_body(customer_type: str = "INDIVIDUAL", *, with_data: bool = True, **fields) -> dict:
    """A valid POST /customers body (with KYC/KYB data unless with_data=False)."""
    if customer_type == "INDIVIDUAL":
        body = {"customerType": "INDIVIDUAL", "email": "ada@example.com", "firstName": "Ada", "lastName": "Lovelace"}
        if with_data:
            body["kycData"] = dict(KYC_DATA)
    else:
        body = {"customerType": "BUSINESS", "email": "ops@engines.example", "businessName": "Analytical Engines"}
        if with_data:
            body["kybData"] = {**KYB_DATA, "businessInfo": dict(KYB_DATA["businessInfo"])}
    return {**body, **fields}


@pytest.fixture
def customer_factory(api):
    """customer_factory(status="ACTIVE", customer_type="INDIVIDUAL", client=api, **body fields)
    -> the customer JSON, brought to `status` through the API and the test helpers."""

    def make(status: str = "ACTIVE", customer_type: str = "INDIVIDUAL", client=None, **fields):
        client = client or api
        body = customer_body(customer_type, with_data=status != "CREATED", **fields)
        response = client.post("/customers", body)
        assert response.status_code == 201, response.json()
        customer = response.json()
        if status in ("CREATED", "UNDER_REVIEW"):
            return customer
        outcome = "ACTIVE" if status == "DEACTIVATED" else status
        issues = [] if outcome == "ACTIVE" else [{"code": "DOCUMENT_MISSING_BACK", "message": "Back of the ID missing"}]
        review = {"outcome": outcome, "issues": issues}
        response = client.post(f"/test-helpers/customers/{customer['customerId']}/review", review)
        assert response.status_code == 200, response.json()
        if status == "DEACTIVATED":
            response = client.post(f"/test-helpers/customers/{customer['customerId']}/deactivate")
            assert response.status_code == 200, response.json()
        return response.json()

    return make


@pytest.fixture
def active_customer(customer_factory):
    """An ACTIVE INDIVIDUAL customer (JSON) of the `api` key's organization."""
    return customer_factory("ACTIVE")


# --- Payment accounts, quotes, transactions ---------------------------------------------------

ROUTING = "021000021"  # passes the ABA checksum
EVM_ADDRESS = "0x" + "ab" * 20
SOLANA_ADDRESS = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"
ACCOUNT_BODIES = {
    "bank": {
        "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
        "externalBankAccount": {
            "bankAccountType": "CHECKING",
            "bankAccountOwnerName": "Ada Lovelace",
            "bankAccountOwnerEmail": "ada@example.com",
            "bankName": "First Test Bank",
            "bankAccountCurrency": "USD",
            "bankAccountPaymentMethod": "ACH",
            "bankAccountNumber": "000123456789",
            "bankRoutingNumber": ROUTING,
        },
    },
    "pending_bank": {
        "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
        "externalBankAccount": {
            "bankAccountType": "CHECKING",
            "bankAccountOwnerName": "Ada Lovelace",
            "bankAccountCurrency": "USD",
            "bankAccountPaymentMethod": "WIRE",
        },
    },
    "wallet": {
        "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
        "externalCryptoWallet": {"currency": "USDC", "address": {"address": EVM_ADDRESS, "chain": "BASE"}},
    },
    "service_wallet": {
        "paymentAccountType": "SERVICE_CRYPTO_WALLET",
        "serviceCryptoWallet": {"cryptoWalletType": "EVM", "chain": "BASE"},
    },
    "fiat": {"paymentAccountType": "SERVICE_FIAT_ACCOUNT", "serviceFiatAccount": {"currency": "USD"}},
    "auto_fiat": {
        "paymentAccountType": "SERVICE_AUTO_FIAT_ACCOUNT",
        "serviceAutoFiatAccount": {"currency": "EUR", "supportedDestinationCurrencies": ["USDC", "EURC"]},
    },
}


def account_body(kind: str, customer_id: str, **fields) -> dict:
    """A valid POST /payment-accounts body of one kind (see ACCOUNT_BODIES)."""

    body = copy.deepcopy(ACCOUNT_BODIES[kind])
    return {**body, "customerId": customer_id, "nickname": kind, **fields}


@pytest.fixture
def make_account(api):
    """make_account(customer_id, "bank" | "pending_bank" | "wallet" | "service_wallet" | "fiat" |
    "auto_fiat", client=api, **fields) -> the created payment account JSON."""

    def make(customer_id: str, kind: str = "bank", client=None, **fields):
        response = (client or api).post("/payment-accounts", account_body(kind, customer_id, **fields))
        assert response.status_code == 201, response.json()
        return response.json()

    return make


def quote_body(customer_id, source_account, destination_account, **overrides) -> dict:
    """POST /quotes body; defaults to an ACH USD -> BASE USDC onramp of 100.00."""
    body = {
        "customerId": customer_id,
        "source": {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": "100.00",
            "sourcePaymentAccountId": source_account,
        },
        "destination": {
            "destinationPaymentAccountId": destination_account,
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
    }
    for key in ("source", "destination"):
        body[key].update(overrides.pop(key, {}))
    return {**body, **overrides}


@pytest.fixture
def onramp(api, active_customer, make_account):
    """An ACTIVE customer with an ACH bank account and a BASE USDC wallet: {customer, bank, wallet, quote()}."""
    customer_id = active_customer["customerId"]
    bank, wallet = make_account(customer_id, "bank"), make_account(customer_id, "wallet")

    def quote(client=None, **overrides):
        body = quote_body(customer_id, bank["paymentAccountId"], wallet["paymentAccountId"], **overrides)
        response = (client or api).post("/quotes", body)
        assert response.status_code == 201, response.json()
        return response.json()

    return {"customer": active_customer, "customer_id": customer_id, "bank": bank, "wallet": wallet, "quote": quote}


def offramp_quote(api, onramp, source_account, amount="20.000000"):
    """A BASE USDC -> ACH USD quote from `source_account` to the onramp's bank account."""
    body = quote_body(
        onramp["customer_id"],
        source_account,
        onramp["bank"]["paymentAccountId"],
        source={"sourceCurrency": "USDC", "sourcePaymentMethod": "BASE", "sourceAmount": amount},
        destination={"destinationCurrency": "USD", "destinationPaymentMethod": "ACH"},
    )
    response = api.post("/quotes", body)
    assert response.status_code == 201, response.json()
    return response.json()
