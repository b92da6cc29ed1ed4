"""A status change in the sandbox reaches the mirror: event -> delivery -> inbox -> task -> mirror."""

import io
from unittest import mock

import pytest
from django.core.management import call_command

from customers.models import Customer
from customers.upserts import customers_upsert
from mirror.models import WebhookEvent, WebhookSecret
from sandbox.models import Customer as SandboxCustomer
from sandbox.models import Delivery, Event
from sandbox.services.verification import customer_event_data
from sandbox.services.webhooks import emit, new_secret
from tests.factories import WebhookEventFactory
from upstream.mirrored import Source

RECEIVER = "http://testserver/webhooks/payments"


@pytest.fixture
def registered(upstream, settings):
    settings.PAYMENTS_WEBHOOK_SECRET = ""
    call_command("register_webhook", "--url", RECEIVER, stdout=io.StringIO())
    return upstream


def new_customer(sandbox):
    return sandbox.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "grace@example.com", "firstName": "Grace", "lastName": "Hopper"},
    )


def test_register_webhook_stores_the_secret_once(registered, capsys):
    assert WebhookSecret.objects.count() == 1
    call_command("register_webhook", "--url", RECEIVER)
    assert "registered already" in capsys.readouterr().out
    assert WebhookSecret.objects.count() == 1
    assert registered.call("GET", "/webhooks")["webhooks"][0]["url"] == RECEIVER


def test_a_review_in_the_sandbox_reaches_the_mirror_through_the_webhook(registered, django_capture_on_commit_callbacks):
    customer = new_customer(registered)
    with django_capture_on_commit_callbacks(execute=True):
        registered.call("PATCH", f"/customers/{customer['customerId']}", {"kycData": {"legalFirstName": "Grace"}})
    with django_capture_on_commit_callbacks(execute=True):
        registered.helper(f"customers/{customer['customerId']}/review", {"outcome": "ACTIVE", "issues": []})
    assert Delivery.objects.filter(status="SUCCEEDED").count() >= 1
    mirrored = Customer.objects.get(customer_id=customer["customerId"])
    assert mirrored.status == "ACTIVE"
    assert mirrored.status_changes.latest("id").seen_by == "webhook"
    assert WebhookEvent.objects.filter(state="processed").count() == Event.objects.count()


def test_the_same_event_delivered_twice_is_processed_once(registered, django_capture_on_commit_callbacks):
    from sandbox.services.webhooks import deliver

    customer = new_customer(registered)
    with django_capture_on_commit_callbacks(execute=True):
        registered.call("PATCH", f"/customers/{customer['customerId']}", {"kycData": {"legalFirstName": "Grace"}})
    delivery = Delivery.objects.latest("created_at")
    Delivery.objects.filter(pk=delivery.pk).update(status="PENDING")
    deliver(delivery.pk)
    events = WebhookEvent.objects.filter(event_id=str(delivery.event_id))
    assert events.count() == 1
    assert events.get().attempts == 1


def test_events_out_of_order_leave_the_mirror_in_the_apis_current_state(registered, django_capture_on_commit_callbacks):
    """The task re-reads the customer, so an old event processed last cannot roll back."""
    from mirror.tasks import process_webhook_event

    customer = new_customer(registered)
    cid = customer["customerId"]
    registered.call("PATCH", f"/customers/{cid}", {"kycData": {"legalFirstName": "Grace"}})
    registered.helper(f"customers/{cid}/review", {"outcome": "ACTIVE", "issues": []})
    # Both events arrive, newest first.
    first = WebhookEventFactory(event_id="evt-new", event_type="customer.update", record_id=cid)
    second = WebhookEventFactory(event_id="evt-old", event_type="customer.update", record_id=cid)
    process_webhook_event(first.pk)
    process_webhook_event(second.pk)
    assert Customer.objects.get(customer_id=cid).status == "ACTIVE"


def test_an_older_copy_from_a_slow_event_never_wins(registered):
    from upstream.client import get_client

    customer = new_customer(registered)
    cid = customer["customerId"]
    old_copy = get_client().customers.get(customer_id=cid)
    registered.call("PATCH", f"/customers/{cid}", {"kycData": {"legalFirstName": "Grace"}})
    registered.helper(f"customers/{cid}/review", {"outcome": "REJECTED", "issues": []})
    new_copy = get_client().customers.get(customer_id=cid)
    customers_upsert(items=[new_copy], seen_by="webhook")
    customers_upsert(items=[old_copy], seen_by="webhook")
    assert Customer.objects.get(customer_id=cid).status == "REJECTED"


def test_a_completed_bank_form_reaches_the_pending_row_through_the_webhook(
    registered, django_capture_on_commit_callbacks
):
    from payments.models import PaymentAccount
    from payments.upserts import payment_accounts_upsert
    from tests.payments.account_fixtures import ROUTING, make_customer
    from upstream.client import get_client

    customer_id = make_customer(registered)
    bank = {"bankAccountType": "CHECKING", "bankAccountOwnerName": "Ada", "bankAccountCurrency": "USD"}
    pending = registered.call(
        "POST",
        "/payment-accounts",
        {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "customerId": customer_id,
            "nickname": "Payroll",
            "externalBankAccount": {**bank, "bankAccountPaymentMethod": "ACH"},
        },
    )
    payment_accounts_upsert(
        items=list(get_client().payment_accounts.iter(customer_id=customer_id)), seen_by=Source.SYNC
    )
    row = PaymentAccount.objects.get()
    assert (row.status, row.account_id) == ("PENDING", None)

    token = pending["bankAccountFormLink"].rsplit("/", 1)[1]
    with django_capture_on_commit_callbacks(execute=True):
        done = registered.helper(
            f"bank-account-forms/{token}/complete", {"bankAccountNumber": "987654321", "bankRoutingNumber": ROUTING}
        )

    event = WebhookEvent.objects.get(event_type="payment_account.update")
    assert (event.state, event.payload["data"]["paymentAccountId"]) == ("processed", done["paymentAccountId"])
    row.refresh_from_db()  # the pending row took the new id: no second row
    assert (row.status, row.account_id) == ("ACTIVE", done["paymentAccountId"])
    assert row.details["bankAccountMask"] == "****4321"
    assert PaymentAccount.objects.count() == 1


# --- One delivery, straight from the sandbox's event to the receiver --------------------------------


def active_customer(sandbox) -> dict:
    customer = new_customer(sandbox)
    sandbox.call("PATCH", f"/customers/{customer['customerId']}", {"kycData": {"legalFirstName": "Grace"}})
    return sandbox.helper(f"customers/{customer['customerId']}/review", {"outcome": "ACTIVE", "issues": []})


def customer_update(customer_id: str):
    customer = SandboxCustomer.objects.get(pk=customer_id)
    return emit(
        organization_id=customer.organization_id, event_type="customer.update", data=customer_event_data(customer)
    )


def only_delivery(sandbox, webhook_id: str) -> dict:
    (delivery,) = sandbox.call("GET", f"/webhooks/{webhook_id}/deliveries")["deliveries"]
    return delivery


def test_a_customer_update_reaches_the_back_office_inbox(upstream, settings, django_capture_on_commit_callbacks):
    customer = active_customer(upstream)
    created = upstream.call("POST", "/webhooks", {"url": RECEIVER})
    settings.PAYMENTS_WEBHOOK_SECRET = created["secret"]
    # The back-office's drain re-reads the customer through its API client; not under test here.
    with (
        mock.patch("mirror.tasks.drain_webhook_inbox.delay") as process,
        django_capture_on_commit_callbacks(execute=True),
    ):
        event = customer_update(customer["customerId"])

    stored = WebhookEvent.objects.get()
    assert stored.event_id == str(event.id)
    assert stored.event_type == "customer.update"
    assert stored.payload["data"]["customerId"] == customer["customerId"]
    assert stored.payload["data"]["customerStatus"] == "ACTIVE"
    process.assert_called_once_with()
    delivery = only_delivery(upstream, created["webhookId"])
    assert (delivery["status"], delivery["responseStatus"], delivery["attempts"]) == ("SUCCEEDED", 202, 1)


def test_a_wrong_secret_is_refused_by_the_back_office_and_retried(
    upstream, settings, django_capture_on_commit_callbacks
):
    customer = active_customer(upstream)
    created = upstream.call("POST", "/webhooks", {"url": RECEIVER})
    settings.PAYMENTS_WEBHOOK_SECRET = new_secret()
    with django_capture_on_commit_callbacks(execute=True):
        customer_update(customer["customerId"])
    assert WebhookEvent.objects.count() == 0
    delivery = only_delivery(upstream, created["webhookId"])
    assert (delivery["status"], delivery["responseStatus"]) == ("RETRYING", 401)
