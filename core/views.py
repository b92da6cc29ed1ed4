import sys

from django.contrib.sessions.exceptions import SessionInterrupted
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.shortcuts import render
from django.template import loader
from django.views.decorators.http import require_GET

from . import labels
from .access import role_required
from .exports import Column, csv_response, refused_filters, with_words
from .filters import AuditEventFilter
from .htmx import page_or_partial
from .models import AuditEvent
from .pagination import paginate_keyset

AUDIT_PAGE_SIZE = 50
AUDIT_EXPORT_COLUMNS = [
    Column("created_at", "createdAt"),
    Column("actor_username", "actor"),
    *with_words("action", "action", labels.ACTION),
    Column("target_kind", "targetKind"),
    Column("target_id", "targetId"),
    Column("outcome", "outcome"),
    Column("request_id", "requestId"),
    Column("details", "details"),
]


@role_required("view_audit")
@require_GET
def list_audit_events(request):
    filterset = AuditEventFilter(request.GET, queryset=AuditEvent.objects.select_related("actor"))
    queryset = filterset.qs if filterset.is_valid() else AuditEvent.objects.none()
    page = paginate_keyset(
        queryset, ordering=("-created_at", "-id"), cursor=request.GET.get("cursor"), size=AUDIT_PAGE_SIZE
    )
    for event in page.items:
        # Statuses, decisions, roles and API error codes of the details, in staff words.
        event.detail_items = labels.detail_items(event.target_kind, event.details)
    template = page_or_partial(request, "core/audit_events.html")
    return render(request, template, {"filter": filterset, "page": page})


@role_required("view_audit")
@require_GET
def export_audit_events(request):
    """The filtered audit log as CSV (core/exports.py), newest first as on the page."""
    filterset = AuditEventFilter(request.GET, queryset=AuditEvent.objects.all())
    if not filterset.is_valid():
        return refused_filters(request, filterset.errors)
    return csv_response(filterset.qs.order_by("-created_at", "-id"), AUDIT_EXPORT_COLUMNS, "audit-log")


def bad_request(request, exception=None):
    # A session deleted by a concurrent request (a logout, a deactivation, a second-factor
    # reset) while this one ran: the view may have done its work; say what happened. Rendered
    # without the request, as Django's own 400 is.
    ended = isinstance(exception, SessionInterrupted)
    return HttpResponse(loader.render_to_string("400.html", {"session_ended": ended}), status=400)


def permission_denied(request, exception=None):
    roles = getattr(exception, "roles", None)
    return render(request, "403.html", {"roles": roles}, status=403)


def csrf_failure(request, reason=""):
    return render(request, "403.html", {"csrf": True}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    # Called by Django inside its handler of the uncaught exception, so sys.exc_info() names it.
    # The database restarting (refused or dropped connections) is a wait, not a fault of ours:
    # 503 with Retry-After, which browsers show and the provider's webhook deliveries retry.
    # Rendered without the request: its context processors could read the database again.
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = "5"
        return response
    return render(request, "500.html", status=500)
