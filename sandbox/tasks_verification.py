"""Celery tasks of the simulated KYC/KYB review (sandbox.services.verification).

Named explicitly because autodiscovery finds only tasks.py; sandbox.services.verification
imports this module, so the tasks are registered wherever reviews start. A worker also needs
"sandbox.tasks_verification" in CELERY_IMPORTS, and beat an entry for complete_due_reviews.
"""

from celery import shared_task

# The module, not its names: services.verification imports this module in turn.
from .services import verification


@shared_task(name="sandbox.complete_review", acks_late=True, soft_time_limit=60, time_limit=90)
def complete_review(customer_id: str) -> bool:
    """Apply the outcome of one customer's review if it is due; safe to run twice."""
    return verification.review_complete(customer_id=customer_id) is not None


@shared_task(name="sandbox.complete_due_reviews", acks_late=True, soft_time_limit=5 * 60, time_limit=6 * 60)
def complete_due_reviews() -> int:
    """Periodic sweep: complete every review that is due (the sandbox clock decides)."""
    return verification.review_complete_due()
