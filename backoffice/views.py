from django.conf import settings
from django.contrib import messages
from django.db import connection, transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from .access import role_required, staff_required
from .audit import audit_record
from .filters import AuditEventFilter
from .health import broker_status
from .htmx import page_or_partial
from .models import AuditEvent, WebhookEvent
from .pagination import paginate_keyset
from .paymentsapi import get_client
from .roles import roles_of
from .tasks import process_webhook_event

AUDIT_PAGE_SIZE = 50


@staff_required
@require_GET
def home(request):
    return render(request, "backoffice/home.html", {"roles": roles_of(request.user)})


@role_required("view_audit")
@require_GET
def list_audit_events(request):
    filterset = AuditEventFilter(request.GET, queryset=AuditEvent.objects.select_related("actor"))
    queryset = filterset.qs if filterset.is_valid() else AuditEvent.objects.none()
    page = paginate_keyset(
        queryset, ordering=("-created_at", "-id"), cursor=request.GET.get("cursor"), size=AUDIT_PAGE_SIZE
    )
    template = page_or_partial(request, "backoffice/audit_events.html")
    return render(request, template, {"filter": filterset, "page": page})


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


def permission_denied(request, exception=None):
    roles = getattr(exception, "roles", None)
    return render(request, "403.html", {"roles": roles}, status=403)


def csrf_failure(request, reason=""):
    return render(request, "403.html", {"csrf": True}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    return render(request, "500.html", status=500)


@role_required("view_audit")
@require_GET
def list_webhook_events(request):
    queryset = WebhookEvent.objects.all()
    state = request.GET.get("state", "")
    if state in WebhookEvent.State.values:
        queryset = queryset.filter(state=state)
    page = paginate_keyset(queryset, ordering=("-received_at", "-id"), cursor=request.GET.get("cursor"), size=50)
    template = page_or_partial(request, "backoffice/webhook_events.html")
    return render(request, template, {"page": page, "state": state, "states": WebhookEvent.State.choices})


@role_required("manage_webhooks")
@require_POST
def replay_webhook_event(request, pk):
    event = get_object_or_404(WebhookEvent, pk=pk)
    with transaction.atomic():
        WebhookEvent.objects.filter(pk=event.pk).update(
            state=WebhookEvent.State.RECEIVED, last_error="", not_before=None
        )
        audit_record(actor=request.user, action="webhook_event.replay", target_kind="webhook_event", target_id=event.pk)
        transaction.on_commit(lambda: process_webhook_event.delay(event.pk))
    event.refresh_from_db()
    messages.success(request, f"Event {event.event_id} was replayed: now {event.get_state_display().lower()}.")
    return redirect("backoffice-list-webhook-events")
