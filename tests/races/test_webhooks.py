"""The same webhook delivered twice at once (a provider's retry racing its first try, or two
deliveries of one event): stored once, acknowledged 202 once and as a duplicate once, and
handed to the worker once."""

import base64
import uuid
from unittest import mock

import httpx
import pytest

from mirror.models import WebhookEvent
from tests import webhooks
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "whsec_" + base64.b64encode(b"a-race-secret-of-the-receiver!!").decode()


def test_one_event_delivered_twice_at_once_is_stored_and_handed_on_once(live_server, settings):
    settings.PAYMENTS_WEBHOOK_SECRET = SECRET
    event = {
        "eventId": f"evt_{uuid.uuid4().hex}",
        "eventType": "customer.update",
        "createdAt": "2026-11-22T10:00:00Z",
        "data": {"customerId": str(uuid.uuid4())},
    }
    body, headers = webhooks.signed(event, SECRET)

    def deliver():
        return httpx.post(
            f"{live_server.url}/webhooks/payments",
            content=body,
            headers={"content-type": "application/json", **headers},
            timeout=30,
        )

    with mock.patch("mirror.tasks.drain_webhook_inbox.delay") as handed_on:
        answers = at_once(deliver, deliver)

    assert sorted(answer.status_code for answer in answers) == [200, 202]
    assert [a.json() for a in answers if a.status_code == 200] == [{"received": True, "duplicate": True}]
    assert WebhookEvent.objects.filter(event_id=event["eventId"]).count() == 1
    assert handed_on.call_count == 1
