"""Celery tasks: they take ids, call a service, and are safe to run twice."""

import datetime as dt
import time

from celery import shared_task
from django.utils import timezone

from core.models import LockHeld

from . import inbox
from .sync import refresh_open_transactions, sync_automation_rules, sync_customers, sync_payment_accounts


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def drain_webhook_inbox() -> int:
    """Process every waiting inbox event, in batches (queued by the receiver)."""
    return drain_and_requeue()


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def process_webhook_event(event_pk: int) -> str:
    """Process one event now (a replay from the inbox page); "skipped" when it is not waiting."""
    return inbox.process_one(event_pk) or "skipped"


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_webhook_inbox() -> int:
    """Process the events left behind: received over 30 s ago and never taken (a crash after
    storing, a lost drain), or failed and past their backoff, with attempts to spare."""
    return drain_and_requeue(received_before=timezone.now() - dt.timedelta(seconds=30))


SKIPPED = "skipped: another sync holds the lock"


@shared_task(acks_late=True, soft_time_limit=30 * 60, time_limit=31 * 60)
def sync_mirror() -> dict | str:
    # Two syncs overlapping (a long one and beat's next) is expected: the one running does the
    # work, so this one is neither a failure nor an error report.
    try:
        return {
            "customers": sync_customers().outcome,
            "payment-accounts": sync_payment_accounts().outcome,
            "automation-rules": sync_automation_rules().outcome,
            "transactions": refresh_open_transactions().outcome,
        }
    except LockHeld:
        return SKIPPED


@shared_task(acks_late=True, soft_time_limit=10 * 60, time_limit=11 * 60)
def refresh_transactions() -> str:
    try:
        return refresh_open_transactions().outcome
    except LockHeld:
        return SKIPPED


def drain_and_requeue(**options) -> int:
    """Drain the inbox; a drain that ran out of time queues the next one. Returns how many
    events were settled."""
    drained = inbox.drain(**options)
    if not drained.finished:
        request_drain()
    return drained.settled


REQUEST_EVERY = 0.5  # seconds
_last_request = -REQUEST_EVERY  # when this process last queued a drain (time.monotonic())


def request_drain() -> None:
    """Make sure a drain starts after the event just stored, without a task per event.

    A process queues at most one drain per REQUEST_EVERY seconds, each delayed by that much:
    an event stored at time t either queues a drain starting at t + REQUEST_EVERY, or finds
    one queued at T > t - REQUEST_EVERY, which starts at T + REQUEST_EVERY > t. Either way a
    drain begins after the event was committed, and drains run until nothing is left. This
    needs no state shared between processes. Eager (no broker): the drain runs now.
    """
    global _last_request
    if drain_webhook_inbox.app.conf.task_always_eager:
        drain_webhook_inbox.delay()
        return
    now = time.monotonic()
    if now - _last_request >= REQUEST_EVERY:
        drain_webhook_inbox.apply_async(countdown=REQUEST_EVERY)
        _last_request = now
