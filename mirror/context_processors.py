from django.core.cache import cache

from upstream.client import get_client

from .models import SyncRun

CACHE_KEY = "backoffice:upstream-banner"
CACHE_SECONDS = 15


def _latest_runs() -> dict:
    """The newest sync run and the newest successful one (cached: pages must stay cheap)."""
    found = cache.get(CACHE_KEY)
    if found is None:
        latest = SyncRun.objects.exclude(outcome=SyncRun.Outcome.RUNNING).order_by("-finished_at").first()
        success = (
            latest
            if latest and latest.outcome == SyncRun.Outcome.SUCCEEDED
            else SyncRun.objects.filter(outcome=SyncRun.Outcome.SUCCEEDED).order_by("-finished_at").first()
        )
        found = {
            "failed_at": latest.finished_at if latest and latest.outcome == SyncRun.Outcome.FAILED else None,
            "synced_at": success.finished_at if success else None,
        }
        cache.set(CACHE_KEY, found, CACHE_SECONDS)
    return found


def upstream_status(request) -> dict:
    """`upstream`: whether to warn that the Payments API is failing, and how fresh the mirror is.

    The warning shows when this process's circuit breaker is open or the newest sync failed;
    the pages still render from the mirror.
    """
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    runs = _latest_runs()
    circuit_open = get_client().breaker.current_state != "closed"
    return {"upstream": {"down": circuit_open or runs["failed_at"] is not None, **runs}}
