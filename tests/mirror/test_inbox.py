"""The inbox drains in batches: one re-read per record, leases, backoff, exactly once."""

import datetime as dt
import re
import threading
from unittest import mock

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from customers.models import Customer
from mirror import inbox, tasks
from mirror.models import WebhookEvent
from mirror.tasks import drain_webhook_inbox, sweep_webhook_inbox
from tests.factories import WebhookEventFactory
from tests.mirror.test_webhook_flow import new_customer

ON_POSTGRESQL = connection.vendor == "postgresql"


def events_for(customer_id: str, n: int, *, prefix="evt") -> list[WebhookEvent]:
    return [
        WebhookEventFactory(event_id=f"{prefix}-{customer_id}-{i}", event_type="customer.update", record_id=customer_id)
        for i in range(n)
    ]


@pytest.fixture
def reads(faulty_upstream):
    """The customer re-reads sent upstream, by customer id (each still answered by the sandbox)."""

    def read_ids() -> list[str]:
        return [request.url.path.rsplit("/", 1)[1] for request in faulty_upstream.sent("GET", "/customer/")]

    return read_ids


def test_many_events_of_one_customer_cost_one_read_and_are_all_processed(upstream, reads):
    grace = new_customer(upstream)["customerId"]
    ada = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "ada@example.com", "firstName": "Ada", "lastName": "L"},
    )["customerId"]
    events = events_for(grace, 5) + events_for(ada, 3)
    unknown = WebhookEventFactory(event_id="evt-x", event_type="payout.new")

    assert drain_webhook_inbox() == len(events) + 1

    assert sorted(reads()) == sorted([grace, ada])
    assert set(Customer.objects.values_list("customer_id", flat=True)) == {grace, ada}
    states = dict(WebhookEvent.objects.values_list("pk", "state"))
    assert {states[e.pk] for e in events} == {"processed"}
    assert states[unknown.pk] == "ignored"
    assert set(WebhookEvent.objects.values_list("attempts", flat=True)) == {1}
    assert not WebhookEvent.objects.exclude(not_before=None).exists()
    # Nothing is left: a second drain reads nothing.
    assert drain_webhook_inbox() == 0
    assert len(reads()) == 2


def test_a_payment_account_event_upserts_the_account_it_names(upstream, faulty_upstream):
    from payments.models import PaymentAccount
    from tests.payments.account_fixtures import make_account, make_customer

    customer_id = make_customer(upstream)
    wallet = make_account(upstream, customer_id, "wallet")["paymentAccountId"]
    events = [
        WebhookEventFactory(event_id=f"evt-a{i}", event_type="payment_account.update", record_id=wallet)
        for i in range(2)
    ]

    assert drain_webhook_inbox() == 2

    account = PaymentAccount.objects.get(account_id=wallet)
    assert (account.status, account.nickname, account.customer.customer_id) == ("ACTIVE", "wallet", customer_id)
    assert len(faulty_upstream.sent("GET", f"/payment-accounts/{wallet}")) == 1  # one re-read for both
    assert {e.state for e in WebhookEvent.objects.filter(pk__in=[e.pk for e in events])} == {"processed"}


def test_a_failed_read_backs_off_and_the_sweep_takes_it_again_later(upstream):
    grace = new_customer(upstream)["customerId"]
    ok = events_for(grace, 1)[0]
    gone = events_for("00000000-0000-4000-8000-000000000000", 2)
    malformed = WebhookEventFactory(event_id="evt-m", event_type="customer.update", payload={"data": {}})

    drain_webhook_inbox()

    ok.refresh_from_db()
    assert ok.state == "processed"
    for event in [*gone, malformed]:
        event.refresh_from_db()
        assert event.state == "failed" and event.attempts == 1 and event.last_error
        assert event.not_before > timezone.now()
    assert "refused" in gone[0].last_error and "customerId" in malformed.last_error
    # During the backoff nothing takes them, not even the sweep.
    WebhookEvent.objects.update(received_at=timezone.now() - dt.timedelta(minutes=5))
    assert sweep_webhook_inbox() == 0
    # After it, the sweep tries again, up to MAX_ATTEMPTS in all.
    WebhookEvent.objects.update(not_before=timezone.now() - dt.timedelta(seconds=1))
    assert sweep_webhook_inbox() == 3
    assert set(WebhookEvent.objects.filter(state="failed").values_list("attempts", flat=True)) == {2}
    WebhookEvent.objects.filter(state="failed").update(attempts=inbox.MAX_ATTEMPTS, not_before=None)
    assert sweep_webhook_inbox() == 0


def test_a_claimed_event_is_left_alone_until_its_lease_ends(upstream):
    grace = new_customer(upstream)["customerId"]
    [event] = events_for(grace, 1)
    # A drain took it and died (killed, out of memory) before marking it.
    assert [e.pk for e in inbox.claim()] == [event.pk]
    assert drain_webhook_inbox() == 0
    event.refresh_from_db()
    assert (event.state, event.attempts) == ("received", 1)
    # The lease ends: the next drain takes it and it is processed once.
    WebhookEvent.objects.filter(pk=event.pk).update(not_before=timezone.now() - dt.timedelta(seconds=1))
    assert drain_webhook_inbox() == 1
    event.refresh_from_db()
    assert (event.state, event.attempts) == ("processed", 2)


@pytest.fixture
def with_a_broker():
    """Tasks are queued, not run: as with a broker."""
    conf = drain_webhook_inbox.app.conf
    conf.task_always_eager = False
    yield
    conf.task_always_eager = True


def test_a_burst_of_events_queues_a_drain_that_starts_after_the_last_of_them(db, monkeypatch, with_a_broker):
    monkeypatch.setattr(tasks, "_last_request", -tasks.REQUEST_EVERY)
    clock = [1000.0]
    monkeypatch.setattr(tasks.time, "monotonic", lambda: clock[0])
    with mock.patch.object(drain_webhook_inbox, "apply_async") as queue:
        for _ in range(20):  # 20 events within 0.19 s
            tasks.request_drain()
            clock[0] += 0.01
        # One drain, delayed past the last of them: it sees them all.
        queue.assert_called_once_with(countdown=tasks.REQUEST_EVERY)
        clock[0] = 1000.0 + tasks.REQUEST_EVERY
        tasks.request_drain()
        assert queue.call_count == 2


def test_an_upsert_that_fails_fails_its_events_with_a_backoff(upstream, monkeypatch):
    grace = new_customer(upstream)["customerId"]
    events = events_for(grace, 2)
    id_field, read, _upsert = inbox.KINDS["customer.update"]
    monkeypatch.setitem(
        inbox.KINDS, "customer.update", (id_field, read, mock.Mock(side_effect=RuntimeError("disk full")))
    )
    with mock.patch.object(inbox.log, "exception") as logged:
        assert drain_webhook_inbox() == 2
    assert logged.called  # the detail goes to the log, with its traceback
    for event in events:
        event.refresh_from_db()
        assert event.state == "failed" and event.last_error == inbox.UNEXPECTED and event.not_before > timezone.now()


def test_an_event_the_client_cannot_read_fails_alone(upstream):
    """A signed event whose id the client refuses to put in a URL (a ValueError, not an API
    error) fails; the valid events of the same batch are processed."""
    grace = new_customer(upstream)["customerId"]
    ada = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "ada@example.com", "firstName": "Ada", "lastName": "L"},
    )["customerId"]
    valid = [*events_for(grace, 1), *events_for(ada, 1)]
    bad = WebhookEventFactory(event_id="evt-bad", event_type="customer.update", record_id="bad?id#")

    assert drain_webhook_inbox() == 3

    for event in valid:
        event.refresh_from_db()
        assert event.state == "processed" and event.last_error == ""
    bad.refresh_from_db()
    assert bad.state == "failed" and "Not a usable id" in bad.last_error
    assert set(Customer.objects.values_list("customer_id", flat=True)) == {grace, ada}


@pytest.mark.parametrize("mode", ["down", "slow", "html-500"])
def test_the_inbox_page_shows_upstream_failures_in_staff_words(client_as, upstream, faulty_upstream, mode):
    grace = new_customer(upstream)["customerId"]
    event = events_for(grace, 1)[0]
    faulty_upstream.fail(mode)
    drain_webhook_inbox()
    event.refresh_from_db()
    assert event.state == "failed"
    html = client_as("admin").get(reverse("mirror-list-inbox-events")).content.decode()
    assert "The Payments API" in event.last_error and event.last_error[:40] in html
    assert not re.search(r"Errno|Connection refused|timed out|nginx|HTTP 500|GET /customer", html)


def test_a_record_the_mirror_cannot_take_fails_its_own_events_only(upstream, monkeypatch):
    grace = new_customer(upstream)["customerId"]
    ada = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "ada@example.com", "firstName": "Ada", "lastName": "L"},
    )["customerId"]
    good, poisoned = events_for(grace, 2), events_for(ada, 1)
    id_field, read, upsert = inbox.KINDS["customer.update"]

    def picky_upsert(*, items, seen_by):
        if any(item.customer_id == ada for item in items):
            raise RuntimeError("value out of range")
        return upsert(items=items, seen_by=seen_by)

    monkeypatch.setitem(inbox.KINDS, "customer.update", (id_field, read, picky_upsert))
    assert drain_webhook_inbox() == 3

    assert {WebhookEvent.objects.get(pk=e.pk).state for e in good} == {"processed"}
    failed = WebhookEvent.objects.get(pk=poisoned[0].pk)
    assert failed.state == "failed" and failed.last_error == inbox.UNEXPECTED
    assert list(Customer.objects.values_list("customer_id", flat=True)) == [grace]


def test_a_drain_out_of_time_queues_the_next_one(upstream):
    grace = new_customer(upstream)["customerId"]
    events_for(grace, 3)
    with mock.patch.object(drain_webhook_inbox, "delay") as delay:
        assert tasks.drain_and_requeue(budget=dt.timedelta(0)) == 0
    delay.assert_called_once_with()
    assert WebhookEvent.objects.filter(state="received", attempts=0).count() == 3


@pytest.mark.skipif(not ON_POSTGRESQL, reason="concurrent drains need PostgreSQL (SKIP LOCKED); SQLite has one writer")
@pytest.mark.django_db(transaction=True)
def test_drains_running_at_once_take_each_event_exactly_once(upstream, monkeypatch):
    customers = [new_customer(upstream)["customerId"] for _ in range(3)]
    for customer_id in customers:
        events_for(customer_id, 40)
    monkeypatch.setattr(inbox, "BATCH", 7)
    start = threading.Barrier(4)
    errors = []

    def run():
        try:
            start.wait()
            inbox.drain()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert WebhookEvent.objects.count() == 120
    assert set(WebhookEvent.objects.values_list("state", "attempts")) == {("processed", 1)}
    assert Customer.objects.count() == 3
