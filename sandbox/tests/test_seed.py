"""sandbox_seed: the demo API key and demo data in every state the sandbox can reach."""

import io

import httpx
import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from sandbox import clock
from sandbox.auth import find_key
from sandbox.demo import keys
from sandbox.demo import webhooks as demo_webhooks
from sandbox.demo.customers import business_body, individual_body
from sandbox.demo.seeding import Seeding
from sandbox.models import (
    ApiKey,
    AutomationRule,
    Balance,
    Customer,
    CustomerStatus,
    CustomerType,
    Delivery,
    DeliveryStatus,
    Event,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
    Quote,
    Transaction,
    TransactionStatus,
    VerificationIssue,
    WebhookEndpoint,
)
from sandbox.services import webhooks

from .conftest import BASE

# The sandbox never starts a transaction in CREATED (docs/decisions/sandbox-payments.md), and
# no service or helper moves one back there: the seed cannot reach it.
REACHABLE_TRANSACTION_STATUSES = set(TransactionStatus.values) - {TransactionStatus.CREATED}
MODELS = [
    ApiKey,
    Customer,
    VerificationIssue,
    PaymentAccount,
    Balance,
    Quote,
    Transaction,
    AutomationRule,
    Event,
    WebhookEndpoint,
    Delivery,
]


def run_seed(*args, **options) -> str:
    out = io.StringIO()
    call_command("sandbox_seed", *args, stdout=out, **options)
    return out.getvalue()


@pytest.fixture
def seeded(db):
    return run_seed(customers=20)


def demo_customers():
    return Customer.objects.filter(organization_id=keys.DEMO_ORGANIZATION_ID)


def test_every_customer_status_and_both_types_appear(seeded):
    assert set(demo_customers().values_list("status", flat=True)) == set(CustomerStatus.values)
    assert set(demo_customers().values_list("customer_type", flat=True)) == set(CustomerType.values)
    assert demo_customers().count() == 20


def test_customers_in_need_of_information_carry_the_missing_back_and_other_issues(seeded):
    issues = VerificationIssue.objects.filter(customer__status=CustomerStatus.NEEDS_ADDITIONAL_INFORMATION)
    codes = set(issues.values_list("code", flat=True))
    assert "DOCUMENT_MISSING_BACK" in codes
    assert codes - {"DOCUMENT_MISSING_BACK"}, codes
    rejected = VerificationIssue.objects.filter(customer__status=CustomerStatus.REJECTED)
    assert set(rejected.values_list("code", flat=True)) == {"SANCTIONED_COUNTRY"}
    assert not VerificationIssue.objects.filter(customer__status=CustomerStatus.ACTIVE).exists()


def test_every_payment_account_type_and_a_pending_bank_account_appear(seeded):
    accounts = PaymentAccount.objects.filter(organization_id=keys.DEMO_ORGANIZATION_ID)
    assert set(accounts.values_list("account_type", flat=True)) == set(PaymentAccountType.values)
    pending = accounts.filter(status=PaymentAccountStatus.PENDING)
    assert pending.exists()
    assert set(pending.values_list("account_type", flat=True)) == {PaymentAccountType.EXTERNAL_BANK_ACCOUNT}
    assert all(account.account_id is None and account.form_token for account in pending)


def test_every_reachable_transaction_status_appears_with_balances_quotes_and_rules(seeded):
    transactions = Transaction.objects.filter(customer__organization_id=keys.DEMO_ORGANIZATION_ID)
    assert set(transactions.values_list("status", flat=True)) == REACHABLE_TRANSACTION_STATUSES
    assert Balance.objects.filter(account__organization_id=keys.DEMO_ORGANIZATION_ID, amount__gt=0).exists()
    assert Quote.objects.filter(customer__organization_id=keys.DEMO_ORGANIZATION_ID, used_at=None).exists()
    triggers = [rule.trigger for rule in AutomationRule.objects.all()]
    assert any("thresholdAmount" in trigger for trigger in triggers)
    assert any("cronSchedule" in trigger for trigger in triggers)


def test_the_summary_counts_per_status(seeded):
    assert "Sandbox demo data created" in seeded
    assert "UNDER_REVIEW 2" in seeded
    assert "EXPIRED" in seeded
    assert keys.DEMO_API_KEY in seeded


def test_a_second_run_adds_nothing_and_says_so(seeded):
    before = {model.__name__: model.objects.count() for model in MODELS}
    output = run_seed(customers=20)
    assert "exists already" in output
    assert {model.__name__: model.objects.count() for model in MODELS} == before


def test_the_demo_key_authenticates_a_customer_list(seeded):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {keys.DEMO_API_KEY}")
    response = client.get(f"{BASE}/customers", {"pageSize": 100})
    assert response.status_code == 200, response.json()
    customers = response.json()["customers"]
    assert len(customers) == 20
    # Held reviews stay UNDER_REVIEW when read: the automatic review does not settle them.
    assert {c["customerStatus"] for c in customers} == set(CustomerStatus.values)
    needs_info = [c for c in customers if c["customerStatus"] == "NEEDS_ADDITIONAL_INFORMATION"]
    assert any(issue["code"] == "DOCUMENT_MISSING_BACK" for c in needs_info for issue in c["verificationIssues"])


def test_ensure_demo_key_is_idempotent_and_puts_a_changed_row_right(db):
    key = keys.ensure_demo_key()
    assert find_key(keys.DEMO_API_KEY) == key
    assert key.organization_id == keys.DEMO_ORGANIZATION_ID
    ApiKey.objects.filter(pk=key.pk).update(key_hash="0" * 64, read_only=True)
    again = keys.ensure_demo_key()
    assert again.pk == key.pk
    assert ApiKey.objects.count() == 1
    assert find_key(keys.DEMO_API_KEY) == again
    assert not again.read_only


def test_the_data_is_deterministic(db):
    key = keys.ensure_demo_key()
    first, second = Seeding(key), Seeding(key)
    bodies = [
        individual_body(first, ("US", "ssn"), None),
        business_body(first, 1, ("GB", "nino"), None),
    ]
    assert bodies == [
        individual_body(second, ("US", "ssn"), None),
        business_body(second, 1, ("GB", "nino"), None),
    ]


def test_customer_names_are_unique(seeded):
    names = [customer.name for customer in demo_customers()]
    assert len(names) == 20 and len(set(names)) == 20


def test_names_stay_unique_past_the_end_of_the_lists(db):
    run = Seeding(keys.ensure_demo_key())
    businesses = [business_body(run, index, ("US", "ssn"), None)["businessName"] for index in range(200)]
    assert len(set(businesses)) == 200
    assert businesses.count("Helix Analytics") == 1 and "Helix Analytics West" in businesses
    # Past the named branches (bench/load.py seeds 200 customers), numbered ones.
    assert "Helix Analytics 2" in businesses
    people = [individual_body(run, ("US", "ssn"), None) for _ in range(200)]
    names = {(body["firstName"], body["lastName"]) for body in people}
    assert len(names) == 200
    assert all(
        (b["kycData"]["legalFirstName"], b["kycData"]["legalLastName"]) == (b["firstName"], b["lastName"])
        for b in people
    )


def test_too_few_customers_is_refused(db):
    with pytest.raises(CommandError, match="at least 10"):
        run_seed("--customers", "5")
    assert not Customer.objects.exists()


# --- Webhook deliveries ----------------------------------------------------------------------


def unreachable_deliveries():
    return Delivery.objects.filter(endpoint__url=demo_webhooks.UNREACHABLE_WEBHOOK_URL)


def test_the_unreachable_endpoint_holds_pending_retrying_and_failed_deliveries(seeded):
    endpoint = WebhookEndpoint.objects.get(url=demo_webhooks.UNREACHABLE_WEBHOOK_URL)
    assert endpoint.organization_id == keys.DEMO_ORGANIZATION_ID
    assert endpoint.events == ["customer.update"]
    deliveries = unreachable_deliveries()
    assert {DeliveryStatus.PENDING, DeliveryStatus.RETRYING, DeliveryStatus.FAILED} <= set(
        deliveries.values_list("status", flat=True)
    )
    failed = deliveries.filter(status=DeliveryStatus.FAILED)
    assert failed.count() == demo_webhooks.FAILED_DELIVERIES
    assert all(d.attempts == webhooks.MAX_ATTEMPTS and d.next_attempt_at is None and d.last_error for d in failed)
    now = clock.now()
    for delivery in deliveries.filter(status=DeliveryStatus.RETRYING):
        assert 1 <= delivery.attempts < webhooks.MAX_ATTEMPTS
        assert delivery.next_attempt_at > now and delivery.last_error
    # The oldest gave up; the newest wait for their first attempt, which is not due yet.
    oldest = deliveries.order_by("created_at", "id")[: demo_webhooks.FAILED_DELIVERIES]
    assert {d.status for d in oldest} == {DeliveryStatus.FAILED}
    newest = deliveries.order_by("-created_at", "-id")[: demo_webhooks.PENDING_DELIVERIES]
    assert all(d.status == DeliveryStatus.PENDING and d.attempts == 0 and d.next_attempt_at > now for d in newest)
    assert "webhook deliveries" in seeded


def test_a_second_run_adds_no_second_unreachable_endpoint(seeded):
    run_seed(customers=20)
    assert WebhookEndpoint.objects.filter(url=demo_webhooks.UNREACHABLE_WEBHOOK_URL).count() == 1


def test_after_the_commit_every_delivery_state_is_there(db, monkeypatch, django_capture_on_commit_callbacks):
    """As `make run` does it: the back-office's endpoint registered first, then the seed; its
    commit attempts the new deliveries at once (Celery is eager here, the receivers are fakes:
    the back-office answers 204, port 9 refuses the connection)."""
    sent = []

    def receivers(request: httpx.Request) -> httpx.Response:
        sent.append(request.url)
        if request.url.port == 9:
            raise httpx.ConnectError("Connection refused", request=request)
        return httpx.Response(204)

    monkeypatch.setattr(webhooks, "delivery_client", lambda: httpx.Client(transport=httpx.MockTransport(receivers)))
    back_office = webhooks.webhook_endpoint_create(
        organization_id=keys.DEMO_ORGANIZATION_ID, url="http://testserver/webhooks/payments", events=[]
    )
    with django_capture_on_commit_callbacks(execute=True):
        run_seed(customers=10)

    assert set(Delivery.objects.filter(endpoint=back_office).values_list("status", flat=True)) == {
        DeliveryStatus.SUCCEEDED
    }
    states = set(unreachable_deliveries().values_list("status", flat=True))
    assert states == {DeliveryStatus.PENDING, DeliveryStatus.RETRYING, DeliveryStatus.FAILED}
    # The seed's own outcomes are not attempted again: only the deliveries left to the commit.
    attempted = unreachable_deliveries().filter(status=DeliveryStatus.RETRYING, attempts=1, last_error__contains="Conn")
    assert attempted.exists()
    assert any(url.port == 9 for url in sent)
    assert set(Delivery.objects.values_list("status", flat=True)) == set(DeliveryStatus.values)
