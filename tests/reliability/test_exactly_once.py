"""Exactly once and no lost data: cancel racing completion, a crash between storing a webhook
event and processing it, duplicate and reordered events, and a sync killed half-way.

(Two executes of one quote at once: tests/payments/test_execute_concurrency.py.)
"""

import datetime as dt
import io
from unittest import mock

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from core.models import Lock, LockHeld
from customers.models import Customer
from mirror import sync as sync_module
from mirror.models import SyncRun, WebhookEvent
from mirror.sync import INTERRUPTED, refresh_open_transactions, sync_customers
from mirror.tasks import drain_webhook_inbox, process_webhook_event, sweep_webhook_inbox
from tests.factories import WebhookEventFactory
from tests.reliability.world import World

pytestmark = pytest.mark.django_db

RECEIVER = "http://testserver/webhooks/payments"


@pytest.fixture
def world(faulty_upstream, make_staff):
    return World(faulty_upstream, make_staff)


def api_status(sandbox, tx) -> str:
    return sandbox.call("GET", f"/transactions/{tx.transaction_id}")["transactionStatus"]


# --- Cancel racing with completion ------------------------------------------------------------


def test_a_cancel_after_the_api_completed_the_transaction_leaves_the_mirror_completed(world, client_as):
    tx, sandbox = world.transaction, world.sandbox
    client = client_as("operations")
    # The page was loaded while it awaited the transfer ...
    assert client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).status_code == 200
    # ... then the money arrived and the API completed it.
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "PROCESSING"})
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "COMPLETED"})

    response = client.post(
        reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": "asked"}, follow=True
    )

    html = response.content.decode()
    assert "The Payments API refused this:" in html and "COMPLETED" in html
    tx.refresh_from_db()
    assert tx.status == api_status(sandbox, tx) == "COMPLETED"
    assert [c.new_status for c in tx.status_changes.order_by("id")] == ["AWAITING_TRANSFER", "COMPLETED"]


def test_a_completion_after_the_cancel_is_refused_and_the_mirror_stays_cancelled(world, client_as):
    tx, sandbox = world.transaction, world.sandbox
    client = client_as("operations")
    client.post(reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": "asked"})
    tx.refresh_from_db()
    assert tx.status == "CANCELLED"
    # The money arrives late: the API does not move a cancelled transaction any more.
    late = sandbox.http.post(f"/test-helpers/transactions/{tx.transaction_id}/advance", json={"to": "PROCESSING"})
    assert late.status_code == 400
    # Whatever reads it next (a refresh, a sync, a webhook) agrees with the API.
    refresh_open_transactions()
    client.post(reverse("payments-refresh-transaction", args=[tx.transaction_id]))
    tx.refresh_from_db()
    assert tx.status == api_status(sandbox, tx) == "CANCELLED"


# --- The webhook inbox ------------------------------------------------------------------------


@pytest.fixture
def registered(faulty_upstream, settings):
    settings.PAYMENTS_WEBHOOK_SECRET = ""
    call_command("register_webhook", "--url", RECEIVER, stdout=io.StringIO())
    return faulty_upstream.sandbox


def test_a_crash_between_storing_and_processing_loses_no_event(registered, world, django_capture_on_commit_callbacks):
    customer = world.individual

    def crash(*args, **kwargs):
        raise RuntimeError("worker gone")  # the process dies before the task is queued

    # (mock, not monkeypatch.undo(): that would also undo the in_process fixture's patches)
    with mock.patch.object(drain_webhook_inbox, "delay", crash), django_capture_on_commit_callbacks(execute=True):
        registered.call("PATCH", f"/customers/{customer.customer_id}", {"kycData": {"legalFirstName": "Kim"}})
    event = WebhookEvent.objects.get(event_type="customer.update")
    assert event.state == WebhookEvent.State.RECEIVED and event.attempts == 0

    # The sweep leaves fresh events to the drain they asked for, then picks up the stale one.
    assert sweep_webhook_inbox() == 0
    WebhookEvent.objects.filter(pk=event.pk).update(received_at=timezone.now() - dt.timedelta(minutes=1))
    assert sweep_webhook_inbox() == 1

    event.refresh_from_db()
    assert event.state == WebhookEvent.State.PROCESSED and event.attempts == 1
    assert Customer.objects.get(pk=customer.pk).status == "UNDER_REVIEW"
    # A second sweep finds nothing to do: processed once.
    WebhookEvent.objects.filter(pk=event.pk).update(received_at=timezone.now() - dt.timedelta(minutes=5))
    assert sweep_webhook_inbox() == 0


def test_duplicate_and_reordered_transaction_events_change_nothing_twice(world):
    tx, sandbox = world.transaction, world.sandbox
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "PROCESSING"})
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "COMPLETED"})
    newer = WebhookEventFactory(event_id="evt-2", event_type="transaction.update", record_id=tx.transaction_id)
    older = WebhookEventFactory(event_id="evt-1", event_type="transaction.update", record_id=tx.transaction_id)
    # Newest first, then the old one, then both again (a redelivery, a replay).
    for event in (newer, older, newer, older):
        process_webhook_event(event.pk)
    tx.refresh_from_db()
    assert tx.status == api_status(sandbox, tx) == "COMPLETED"
    assert [c.new_status for c in tx.status_changes.order_by("id")] == ["AWAITING_TRANSFER", "COMPLETED"]
    assert set(WebhookEvent.objects.values_list("attempts", flat=True)) == {1}


# --- A sync killed half-way -------------------------------------------------------------------


class _Killed(KeyboardInterrupt):
    """What the process gets instead of finishing its run (SIGINT; SIGKILL gives nothing)."""


def test_a_sync_killed_half_way_is_closed_and_rerun_without_corruption(faulty_upstream, monkeypatch):
    sandbox = faulty_upstream.sandbox
    for n in range(7):
        sandbox.call(
            "POST",
            "/customers",
            {"customerType": "INDIVIDUAL", "email": f"c{n}@example.com", "firstName": "C", "lastName": f"{n}"},
        )
    monkeypatch.setattr(sync_module, "PAGE_SIZE", 2)  # 4 pages
    real_upsert, pages, lock_at_death = sync_module.customers_upsert, [], []

    def dies_on_the_third_page(**kwargs):
        pages.append(len(kwargs["items"]))
        if len(pages) == 3:
            lock_at_death.extend(Lock.objects.all())
            raise _Killed
        return real_upsert(**kwargs)

    monkeypatch.setattr(sync_module, "customers_upsert", dies_on_the_third_page)
    with pytest.raises(_Killed):
        sync_customers()
    monkeypatch.setattr(sync_module, "customers_upsert", real_upsert)
    # A killed process runs no `finally`: its lock row stays behind, as the kill left it.
    Lock.objects.bulk_create(lock_at_death, ignore_conflicts=True)

    assert Customer.objects.count() == 4  # the two pages stored before the kill are kept
    assert SyncRun.objects.get().outcome == SyncRun.Outcome.RUNNING
    # The dead holder's lock still looks alive: the next run waits its turn ...
    with pytest.raises(LockHeld):
        sync_customers()

    # ... until the lock lapses (the clock moves past the TTL).
    later = timezone.now() + sync_module.LOCK_TTL + dt.timedelta(seconds=1)

    class Clock:
        @staticmethod
        def now():
            return later

    monkeypatch.setattr("core.models.timezone", Clock)
    run = sync_customers()

    assert run.outcome == SyncRun.Outcome.SUCCEEDED, run.error
    killed = SyncRun.objects.exclude(pk=run.pk).get()
    assert killed.outcome == SyncRun.Outcome.FAILED and killed.error == INTERRUPTED and killed.finished_at
    assert not SyncRun.objects.filter(outcome=SyncRun.Outcome.RUNNING).exists()
    # The mirror equals the API: every customer once, none marked missing.
    upstream_ids = {c["customerId"] for c in sandbox.call("GET", "/customers", params={"pageSize": 100})["customers"]}
    assert len(upstream_ids) == 7
    assert set(Customer.objects.values_list("customer_id", flat=True)) == upstream_ids
    assert Customer.objects.count() == 7
    assert not Customer.objects.filter(missing_upstream=True).exists()
    assert not Lock.objects.exists()
