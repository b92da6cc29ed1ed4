"""Celery tasks of the sandbox: they take ids, call a service, and are safe to run twice.

The services never import this module. They send the signals of sandbox/signals.py, and the
receivers here queue the matching task once the database transaction commits (sandbox/apps.py
connects them when the app is ready).

Periodic tasks (CELERY_BEAT_SCHEDULE):
- deliver_due_webhooks: every few seconds, the webhook retries whose time has come.
- advance_due_transactions: every few seconds, expiry and the end of processing.
- fire_due_automation_rules: every few seconds (cron has minute resolution), due cron rules
  and threshold rules whose balance changed without a check.
- sandbox.complete_due_reviews: due KYC/KYB reviews.
"""

import logging
from functools import partial

import kombu.exceptions
from celery import shared_task
from django.db import OperationalError, transaction
from django.dispatch import receiver

from . import signals
from .services import rules, transactions, verification, webhooks

logger = logging.getLogger(__name__)

# Tasks about one record: a database hiccup is retried. The HTTP call of a delivery is bounded
# by SANDBOX_WEBHOOK_TIMEOUT; the time limits only catch a stuck worker.
ONE_RECORD = {
    "acks_late": True,
    "soft_time_limit": 60,
    "time_limit": 90,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 3,
}
# Periodic sweeps: the next beat is the retry.
SWEEP = {"acks_late": True, "soft_time_limit": 5 * 60, "time_limit": 6 * 60}


def _queue(task, record_id: str, *, what: str, countdown: float | None = None) -> None:
    """Queue `task` for one record. With no broker now, the periodic sweep (or a read) does the
    work later: the change that asked for it is committed already."""
    try:
        task.apply_async(args=[record_id], countdown=countdown)
    except kombu.exceptions.OperationalError:
        logger.warning("Could not queue %s %s; the sweep will do it", what, record_id)


# --- Webhooks ----------------------------------------------------------------------------------

# A receiver's failure is not a task failure: deliver() records it and schedules the retry.


@shared_task(**ONE_RECORD)
def deliver_webhook(delivery_id: str) -> str:
    delivery = webhooks.deliver(delivery_id)
    return delivery.status if delivery else "not-due"


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def deliver_due_webhooks(limit: int = 500) -> int:
    """Fan the due deliveries out to deliver_webhook; the claim in deliver() makes a delivery
    enqueued twice (by two beats, or by this and emit) attempted once."""
    webhooks.delivery_fail_abandoned()
    ids = webhooks.delivery_due_ids(limit=limit)
    for delivery_id in ids:
        deliver_webhook.delay(delivery_id)
    return len(ids)


@receiver(signals.delivery_created)
def queue_delivery(sender, *, delivery_id: str, **kwargs) -> None:
    # robust: the change is committed whatever happens here; deliver_due picks up a delivery
    # whose task could not start (its next_attempt_at is already due).
    transaction.on_commit(partial(deliver_webhook.delay, delivery_id), robust=True)


# --- Transactions ------------------------------------------------------------------------------

# Each step is claimed with a conditional UPDATE in the service: a task that runs twice, or
# alongside the sweep or a read, applies nothing the second time.


@shared_task(**ONE_RECORD)
def complete_transaction(transaction_id: str) -> str:
    """Queued with the processing delay as countdown; does nothing if it is not due yet (eager
    Celery runs it at once: the sweep or a read then completes the transaction)."""
    tx = transactions.transaction_settle(transaction_id=transaction_id)
    return tx.status if tx else "not-due"


@shared_task(**SWEEP)
def advance_due_transactions() -> int:
    """Periodic: expire AWAITING_TRANSFER past expiresAt, complete or fail PROCESSING past due."""
    return transactions.transactions_advance_due()


@receiver(signals.processing_started)
def queue_completion(sender, *, transaction_id: str, countdown: float, **kwargs) -> None:
    queue = partial(_queue, complete_transaction, transaction_id, what="the completion of transaction")
    transaction.on_commit(partial(queue, countdown=countdown), robust=True)


# --- Automation rules --------------------------------------------------------------------------


@shared_task(**ONE_RECORD)
def check_threshold_rules(payment_account_id: str) -> int:
    """After a balance change of the account: fire its threshold rules that it reached."""
    return len(rules.automation_rules_fire_due(source_account_id=payment_account_id)["fired"])


@shared_task(**SWEEP)
def fire_due_automation_rules() -> int:
    """Periodic: every rule that is due on the sandbox clock fires once."""
    return len(rules.automation_rules_fire_due()["fired"])


@receiver(signals.watched_balance_changed)
def queue_threshold_check(sender, *, account_id: str, **kwargs) -> None:
    # No broker: the periodic fire_due_automation_rules checks every threshold anyway.
    queue = partial(_queue, check_threshold_rules, account_id, what="the threshold check of account")
    transaction.on_commit(queue, robust=True)


# --- Reviews -----------------------------------------------------------------------------------

# Named: the beat schedule and the decisions page know them as sandbox.complete_review and
# sandbox.complete_due_reviews.


@shared_task(name="sandbox.complete_review", acks_late=True, soft_time_limit=60, time_limit=90)
def complete_review(customer_id: str) -> bool:
    """Apply the outcome of one customer's review if it is due; safe to run twice."""
    return verification.review_complete(customer_id=customer_id) is not None


@shared_task(name="sandbox.complete_due_reviews", **SWEEP)
def complete_due_reviews() -> int:
    """Periodic sweep: complete every review that is due (the sandbox clock decides)."""
    return verification.review_complete_due()


@receiver(signals.review_started)
def queue_review(sender, *, customer_id: str, countdown: float, **kwargs) -> None:
    # Not robust, as before: an error other than a missing broker surfaces in the request.
    queue = partial(_queue, complete_review, customer_id, what="the review of customer", countdown=countdown)
    transaction.on_commit(queue)
