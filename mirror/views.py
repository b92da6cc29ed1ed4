from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from core.access import role_required
from core.audit import audit_record
from core.htmx import page_or_partial
from core.pagination import paginate_keyset

from .models import WebhookEvent
from .tasks import process_webhook_event


@role_required("view_audit")
@require_GET
def list_inbox_events(request):
    queryset = WebhookEvent.objects.all()
    state = request.GET.get("state", "")
    if state in WebhookEvent.State.values:
        queryset = queryset.filter(state=state)
    page = paginate_keyset(queryset, ordering=("-received_at", "-id"), cursor=request.GET.get("cursor"), size=50)
    template = page_or_partial(request, "mirror/inbox.html")
    return render(request, template, {"page": page, "state": state, "states": WebhookEvent.State.choices})


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
