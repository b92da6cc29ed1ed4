"""Celery tasks: they take ids, call a service, and are safe to run twice."""

import datetime as dt

from celery import shared_task
from django.utils import timezone

from . import inbox
from .sync import refresh_open_transactions, sync_customers, sync_payment_accounts


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def drain_webhook_inbox() -> int:
    """Process every waiting inbox event, in batches (queued by the receiver)."""
    return inbox.drain()


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def process_webhook_event(event_pk: int) -> str:
    """Process one event now (a replay from the inbox page); "skipped" when it is not waiting."""
    return inbox.process_one(event_pk) or "skipped"


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_webhook_inbox() -> int:
    """Process the events left behind: received over 30 s ago and never taken (a crash after
    storing, a lost drain), or failed and past their backoff, with attempts to spare."""
    return inbox.drain(received_before=timezone.now() - dt.timedelta(seconds=30))


@shared_task(acks_late=True, soft_time_limit=30 * 60, time_limit=31 * 60)
def sync_mirror() -> dict:
    return {
        "customers": sync_customers().outcome,
        "payment-accounts": sync_payment_accounts().outcome,
        "transactions": refresh_open_transactions().outcome,
    }


@shared_task(acks_late=True, soft_time_limit=10 * 60, time_limit=11 * 60)
def refresh_transactions() -> str:
    return refresh_open_transactions().outcome
