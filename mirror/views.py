from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from audit.records import audit_record
from core import labels
from core.access import role_required
from core.exports import Column, csv_response, with_words
from core.views import page_or_partial, paginate_keyset

from .models import WebhookEvent
from .tasks import process_webhook_event

# The payload stays out: it may carry a customer's data; the event id leads to it.
INBOX_EXPORT_COLUMNS = [
    Column("event_id", "eventId"),
    *with_words("event_type", "eventType", labels.EVENT),
    *with_words("state", "state", labels.INBOX_STATE),
    Column("attempts", "attempts"),
    Column("last_error", "lastError"),
    Column("occurred_at", "occurredAt"),
    Column("received_at", "receivedAt"),
    Column("processed_at", "processedAt"),
]


def _inbox_events(request) -> tuple:
    queryset = WebhookEvent.objects.all()
    state = request.GET.get("state", "")
    if state in WebhookEvent.State.values:
        queryset = queryset.filter(state=state)
    return queryset, state


@role_required("view_audit")
@require_GET
def list_inbox_events(request):
    queryset, state = _inbox_events(request)
    page = paginate_keyset(queryset, ordering=("-received_at", "-id"), cursor=request.GET.get("cursor"), size=50)
    template = page_or_partial(request, "mirror/inbox.html")
    return render(request, template, {"page": page, "state": state, "states": WebhookEvent.State.choices})


@role_required("view_audit")
@require_GET
def export_inbox_events(request):
    """The inbox of the state on screen as CSV (core/exports.py), newest first as on the page."""
    queryset, _state = _inbox_events(request)
    return csv_response(queryset.order_by("-received_at", "-id"), INBOX_EXPORT_COLUMNS, "webhook-inbox")


@role_required("manage_webhooks")
@require_POST
def replay_inbox_event(request, pk):
    event = get_object_or_404(WebhookEvent, pk=pk)
    with transaction.atomic():
        WebhookEvent.objects.filter(pk=event.pk).update(
            state=WebhookEvent.State.RECEIVED, last_error="", not_before=None
        )
        audit_record(actor=request.user, action="webhook_event.replay", target_kind="webhook_event", target_id=event.pk)
        transaction.on_commit(lambda: process_webhook_event.delay(event.pk))
    event.refresh_from_db()
    messages.success(request, f"Event {event.event_id} was replayed: now {event.get_state_display().lower()}.")
    return redirect("mirror-list-inbox-events")
