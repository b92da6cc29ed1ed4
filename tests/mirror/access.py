"""This app's URLs in the role matrix (see tests/access.py)."""

import uuid

from tests.access import Access


def _inbox_event():
    from mirror.models import WebhookEvent

    event = WebhookEvent.objects.create(event_id=f"evt-{uuid.uuid4()}", event_type="other.kind", payload={})
    return {"pk": event.pk}


ACCESS = {
    "mirror-list-inbox-events": Access(frozenset({"admin", "auditor"})),
    "mirror-replay-inbox-event": Access(frozenset({"admin"}), method="post", kwargs=_inbox_event),
}
