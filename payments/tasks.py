"""The payments app's periodic work."""

from celery import shared_task

from .services.approvals import approvals_expire


@shared_task
def expire_approval_requests() -> int:
    """Beat: requests past APPROVAL_TTL_HOURS become expired (pages treat them so at once)."""
    return approvals_expire()
