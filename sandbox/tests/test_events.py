"""sandbox.services.webhooks.emit: which endpoints an event goes to, when deliveries start, and the customer payload."""

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.db import transaction

from sandbox import clock
from sandbox.models import Customer, Delivery, DeliveryStatus, Event, WebhookEndpoint
from sandbox.services import webhooks as service
from sandbox.services.verification import customer_event_data
from sandbox.services.webhooks import emit


@pytest.fixture
def org(api_key):
    return api_key[0].organization_id


def endpoint(organization_id, events=(), url="https://integrator.example/hooks") -> WebhookEndpoint:
    return service.webhook_endpoint_create(organization_id=organization_id, url=url, events=list(events))


def targets(event: Event) -> set:
    return {d.endpoint_id for d in event.deliveries.all()}


def test_the_known_kinds():
    assert service.EVENT_KINDS == ("customer.update", "transaction.update", "payment_account.update")


def test_customer_update_goes_to_endpoints_that_list_it_or_nothing(org):
    everything = endpoint(org)
    customers = endpoint(org, ["customer.update"])
    endpoint(org, ["transaction.update"])
    endpoint(uuid.uuid4())  # another organization's
    event = emit(organization_id=org, event_type="customer.update", data={"customerId": "c-1"})
    assert targets(event) == {everything.id, customers.id}


@pytest.mark.parametrize("kind", ["transaction.update", "payment_account.update"])
def test_extension_kinds_go_only_to_endpoints_that_asked(org, kind):
    endpoint(org)
    endpoint(org, ["customer.update"])
    asked = endpoint(org, ["customer.update", kind])
    event = emit(organization_id=org, event_type=kind, data={"id": "x"})
    assert targets(event) == {asked.id}


def test_an_event_without_endpoints_is_kept_with_no_delivery(org):
    event = emit(organization_id=org, event_type="customer.update", data={})
    assert Event.objects.get() == event
    assert Delivery.objects.count() == 0


def test_an_unknown_kind_is_a_programming_error(org):
    with pytest.raises(ValueError, match=r"customer\.created"):
        emit(organization_id=org, event_type="customer.created", data={})
    assert Event.objects.count() == 0


def test_the_event_is_stored_on_the_sandbox_clock_with_json_data(org):
    endpoint(org)
    clock.advance(3600)
    event = emit(
        organization_id=org,
        event_type="customer.update",
        data={"amount": Decimal("10.50"), "id": uuid.UUID(int=1), "when": dt.datetime(2026, 1, 2, tzinfo=dt.UTC)},
    )
    event.refresh_from_db()
    real = dt.datetime.now(tz=dt.UTC)
    assert dt.timedelta(seconds=3590) < event.created_at - real <= dt.timedelta(seconds=3600)
    assert event.data == {"amount": "10.50", "id": str(uuid.UUID(int=1)), "when": "2026-01-02T00:00:00Z"}
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, 0)
    assert delivery.created_at == delivery.next_attempt_at == event.created_at


def test_deliveries_start_after_the_commit(org, receiver, django_capture_on_commit_callbacks):
    endpoint(org)
    endpoint(org, ["customer.update"])
    with django_capture_on_commit_callbacks() as callbacks:
        emit(organization_id=org, event_type="customer.update", data={})
        assert receiver.requests == []
    assert len(callbacks) == 2
    assert receiver.requests == []
    for callback in callbacks:
        callback()
    assert len(receiver.requests) == 2
    assert set(Delivery.objects.values_list("status", flat=True)) == {DeliveryStatus.SUCCEEDED}


def test_a_rolled_back_change_sends_nothing(org, receiver, django_capture_on_commit_callbacks):
    endpoint(org)
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        emit(organization_id=org, event_type="customer.update", data={})
        raise RuntimeError("the change failed")
    assert callbacks == []
    assert receiver.requests == []
    assert Event.objects.count() == Delivery.objects.count() == 0


# --- customer_event_data ------------------------------------------------------------------------


def test_customer_data_is_the_single_read_with_payment_methods(api, active_customer, settings):
    settings.SANDBOX_PUBLIC_URL = "http://testserver"
    read = api.get(f"/customer/{active_customer['customerId']}", {"includePaymentMethods": "true"}).json()
    data = customer_event_data(Customer.objects.get(pk=active_customer["customerId"]))
    assert data == {**read, "verificationIssues": []}
    assert data["availablePaymentMethods"]


def test_customer_data_lists_the_verification_issues(api, customer_factory):
    customer = customer_factory("NEEDS_ADDITIONAL_INFORMATION")
    data = customer_event_data(Customer.objects.get(pk=customer["customerId"]))
    assert data["customerStatus"] == "NEEDS_ADDITIONAL_INFORMATION"
    assert [issue["code"] for issue in data["verificationIssues"]] == ["DOCUMENT_MISSING_BACK"]
    assert data["verificationIssues"] == customer["verificationIssues"]
    assert data["availablePaymentMethods"] == []


def test_customer_data_is_read_from_the_database(api, customer_factory):
    """A customer object with a stale prefetch of its issues still gives the stored issues."""
    created = customer_factory("UNDER_REVIEW")
    stale = Customer.objects.prefetch_related("issues").get(pk=created["customerId"])
    assert list(stale.issues.all()) == []
    review = {"outcome": "REJECTED", "issues": [{"code": "SANCTIONS_HIT", "message": "Listed"}]}
    assert api.post(f"/test-helpers/customers/{created['customerId']}/review", review).status_code == 200
    data = customer_event_data(stale)
    assert data["customerStatus"] == "REJECTED"
    assert [issue["code"] for issue in data["verificationIssues"]] == ["SANCTIONS_HIT"]


def test_the_verification_link_uses_the_configured_origin(api, active_customer, settings):
    settings.SANDBOX_PUBLIC_URL = "https://sandbox.example:8443/ignored/path"
    data = customer_event_data(Customer.objects.get(pk=active_customer["customerId"]))
    assert data["verificationLink"].startswith("https://sandbox.example:8443/sandbox/forms/verify/")
    settings.SANDBOX_PUBLIC_URL = ""
    settings.PAYMENTS_API_BASE_URL = "http://127.0.0.1:8000/sandbox"
    data = customer_event_data(Customer.objects.get(pk=active_customer["customerId"]))
    assert data["verificationLink"].startswith("http://127.0.0.1:8000/sandbox/forms/verify/")
