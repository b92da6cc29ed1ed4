"""Processing of the webhook inbox, in batches.

The receiver stores each signed event and asks for a drain (at most two a second per process,
see ``tasks.request_drain``). A drain takes the waiting events in batches: it claims them
(a lease, so that two drains never take the same event and a drain that dies lets its events
go), re-reads each record they name once per batch, however many events name it, writes the
mirror with one bulk upsert per kind, and marks the events. Nothing trusts the payload beyond
the id of the record to re-read; the upserts never go back in time, so duplicates, reordering
and a second run change nothing.

A failed re-read leaves its events FAILED with a backoff; the periodic sweep takes them (and
anything a lost drain left) again, up to MAX_ATTEMPTS.
"""

import datetime as dt
import logging
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from customers.upserts import customers_upsert
from payments.upserts import payment_accounts_upsert, transactions_upsert
from paymentsapi import PaymentsApiError
from upstream.api_errors import api_error_message
from upstream.client import get_client
from upstream.mirrored import Source

from .models import WebhookEvent

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
BATCH = 100
LEASE = dt.timedelta(minutes=2)
PENDING = [WebhookEvent.State.RECEIVED, WebhookEvent.State.FAILED]
# What the inbox page shows for an error of our own: its detail (a database error, say) is logged.
UNEXPECTED = "Unexpected error in the back-office; the details are in the log"


def backoff(attempts: int) -> dt.timedelta:
    """2 s, 4 s, 8 s ... after each failed attempt, at most 5 minutes."""
    return dt.timedelta(seconds=min(2**attempts, 300))


def _claimable(now) -> Q:
    return Q(state__in=PENDING) & (Q(not_before__isnull=True) | Q(not_before__lte=now))


def claim(*, limit: int = BATCH, pks=None, received_before=None) -> list[WebhookEvent]:
    """Take up to `limit` waiting events under a lease, oldest first. With `pks`, those events
    whatever their attempts (a replay); otherwise those with attempts to spare."""
    now = timezone.now()
    queryset = WebhookEvent.objects.filter(_claimable(now))
    queryset = queryset.filter(pk__in=pks) if pks is not None else queryset.filter(attempts__lt=MAX_ATTEMPTS)
    if received_before is not None:
        queryset = queryset.filter(received_at__lt=received_before)
    with transaction.atomic():
        if connection.features.has_select_for_update_skip_locked:
            # Two drains at once each take other rows instead of waiting for the first.
            queryset = queryset.select_for_update(skip_locked=True)
        events = list(queryset.order_by("id")[:limit])
        taken = [event.pk for event in events]
        WebhookEvent.objects.filter(pk__in=taken).update(attempts=F("attempts") + 1, not_before=now + LEASE)
    for event in events:
        event.attempts += 1
    return events


@dataclass
class Outcome:
    processed: list[int] = field(default_factory=list)
    ignored: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)  # pk -> error

    def count(self) -> int:
        return len(self.processed) + len(self.ignored) + len(self.failed)


# The kinds the mirror follows: the id in `data` and how to re-read and write those records.
KINDS = {
    "customer.update": (
        "customerId",
        lambda client, record_id: client.customers.get(customer_id=record_id, include_payment_methods=True),
        customers_upsert,
    ),
    "transaction.update": (
        "transactionId",
        lambda client, record_id: client.transactions.get(transaction_id=record_id),
        transactions_upsert,
    ),
    "payment_account.update": (
        "paymentAccountId",
        lambda client, record_id: client.payment_accounts.get(payment_account_id=record_id),
        payment_accounts_upsert,
    ),
}


def process(events: list[WebhookEvent]) -> Outcome:
    """Apply claimed events: one re-read per record, one upsert per kind, then mark them.
    An event's failure is its own: a record that cannot be read or written fails the events
    that name it and no other. An error outside any one record (the database, say) fails the
    whole batch with a backoff (logged with its traceback) instead of holding the events
    until their lease ends."""
    try:
        return _apply(events)
    except Exception:
        log.exception("A batch of %d webhook events failed", len(events))
        outcome = Outcome(failed=dict.fromkeys((event.pk for event in events), UNEXPECTED))
        _mark(events, outcome)
        return outcome


def _apply(events: list[WebhookEvent]) -> Outcome:
    outcome = Outcome()
    wanted: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for event in events:
        if event.event_type not in KINDS:
            outcome.ignored.append(event.pk)
            continue
        data = event.payload.get("data") if isinstance(event.payload, dict) else None
        record_id = data.get(KINDS[event.event_type][0]) if isinstance(data, dict) else None
        if not isinstance(record_id, str) or not record_id:
            outcome.failed[event.pk] = f"Malformed event data: no {KINDS[event.event_type][0]}"
            continue
        wanted[event.event_type][record_id].append(event.pk)

    client = get_client()
    for kind, records in wanted.items():
        _id_field, read, upsert = KINDS[kind]
        read_back = []  # (record, pks of its events)
        for record_id, pks in records.items():
            try:
                read_back.append((read(client, record_id), pks))
            except PaymentsApiError as exc:
                # Staff read last_error on the inbox page: the map's words, the detail in the log.
                _fail(outcome, pks, api_error_message(exc, write=False))
            except ValueError as exc:  # an id the client will not put in a URL
                log.warning("Could not re-read %s %r for %d webhook events: %s", kind, record_id, len(pks), exc)
                _fail(outcome, pks, f"The event names a record the Payments API cannot be asked for ({exc})")
            except Exception:
                log.exception("Could not re-read %s %r for %d webhook events", kind, record_id, len(pks))
                _fail(outcome, pks, UNEXPECTED)
        _upsert(upsert, read_back, outcome)
    _mark(events, outcome)
    return outcome


def _upsert(upsert, read_back: list, outcome: Outcome) -> None:
    """One bulk upsert of the records read; if it fails, each record alone, so that a record
    the mirror cannot take fails its own events only."""
    if not read_back:
        return
    try:
        with transaction.atomic():
            upsert(items=[record for record, _pks in read_back], seen_by=Source.WEBHOOK)
    except Exception:
        log.exception("A bulk upsert of %d records failed; writing them one at a time", len(read_back))
    else:
        outcome.processed.extend(pk for _record, pks in read_back for pk in pks)
        return
    for record, pks in read_back:
        try:
            with transaction.atomic():
                upsert(items=[record], seen_by=Source.WEBHOOK)
        except Exception:
            log.exception("Could not write a record of %d webhook events to the mirror", len(pks))
            _fail(outcome, pks, UNEXPECTED)
        else:
            outcome.processed.extend(pks)


def _fail(outcome: Outcome, pks: list[int], error: str) -> None:
    for pk in pks:
        outcome.failed[pk] = error[:500]


def _mark(events: list[WebhookEvent], outcome: Outcome) -> None:
    now = timezone.now()
    done = {"last_error": "", "processed_at": now, "not_before": None}
    WebhookEvent.objects.filter(pk__in=outcome.processed).update(state=WebhookEvent.State.PROCESSED, **done)
    WebhookEvent.objects.filter(pk__in=outcome.ignored).update(state=WebhookEvent.State.IGNORED, **done)
    failed = [event for event in events if event.pk in outcome.failed]
    for event in failed:
        event.state, event.last_error = WebhookEvent.State.FAILED, outcome.failed[event.pk]
        event.not_before = now + backoff(event.attempts)
    WebhookEvent.objects.bulk_update(failed, ["state", "last_error", "not_before"])
    for event in failed:
        log.warning("Webhook event %s failed (attempt %d): %s", event.event_id, event.attempts, event.last_error)


@dataclass
class Drained:
    settled: int  # events processed, ignored or failed
    finished: bool  # False when the time budget ran out with events left


def drain(*, received_before=None, budget: dt.timedelta = dt.timedelta(seconds=50)) -> Drained:
    """Process waiting events batch after batch until none is left or the time budget is
    spent (the caller then queues another drain)."""
    deadline = timezone.now() + budget
    settled = 0
    while timezone.now() < deadline:
        events = claim(received_before=received_before)
        if not events:
            return Drained(settled, finished=True)
        settled += process(events).count()
    return Drained(settled, finished=False)


def process_one(pk: int) -> str | None:
    """Process one event now, whatever its attempts (a replay); None when it is not waiting."""
    events = claim(pks=[pk], limit=1)
    if not events:
        return None
    process(events)
    return WebhookEvent.objects.values_list("state", flat=True).get(pk=pk)
