import uuid

from tests.access import ANY_STAFF, Access


def _webhook_event():
    from mirror.models import WebhookEvent

    event = WebhookEvent.objects.create(event_id=f"evt-{uuid.uuid4()}", event_type="other.kind", payload={})
    return {"pk": event.pk}


ACCESS = {
    "home": Access(ANY_STAFF),
    "core-list-audit-events": Access(frozenset({"admin", "auditor"})),
    "mirror-list-webhook-events": Access(frozenset({"admin", "auditor"})),
    "mirror-replay-webhook-event": Access(frozenset({"admin"}), method="post", kwargs=_webhook_event),
}
