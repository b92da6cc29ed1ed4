"""The project's periodic work: the home pages' roll-ups."""

import datetime as dt

from celery import shared_task

from core.locks import LockHeld, hold_lock

from . import rollups


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
