"""What /healthz and /readyz report: the database, the shared cache, the broker, the heartbeats
of the Celery worker and beat, and how fresh each sync of the mirror is.

The database and the cache are probed by django-health-check's checks; the broker, the
heartbeats and the syncs are the project's own (docs/operations.md says why).

Heartbeats: beat queues `backoffice.heartbeat` every HEARTBEAT_SECONDS and notes, as it
sends it, that beat is alive; a worker that runs it notes that the workers are consuming.
Both notes live in the shared cache (Redis when a broker is configured), so every web
process sees them. docs/operations.md says what each failing check means and what to do.
"""

import asyncio
import concurrent.futures
import inspect
import time

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from health_check.base import HealthCheck
from health_check.checks import Cache, Database

HEARTBEAT_TASK = "backoffice.heartbeat"
SYNC_KINDS = ("customers", "payment-accounts", "transactions")
OK_STATES = frozenset({"ok", "eager"})


def _key(process: str) -> str:
    return f"heartbeat:{process}"


def mark_heartbeat(process: str, at: float | None = None) -> None:
    cache.set(_key(process), time.time() if at is None else at, timeout=None)


def heartbeat_age(process: str) -> float | None:
    """Seconds since `process` ("worker" or "beat") was last seen alive; None if never."""
    seen = cache.get(_key(process))
    return None if seen is None else max(0.0, time.time() - seen)


def beat_published(sender=None, **kwargs):
    """after_task_publish: only beat sends the heartbeat task, so sending it proves beat."""
    if sender == HEARTBEAT_TASK:
        mark_heartbeat("beat")


def _run_coroutine(function) -> None:
    """Runs an asynchronous check to its end; in a thread of its own when this thread already
    runs an event loop (an ASGI server, a test's loop), where asyncio.run refuses."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(function())
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(lambda: asyncio.run(function())).result()


def _probe(check: HealthCheck) -> str:
    """'ok', or 'unavailable' when the check failed. A check that runs synchronously (the
    database's) runs in the request's thread, on its connection: the library's own runner would
    open a connection in a thread of its own for every probe."""
    try:
        if inspect.iscoroutinefunction(check.run):
            _run_coroutine(check.run)
        else:
            check.run()
    except Exception:  # HealthCheckException, or whatever the backend raised: the same answer
        return "unavailable"
    return "ok"


def database_status() -> str:
    return _probe(Database())


def cache_status() -> str:
    """The shared cache (Redis with a broker): a miss there is not an error for a page, so
    only this probe tells that it is away."""
    return _probe(Cache())


def broker_status() -> str:
    """'eager' without a broker, else 'ok' or 'unavailable' after one quick connection try."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    try:
        # The project's Celery app (backoffice/celery.py) is the current one once Django runs.
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=1)
        return "ok"
    except Exception:  # kombu raises many transport-specific errors
        return "unavailable"


def _age_check(age: float | None, limit: float) -> dict:
    if age is None:
        return {"status": "missing", "ageSeconds": None}
    return {"status": "ok" if age <= limit else "stale", "ageSeconds": round(age)}


def heartbeat_checks(cache_state: str = "ok") -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        # No broker: tasks run in the web process (and runserver's ticker runs the schedule).
        return {"worker": {"status": "eager"}, "beat": {"status": "eager"}}
    if cache_state != "ok":
        # The heartbeats live in the cache: nothing can be said of them.
        return {"worker": {"status": "unknown"}, "beat": {"status": "unknown"}}
    limit = settings.HEARTBEAT_STALE_SECONDS
    return {process: _age_check(heartbeat_age(process), limit) for process in ("worker", "beat")}


def sync_ages() -> dict[str, float | None]:
    """Seconds since the last successful run of each sync kind (None: never succeeded)."""
    from django.utils import timezone

    from mirror.sync import last_successes

    last = last_successes(SYNC_KINDS)
    now = timezone.now()
    return {kind: (now - last[kind]).total_seconds() if last.get(kind) else None for kind in SYNC_KINDS}


def readiness() -> tuple[bool, dict]:
    """Every check as {"status": ...}; ready when all are "ok" (or "eager" without a broker)."""
    checks: dict = {
        "database": {"status": database_status()},
        "cache": {"status": cache_status()},
        "broker": {"status": broker_status()},
    }
    checks.update(heartbeat_checks(checks["cache"]["status"]))
    if checks["database"]["status"] == "ok":
        limit = settings.SYNC_STALE_SECONDS
        checks["sync"] = {kind: _age_check(age, limit) for kind, age in sync_ages().items()}
        sync_ok = all(check["status"] == "ok" for check in checks["sync"].values())
    else:
        checks["sync"], sync_ok = {"status": "unknown"}, False
    named = ("database", "cache", "broker", "worker", "beat")
    ready = sync_ok and all(checks[name]["status"] in OK_STATES for name in named)
    return ready, checks
