"""The pages of the project as a whole: the home page, liveness and readiness."""

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.access import roles_of, staff_required
from upstream.client import get_client

from .health import broker_status, cache_status, database_status, readiness
from .home import sections_for


@staff_required
@require_GET
def home(request):
    """What waits for the user: a section per role they hold (backoffice/home.py)."""
    roles = roles_of(request.user)
    return render(request, "backoffice/home.html", {"roles": roles, "sections": sections_for(request.user, roles)})


@never_cache
@require_GET
def healthz(request):
    """Liveness for load balancers: 200 while the database answers, 503 when it does not. The
    cache and the broker are reported without failing on them: a web process serves pages,
    logins and webhooks without Redis."""
    database = database_status()
    body = {
        "database": database,
        "cache": cache_status(),
        "broker": broker_status(),
        # The breaker's view of the Payments API: closed (answering), open (failing, calls
        # paused) or half-open (one trial call allowed). No call is made from here.
        "upstream": get_client().breaker.current_state,
        "sandboxMounted": settings.SANDBOX_MOUNTED,
    }
    return _probe_answer(body, status=200 if database == "ok" else 503)


@never_cache
@require_GET
def readyz(request):
    """Readiness: the database, the broker, the worker's and beat's heartbeats, the freshness
    of each sync. 200 when all are well, else 503; the JSON says which check failed."""
    ready, checks = readiness()
    return _probe_answer({"ready": ready, "checks": checks}, status=200 if ready else 503)


def _probe_answer(body: dict, *, status: int) -> JsonResponse:
    """A 503 here is the answer to the question asked, for the monitor to act on, not a fault
    of this request: Django would log it as an ERROR (and Sentry report it) at every probe.
    The access line still records it."""
    response = JsonResponse(body, status=status)
    response._has_been_logged = True  # django.utils.log.log_response's own mark
    return response
