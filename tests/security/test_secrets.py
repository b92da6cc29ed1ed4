"""The API key and the webhook secret never reach a page, a log record, an exception message
or an audit event; national ID numbers appear only masked.

Every GET page of the matrix is rendered for an admin, with the error pages, while the client
fails in every way (errors that echo the key, timeouts, refused connections) and webhooks
arrive signed, unsigned and forged. Logs are captured at DEBUG for every logger.
"""

import base64
import datetime as dt
import json
import logging

import httpx
import pytest
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from core.models import Counter
from mirror.models import WebhookEvent
from paymentsapi import PaymentsApiClient, PaymentsApiError
from tests.marks import marked
from tests.security.common import GETS, MATRIX, url_of
from tests.webhooks import signed
from upstream.client import override_client

pytestmark = pytest.mark.django_db

API_KEY = "sk_live_Zq8vSECRETapikey5b4a3c2d1e0f"
WEBHOOK_RAW = b"webhook-signing-secret-0123456789abcdef"
WEBHOOK_SECRET = "whsec_" + base64.b64encode(WEBHOOK_RAW).decode()
FORBIDDEN = [
    API_KEY,
    base64.b64encode(API_KEY.encode()).decode(),
    WEBHOOK_SECRET,
    WEBHOOK_SECRET.removeprefix("whsec_"),
    WEBHOOK_RAW.decode(),
]
NATIONAL_ID = "987654321"


def leaks(text: str, forbidden=FORBIDDEN) -> list[str]:
    return [secret for secret in forbidden if secret in text]


class Hostile(httpx.BaseTransport):
    """An upstream that fails in every way, echoing the key wherever it can."""

    def __init__(self):
        self.calls = 0

    def handle_request(self, request):
        self.calls += 1
        assert request.headers["Authorization"] == f"Bearer {API_KEY}"
        kind = self.calls % 5
        if kind == 0:
            raise httpx.ReadTimeout(f"timed out; request had Bearer {API_KEY}", request=request)
        if kind == 1:
            raise httpx.ConnectError(f"refused for key {API_KEY}", request=request)
        if kind == 2:
            body = {"code": "UNAUTHORIZED", "message": f"Unknown API key {API_KEY}", "details": [{"message": API_KEY}]}
            return httpx.Response(401, json=body)
        if kind == 3:
            return httpx.Response(500, text=f"<html>Traceback ... Authorization: Bearer {API_KEY}</html>")
        body = {"code": "VALIDATION_ERROR", "message": "Invalid", "details": [{"path": ["x"], "message": API_KEY}]}
        return httpx.Response(400, json=body)


@pytest.fixture
def secrets(settings):
    settings.PAYMENTS_API_KEY = API_KEY
    settings.PAYMENTS_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.PAYMENTS_API_BASE_URL = "https://api.payments.invalid"
    transport = Hostile()
    client = PaymentsApiClient(
        api_key=API_KEY, base_url="https://api.payments.invalid", transport=transport, sleep=lambda s: None
    )
    with override_client(client):
        yield client


@pytest.fixture
def all_logs(caplog):
    """Every record of every logger, DEBUG and up."""
    caplog.set_level(logging.DEBUG)
    for name in list(logging.root.manager.loggerDict):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def log_text(caplog) -> str:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


def audit_text() -> str:
    return "\n".join(
        json.dumps([e.action, e.target_kind, e.target_id, e.outcome, e.details], default=str)
        for e in AuditEvent.objects.all()
    )


def test_no_page_log_or_audit_event_shows_a_secret(client_as, secrets, all_logs):
    client = client_as("admin")
    pages = {}
    for name in GETS:
        access = MATRIX[name]
        response = client.get(url_of(name), access.data() if access.data else {})
        assert response.status_code == 200, name
        content = b"".join(response.streaming_content) if response.streaming else response.content
        pages[name] = content.decode()
    # The writes that call the API, each failing one way or another.
    from tests.factories import CustomerFactory, TransactionFactory

    for _ in range(5):
        customer = CustomerFactory(synced_at=None)
        response = client.post(reverse("customers-refresh-customer", args=[customer.customer_id]), follow=True)
        pages[f"refresh {customer.customer_id}"] = response.content.decode()
        tx = TransactionFactory()
        response = client.post(reverse("payments-refresh-transaction", args=[tx.transaction_id]), follow=True)
        pages[f"refresh {tx.transaction_id}"] = response.content.decode()
        body = {"customer_type": "INDIVIDUAL", "email": "a@example.com", "first_name": "A", "last_name": "B"}
        pages[f"create {_}"] = client.post(reverse("customers-create-customer"), body).content.decode()
    # The matrix's writes too (their own records, the same failing API).
    for name, access in MATRIX.items():
        if access.method == "post":
            response = client.post(url_of(name), access.data() if access.data else {}, follow=True)
            assert response.status_code < 500, name
            pages[f"post {name}"] = response.content.decode()
    assert secrets._http._transport.calls >= 15
    for name, html in pages.items():
        assert leaks(html) == [], name
    assert leaks(log_text(all_logs)) == []
    assert leaks(audit_text()) == []
    assert AuditEvent.objects.filter(outcome="failure").exists()


def test_exceptions_of_the_client_never_carry_the_key(secrets):
    for _ in range(5):
        with pytest.raises(PaymentsApiError) as caught:
            secrets.customers.get(customer_id="cus-1")
        error = caught.value
        text = " ".join([str(error), repr(error), json.dumps(getattr(error, "details", None), default=str)])
        assert leaks(text) == [], text
        assert error.__cause__ is None or leaks(str(error.__cause__)) == []
    assert leaks(repr(secrets)) == []


def test_error_pages_show_no_secret(client_as, secrets, settings, all_logs):
    settings.ROOT_URLCONF = "tests.security.urls_failing"
    client = client_as("compliance")
    forbidden = client.get(reverse("audit-list-events"))
    missing = client.get("/no/such/page/")
    assert (forbidden.status_code, missing.status_code) == (403, 404)
    quiet = Client(raise_request_exception=False)
    quiet.force_login(forbidden.wsgi_request.user)
    settings.DEBUG = False
    failed = quiet.get("/fail/")
    assert failed.status_code == 500
    assert "Something went wrong" in failed.content.decode()
    # Even the technical page of DEBUG hides settings named *KEY* and *SECRET*.
    settings.DEBUG = True
    technical = quiet.get("/fail/")
    assert technical.status_code == 500 and "PAYMENTS_API_KEY" in technical.content.decode()
    for response in (forbidden, missing, failed, technical):
        assert leaks(response.content.decode()) == [], response.status_code
    assert leaks(log_text(all_logs)) == []
    assert any(r.levelno == logging.ERROR and r.name == "django.request" for r in all_logs.records)


def test_webhooks_leave_no_secret_anywhere(client, secrets, all_logs):
    """Signed events (whose processing then fails at the API), forged and stale ones."""
    url = reverse("mirror-receive-webhook")
    other = "whsec_" + base64.b64encode(b"not-our-secret-at-all-0123456789").decode()
    answers = []
    for i in range(4):
        event = {
            "eventId": f"evt_{i}",
            "eventType": "customer.update",
            "createdAt": "2026-11-22T10:00:00Z",
            "data": {"customerId": f"cus-{i}"},
        }
        for secret, at in (
            (WEBHOOK_SECRET, None),
            (other, None),
            (WEBHOOK_SECRET, dt.datetime(2020, 1, 1, tzinfo=dt.UTC)),
        ):
            body, headers = signed(event, secret, at=at)
            answers.append(client.post(url, body, content_type="application/json", headers=headers))
        answers.append(client.post(url, json.dumps(event), content_type="application/json"))
    assert sorted({a.status_code for a in answers}) == [202, 401]
    text = "\n".join(a.content.decode() for a in answers)
    text += "\n".join(json.dumps([e.payload, e.last_error]) for e in WebhookEvent.objects.all())
    text += "\n".join(c.name for c in Counter.objects.all())
    assert leaks(text) == []
    assert leaks(log_text(all_logs)) == []
    assert WebhookEvent.objects.filter(state="failed").exists()  # processing met the failing API


# --- National ID numbers ----------------------------------------------------------------------


@pytest.fixture
def nai_customer(upstream, settings):
    """An individual in NEEDS_ADDITIONAL_INFORMATION, in the sandbox and the mirror."""
    from customers.models import Customer
    from customers.upserts import customers_upsert
    from tests.payments.transactions_helpers import KYC
    from upstream.client import get_client
    from upstream.mirrored import Source

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0
    body = upstream.call(
        "POST",
        "/customers",
        {
            "customerType": "INDIVIDUAL",
            "email": "ada@example.com",
            "firstName": "Ada",
            "lastName": "Lovelace",
            "kycData": KYC,
        },
    )
    customers_upsert(items=[get_client().customers.get(customer_id=body["customerId"])], seen_by=Source.SYNC)
    customer = Customer.objects.get(customer_id=body["customerId"])
    assert customer.status == "NEEDS_ADDITIONAL_INFORMATION"  # the sandbox's instant review
    return customer


def test_a_national_id_number_appears_only_masked(client_as, nai_customer, all_logs):
    client = client_as("compliance")
    url = reverse("customers-edit-kyc", args=[nai_customer.customer_id])
    triple = {"national_id_type": "ssn", "national_id_number": NATIONAL_ID, "national_id_issuing_country": "US"}
    # A failed submit first: the number does not come back, not even in its input; it is kept
    # encrypted in a hidden input, its last four digits shown.
    failed = client.post(url, marked({**triple, "phone_number": "0123"})).content.decode()
    assert NATIONAL_ID not in failed
    assert 'type="password" name="national_id_number"' in failed and 'name="national_id_number_kept"' in failed
    assert "•••• 4321" in failed
    # Then the real submit, and everything staff can see afterwards.
    response = client.post(url, marked({**triple, "legal_first_name": "Ada"}))
    assert response.status_code == 302, response.content.decode()[:2000]
    seen = [
        client.get(response["Location"]).content.decode(),
        client.get(url).content.decode(),
        client_as("admin").get(reverse("audit-list-events")).content.decode(),
        client.get(reverse("customers-list-customers")).content.decode(),
        audit_text(),
        log_text(all_logs),
    ]
    for text in seen:
        assert NATIONAL_ID not in text
        assert "987-65-4321" not in text
    # The audit event names the section sent, never its values.
    assert "national_id" in json.dumps(AuditEvent.objects.get(action="customer.update_kyc").details)
