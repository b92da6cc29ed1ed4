"""The project's own Celery tasks: the heartbeat that /readyz reads (backoffice/health.py) and
the home pages' roll-ups."""

import datetime as dt

from celery import shared_task

from core.models import LockHeld, hold_lock

from . import rollups
from .health import HEARTBEAT_TASK, mark_heartbeat


@shared_task(name=HEARTBEAT_TASK, ignore_result=True, expires=60)
def heartbeat() -> None:
    """Run by a worker: the queue is being consumed. Beat's sending it is noted as beat's."""
    mark_heartbeat("worker")


@shared_task(acks_late=True, soft_time_limit=5 * 60, time_limit=6 * 60)
def refresh_home_figures() -> str:
    """Recompute the home pages' figures (every minute, CELERY_BEAT_SCHEDULE); one run at a
    time: a run that finds another under way leaves it the work."""
    try:
        with hold_lock("home-figures", ttl=dt.timedelta(minutes=6)):
            computed = rollups.refresh()
    except LockHeld:
        return "skipped"
    return ", ".join(f"{figure}: {len(days)} days" for figure, days in computed.items())
