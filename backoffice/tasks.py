"""The project's own Celery task: the heartbeat that /readyz reads (backoffice/health.py)."""

from celery import shared_task

from .health import HEARTBEAT_TASK, mark_heartbeat


@shared_task(name=HEARTBEAT_TASK, ignore_result=True, expires=60)
def heartbeat() -> None:
    """Run by a worker: the queue is being consumed. Beat's sending it is noted as beat's."""
    mark_heartbeat("worker")
