"""customers_upsert: the one way API customers enter the mirror."""

import datetime as dt

import pytest
from django.utils import timezone

from customers.models import Customer, CustomerStatusChange, VerificationIssue
from customers.upserts import customers_mark_missing, customers_upsert
from paymentsapi import types as api
from upstream.mirrored import Source

T0 = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def item(customer_id="c-1", status="UNDER_REVIEW", at=T0, issues=(), **extra):
    return api.Customer.model_validate(
        {
            "customerId": customer_id,
            "customerStatus": status,
            "customerType": "INDIVIDUAL",
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "verificationLink": "https://forms.example.com/verify/abc",
            "updatedAt": at.isoformat(),
            "organizationId": "org-1",
            "verificationIssues": [{"code": c, "message": f"{c} message", "timestamp": at.isoformat()} for c in issues],
            **extra,
        }
    )


pytestmark = pytest.mark.django_db


def test_first_upsert_creates_with_history_and_issues():
    counts = customers_upsert(
        items=[item(status="NEEDS_ADDITIONAL_INFORMATION", issues=["DOCUMENT_MISSING_BACK"])], seen_by=Source.SYNC
    )
    assert (counts.created, counts.updated, counts.unchanged) == (1, 0, 0)
    customer = Customer.objects.get()
    assert customer.status == "NEEDS_ADDITIONAL_INFORMATION"
    assert list(customer.issues.values_list("code", flat=True)) == ["DOCUMENT_MISSING_BACK"]
    change = CustomerStatusChange.objects.get()
    assert (change.old_status, change.new_status, change.seen_by) == ("", "NEEDS_ADDITIONAL_INFORMATION", "sync")


def test_same_data_again_is_unchanged_and_writes_no_history():
    customers_upsert(items=[item()], seen_by=Source.SYNC)
    counts = customers_upsert(items=[item()], seen_by=Source.SYNC)
    assert (counts.created, counts.updated, counts.unchanged) == (0, 0, 1)
    assert CustomerStatusChange.objects.count() == 1


def test_status_change_is_recorded_with_who_saw_it():
    customers_upsert(items=[item()], seen_by=Source.SYNC)
    counts = customers_upsert(items=[item(status="ACTIVE", at=T0 + dt.timedelta(minutes=1))], seen_by=Source.WEBHOOK)
    assert counts.updated == 1
    last = CustomerStatusChange.objects.latest("id")
    assert (last.old_status, last.new_status, last.seen_by) == ("UNDER_REVIEW", "ACTIVE", "webhook")


def test_an_older_copy_never_rolls_the_mirror_back():
    customers_upsert(items=[item(status="ACTIVE", at=T0 + dt.timedelta(minutes=5))], seen_by=Source.WEBHOOK)
    counts = customers_upsert(items=[item(status="UNDER_REVIEW", at=T0)], seen_by=Source.WEBHOOK)
    assert counts.unchanged == 1
    assert Customer.objects.get().status == "ACTIVE"


def test_issues_are_replaced_when_they_change_and_cleared_when_active():
    customers_upsert(items=[item(status="NEEDS_ADDITIONAL_INFORMATION", issues=["A", "B"])], seen_by=Source.SYNC)
    customers_upsert(
        items=[item(status="NEEDS_ADDITIONAL_INFORMATION", issues=["B"], at=T0 + dt.timedelta(seconds=1))],
        seen_by=Source.SYNC,
    )
    assert list(VerificationIssue.objects.values_list("code", flat=True)) == ["B"]
    customers_upsert(items=[item(status="ACTIVE", at=T0 + dt.timedelta(seconds=2))], seen_by=Source.SYNC)
    assert VerificationIssue.objects.count() == 0


def test_unknown_future_status_is_kept():
    customers_upsert(items=[item(status="ON_HOLD")], seen_by=Source.SYNC)
    assert Customer.objects.get().status == "ON_HOLD"


def test_payment_methods_missing_from_a_single_read_are_kept():
    customers_upsert(items=[item(availablePaymentMethods=["ACH", "BASE"])], seen_by=Source.SYNC)
    single = item(at=T0 + dt.timedelta(seconds=1))
    assert single.available_payment_methods is None
    customers_upsert(items=[single], seen_by=Source.STAFF)
    assert Customer.objects.get().available_payment_methods == ["ACH", "BASE"]


def test_customers_not_seen_by_a_complete_sync_are_marked_not_deleted():
    customers_upsert(items=[item("c-1"), item("c-2")], seen_by=Source.SYNC)
    Customer.objects.filter(customer_id="c-2").update(synced_at=T0)
    marked = customers_mark_missing(not_seen_since=T0 + dt.timedelta(seconds=1))
    assert marked == 1
    gone = Customer.objects.get(customer_id="c-2")
    assert gone.missing_upstream and gone.missing_since is not None
    assert Customer.objects.count() == 2
    # Seen again: no longer missing.
    customers_upsert(items=[item("c-2", at=T0 + dt.timedelta(seconds=5))], seen_by=Source.SYNC)
    assert not Customer.objects.get(customer_id="c-2").missing_upstream


def test_a_page_costs_a_fixed_number_of_queries(django_assert_max_num_queries):
    customers_upsert(items=[item(f"c-{i}", issues=["X"]) for i in range(50)], seen_by=Source.SYNC)
    changed = [item(f"c-{i}", status="ACTIVE", at=T0 + dt.timedelta(seconds=1)) for i in range(100)]
    with django_assert_max_num_queries(10):
        counts = customers_upsert(items=changed, seen_by=Source.SYNC)
    assert (counts.created, counts.updated) == (50, 50)


def test_a_customer_first_seen_is_in_its_state_since_the_apis_last_change():
    past = timezone.now() - dt.timedelta(hours=3)
    customers_upsert(items=[item("c-old", status="UNDER_REVIEW", at=past)], seen_by=Source.SYNC)
    customer = Customer.objects.get(customer_id="c-old")
    assert customer.status_since == past
    assert customer.waiting_on_us(timezone.now()) >= dt.timedelta(hours=3)
    # A date the API puts in the future is not believed.
    customers_upsert(items=[item("c-new", at=timezone.now() + dt.timedelta(days=1))], seen_by=Source.SYNC)
    assert Customer.objects.get(customer_id="c-new").status_since <= timezone.now()


def test_each_issue_carries_its_customers_status_through_a_move_that_keeps_the_issues():
    customers_upsert(
        items=[item(status="NEEDS_ADDITIONAL_INFORMATION", issues=["SANCTIONED_COUNTRY"])], seen_by=Source.SYNC
    )
    assert list(VerificationIssue.objects.values_list("customer_status", flat=True)) == ["NEEDS_ADDITIONAL_INFORMATION"]
    # Rejected with the same issue: the rows are written again with the new status.
    customers_upsert(
        items=[item(status="REJECTED", issues=["SANCTIONED_COUNTRY"], at=T0 + dt.timedelta(minutes=1))],
        seen_by=Source.WEBHOOK,
    )
    assert list(VerificationIssue.objects.values_list("code", "customer_status")) == [
        ("SANCTIONED_COUNTRY", "REJECTED")
    ]
