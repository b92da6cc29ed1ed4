"""The audit log's page and its CSV export."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from core import labels
from core.access import role_required
from core.exports import Column, filtered_export, with_words
from core.views import filtered_page, page_or_partial

from .filters import AuditEventFilter
from .models import AuditEvent
from .targets import name_targets

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
    events = AuditEvent.objects.select_related("actor")
    ordering = ("-created_at", "-id")
    filterset, page = filtered_page(request, AuditEventFilter, events, ordering=ordering, size=AUDIT_PAGE_SIZE)
    for event in page.items:
        # Statuses, decisions, roles and API error codes of the details, in staff words.
        event.detail_items = labels.detail_items(event.target_kind, event.details)
    # Targets by name with a link, one query per kind of target on the page.
    name_targets(page.items, request.user)
    template = page_or_partial(request, "audit/audit_events.html")
    return render(request, template, {"filter": filterset, "page": page})


@role_required("view_audit")
@require_GET
def export_audit_events(request):
    """The filtered audit log as CSV (core/exports.py), newest first as on the page."""
    return filtered_export(
        request, AuditEventFilter, AuditEvent.objects.all(), ("-created_at", "-id"), AUDIT_EXPORT_COLUMNS, "audit-log"
    )
