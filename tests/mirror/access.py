"""This app's URLs in the role matrix (see tests/access.py)."""

from tests.access import Access
from tests.factories import WebhookEventFactory


def _inbox_event():
    return {"pk": WebhookEventFactory(event_type="other.kind").pk}


ACCESS = {
    "mirror-list-inbox-events": Access(frozenset({"admin", "auditor"})),
    "mirror-export-inbox-events": Access(frozenset({"admin", "auditor"})),
    "mirror-replay-inbox-event": Access(frozenset({"admin"}), method="post", kwargs=_inbox_event),
}
