from tests.access import ANY_STAFF, Access
from tests.factories import WebhookEventFactory


def _webhook_event():
    return {"pk": WebhookEventFactory(event_type="other.kind").pk}


ACCESS = {
    "home": Access(ANY_STAFF),
    "core-list-audit-events": Access(frozenset({"admin", "auditor"})),
    "mirror-list-webhook-events": Access(frozenset({"admin", "auditor"})),
    "mirror-replay-webhook-event": Access(frozenset({"admin"}), method="post", kwargs=_webhook_event),
}
