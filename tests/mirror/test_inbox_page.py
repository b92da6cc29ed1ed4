import pytest
from django.urls import reverse

from audit.models import AuditEvent
from tests.factories import WebhookEventFactory


def make_events(n, state="processed", kind="customer.update"):
    return [WebhookEventFactory(event_id=f"evt-{state}-{i}", event_type=kind, state=state) for i in range(n)]


def test_inbox_lists_events_by_state(client_as):
    client = client_as("auditor")
    make_events(2, "processed")
    make_events(1, "failed")
    html = client.get(reverse("mirror-list-inbox-events"), {"state": "failed"}).content.decode()
    assert "evt-failed-0" in html and "evt-processed-0" not in html
    # An auditor reads but cannot replay.
    assert "Replay" not in html
    # The event type in staff words, the API's name on hover.
    assert '<td title="customer.update">Customer changed</td>' in html


def test_inbox_pages_with_a_fixed_number_of_queries(client_as, django_assert_max_num_queries):
    client = client_as("admin")
    make_events(120)
    client.get(reverse("home"))
    with django_assert_max_num_queries(4):
        page = client.get(reverse("mirror-list-inbox-events")).context["page"]
    assert len(page.items) == 50 and page.next_cursor


def test_replay_reprocesses_the_event_and_is_audited(client_as, django_capture_on_commit_callbacks):
    client = client_as("admin")
    (event,) = make_events(1, "failed", kind="something.else")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("mirror-replay-inbox-event", kwargs={"pk": event.pk}), follow=True)
    assert response.status_code == 200
    event.refresh_from_db()
    # Processed again (eagerly here): an unknown kind ends ignored.
    assert event.state == "ignored"
    assert "was replayed" in response.content.decode()
    audit = AuditEvent.objects.get(action="webhook_event.replay")
    assert audit.target_id == str(event.pk) and audit.actor_username == "admin-user"


@pytest.mark.parametrize("role", ["compliance", "operations", "auditor"])
def test_only_admins_replay(client_as, role):
    (event,) = make_events(1, "failed")
    response = client_as(role).post(reverse("mirror-replay-inbox-event", kwargs={"pk": event.pk}))
    assert response.status_code == 403
    event.refresh_from_db()
    assert event.state == "failed"
    assert not AuditEvent.objects.filter(action="webhook_event.replay").exists()
