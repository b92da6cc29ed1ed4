"""Celery tasks of the sandbox: they take ids, call a service, and are safe to run twice.

Periodic tasks (add them to CELERY_BEAT_SCHEDULE):
- deliver_due_webhooks: every few seconds, the webhook retries whose time has come.
- advance_due_transactions: every few seconds, expiry and the end of processing.
- fire_due_automation_rules: every few seconds (cron has minute resolution), due cron rules
  and threshold rules whose balance changed without a check.
- sandbox.complete_due_reviews (sandbox/tasks_verification.py): due KYC/KYB reviews.
"""

from celery import shared_task
from django.db import OperationalError

from . import tasks_verification  # noqa: F401 - registers the review tasks for workers
from .services import rules, transactions, webhooks

# --- Webhooks ----------------------------------------------------------------------------------

# The HTTP call is bounded by SANDBOX_WEBHOOK_TIMEOUT; these limits only catch a stuck worker.
# A receiver's failure is not a task failure: deliver() records it and schedules the retry.
# Only a database hiccup is retried here.


@shared_task(
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
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


# --- Transactions ------------------------------------------------------------------------------

# Each step is claimed with a conditional UPDATE in the service: a task that runs twice, or
# alongside the sweep or a read, applies nothing the second time.


@shared_task(
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def complete_transaction(transaction_id: str) -> str:
    """Queued with the processing delay as countdown; does nothing if it is not due yet (eager
    Celery runs it at once: the sweep or a read then completes the transaction)."""
    tx = transactions.transaction_settle(transaction_id=transaction_id)
    return tx.status if tx else "not-due"


@shared_task(acks_late=True, soft_time_limit=5 * 60, time_limit=6 * 60)
def advance_due_transactions() -> int:
    """Periodic: expire AWAITING_TRANSFER past expiresAt, complete or fail PROCESSING past due."""
    return transactions.transactions_advance_due()


# --- Automation rules --------------------------------------------------------------------------


@shared_task(
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def check_threshold_rules(payment_account_id: str) -> int:
    """After a balance change of the account: fire its threshold rules that it reached."""
    return len(rules.automation_rules_fire_due(source_account_id=payment_account_id)["fired"])


@shared_task(acks_late=True, soft_time_limit=5 * 60, time_limit=6 * 60)
def fire_due_automation_rules() -> int:
    """Periodic: every rule that is due on the sandbox clock fires once."""
    return len(rules.automation_rules_fire_due()["fired"])
