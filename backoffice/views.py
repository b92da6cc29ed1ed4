"""The pages of the project as a whole: the home page and the health check."""

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.access import staff_required
from core.roles import roles_of
from core.upstream import get_client

from .health import broker_status
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
    """Liveness for load balancers: 200 while the database answers, 503 when it does not."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        database = "ok"
    except Exception:  # any driver error means the same thing here
        database = "unavailable"
    body = {
        "database": database,
        "broker": broker_status(),
        # The breaker's view of the Payments API: closed (answering), open (failing, calls
        # paused) or half-open (one trial call allowed). No call is made from here.
        "upstream": get_client().breaker.current_state,
        "sandboxMounted": settings.SANDBOX_MOUNTED,
    }
    return JsonResponse(body, status=200 if database == "ok" else 503)
