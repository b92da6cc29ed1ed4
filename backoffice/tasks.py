"""Celery tasks: they take ids, call a service, and are safe to run twice."""

import datetime as dt
import logging

from celery import shared_task
from django.db.models import F
from django.utils import timezone

from payments.services import transactions_upsert

from .mirror import Source
from .models import WebhookEvent
from .paymentsapi import PaymentsApiError, TransportError, get_client
from .sync import refresh_customer, refresh_open_transactions, sync_customers, sync_payment_accounts

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6


def _handle(event: WebhookEvent) -> bool:
    """Apply one event by re-reading its record from the API; False when the kind is unknown."""
    data = event.payload.get("data") or {}
    if event.event_type == "customer.update":
        refresh_customer(customer_id=str(data["customerId"]), seen_by=Source.WEBHOOK)
        return True
    if event.event_type == "transaction.update":
        item = get_client().get_transaction(transaction_id=str(data["transactionId"]))
        transactions_upsert(items=[item], seen_by=Source.WEBHOOK)
        return True
    return False


@shared_task(bind=True, acks_late=True, max_retries=MAX_ATTEMPTS - 1, soft_time_limit=60, time_limit=90)
def process_webhook_event(self, event_pk: int) -> str:
    """Apply one inbox event. No database transaction stays open across the API call: the
    event is claimed, the record re-read, then the mirror and the event written. Running it
    twice is harmless (the upsert is idempotent and never goes back in time)."""
    claimed = WebhookEvent.objects.filter(
        pk=event_pk, state__in=[WebhookEvent.State.RECEIVED, WebhookEvent.State.FAILED]
    ).update(attempts=F("attempts") + 1)
    if not claimed:
        return "skipped"
    event = WebhookEvent.objects.get(pk=event_pk)
    retry = False
    try:
        handled = _handle(event)
    except (KeyError, TypeError) as exc:
        event.state, event.last_error = WebhookEvent.State.FAILED, f"Malformed event data: {exc!r}"[:500]
    except PaymentsApiError as exc:
        event.state, event.last_error = WebhookEvent.State.FAILED, str(exc)[:500]
        retry = isinstance(exc, TransportError) or getattr(exc, "status", 0) >= 500
    else:
        event.state = WebhookEvent.State.PROCESSED if handled else WebhookEvent.State.IGNORED
        event.last_error, event.processed_at = "", timezone.now()
    event.save(update_fields=["state", "last_error", "processed_at"])
    if retry and self.request.retries < self.max_retries and not self.request.is_eager:
        raise self.retry(countdown=min(2 ** (self.request.retries + 1), 300))
    return event.state


@shared_task(acks_late=True, soft_time_limit=120, time_limit=150)
def sweep_webhook_inbox() -> int:
    """Start the processing of events left behind: never started (a crash after storing)
    or failed with attempts to spare."""
    stale = timezone.now() - dt.timedelta(seconds=30)
    pending = WebhookEvent.objects.filter(
        state__in=[WebhookEvent.State.RECEIVED, WebhookEvent.State.FAILED],
        attempts__lt=MAX_ATTEMPTS,
        received_at__lt=stale,
    ).values_list("pk", flat=True)[:500]
    pks = list(pending)
    for pk in pks:
        process_webhook_event.delay(pk)
    return len(pks)


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
