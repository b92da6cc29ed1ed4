"""The receiver verifies, stores once and answers; processing is covered with the sandbox."""

import base64
import datetime as dt
import uuid
from unittest import mock

import pytest
from django.urls import reverse

from core.models import Counter
from mirror.models import WebhookEvent
from tests import webhooks

SECRET = "whsec_" + base64.b64encode(b"a-test-secret-of-the-receiver!!").decode()
URL = "/webhooks/payments"


@pytest.fixture(autouse=True)
def _secret(settings):
    settings.PAYMENTS_WEBHOOK_SECRET = SECRET


@pytest.fixture
def no_processing():
    with mock.patch("mirror.tasks.drain_webhook_inbox.delay") as delay:
        yield delay


def signed(event, *, secret=SECRET, at=None, msg_id=""):
    return webhooks.signed(event, secret, at=at, msg_id=msg_id)


def event(kind="customer.update", **data):
    return {
        "eventId": f"evt_{uuid.uuid4().hex}",
        "eventType": kind,
        "createdAt": "2026-11-22T10:00:00Z",
        "data": data or {"customerId": str(uuid.uuid4())},
    }


def post(client, body, headers):
    return client.post(URL, body, content_type="application/json", headers=headers)


def test_a_signed_event_is_stored_and_handed_to_the_worker(client, db, no_processing):
    evt = event()
    response = post(client, *signed(evt))
    assert response.status_code == 202
    stored = WebhookEvent.objects.get()
    assert (stored.event_id, stored.event_type, stored.state) == (evt["eventId"], "customer.update", "received")
    no_processing.assert_called_once_with()


def test_the_same_event_twice_is_stored_and_processed_once(client, db, no_processing):
    evt = event()
    assert post(client, *signed(evt)).status_code == 202
    again = post(client, *signed(evt))
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert WebhookEvent.objects.count() == 1
    assert no_processing.call_count == 1


def test_a_stored_event_holds_the_payload_and_its_times(client, db, no_processing):
    evt = event(customerId="cus_1", note="nul\x00here", amount="10.50")
    before = dt.datetime.now(tz=dt.UTC)
    assert post(client, *signed(evt)).status_code == 202
    stored = WebhookEvent.objects.get()
    assert stored.payload == {**evt, "data": {"customerId": "cus_1", "note": "nul\ufffdhere", "amount": "10.50"}}
    assert stored.occurred_at == dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.UTC)
    assert before <= stored.received_at <= dt.datetime.now(tz=dt.UTC)
    assert (stored.attempts, stored.last_error, stored.processed_at, stored.not_before) == (0, "", None, None)


@pytest.mark.parametrize(
    ("created_at", "stored_as"),
    [
        ("0001-01-01T00:00:00+00:01", dt.datetime.min.replace(tzinfo=dt.UTC)),
        ("9999-12-31T23:59:59-00:01", dt.datetime.max.replace(tzinfo=dt.UTC)),
        ("2026-06-30t23:59:60z", dt.datetime(2026, 6, 30, 23, 59, 59, tzinfo=dt.UTC)),
    ],
)
def test_a_valid_moment_at_the_calendar_s_edge_is_stored(client, db, no_processing, created_at, stored_as):
    evt = {**event(), "createdAt": created_at}
    assert post(client, *signed(evt)).status_code == 202
    assert WebhookEvent.objects.get().occurred_at == stored_as


@pytest.mark.parametrize("where", ["eventId", "data"])
def test_text_the_database_cannot_hold_is_refused_and_nothing_is_stored(client, db, no_processing, where):
    evt = event()
    if where == "eventId":
        evt["eventId"] = "evt_\ud800"  # a lone surrogate: no UTF-8 for it
    else:
        evt["data"]["name"] = "\ud800"
    body, headers = signed(evt)
    response = post(client, body, headers)
    assert response.status_code == 400
    assert response.json() == {"error": "malformed"}
    assert WebhookEvent.objects.count() == 0


def test_a_duplicate_inside_a_transaction_leaves_the_transaction_usable(client, db, no_processing):
    from django.db import transaction

    from mirror.receiver import store

    evt = event()
    with transaction.atomic():
        assert store(evt) is True
        assert store(evt) is False
        assert WebhookEvent.objects.filter(event_id=evt["eventId"]).count() == 1


@pytest.mark.parametrize(
    "tamper",
    [
        "wrong-secret",
        "changed-body",
        "no-signature",
        "garbage-signature",
        "stale-timestamp",
        "future-timestamp",
    ],
)
def test_bad_signatures_are_refused_and_nothing_is_stored(client, db, no_processing, tamper):
    evt = event()
    other = "whsec_" + base64.b64encode(b"somebody-else-secret-1234567890").decode()
    at = {
        "stale-timestamp": dt.datetime.now(tz=dt.UTC) - dt.timedelta(minutes=6),
        "future-timestamp": dt.datetime.now(tz=dt.UTC) + dt.timedelta(minutes=6),
    }.get(tamper)
    body, headers = signed(evt, secret=other if tamper == "wrong-secret" else SECRET, at=at)
    if tamper == "changed-body":
        body = body.replace("customer.update", "customer.updatf")
    if tamper == "no-signature":
        del headers["webhook-signature"]
    if tamper == "garbage-signature":
        headers["webhook-signature"] = "v1,not base64!! v2"
    response = post(client, body, headers)
    assert response.status_code == 401
    assert WebhookEvent.objects.count() == 0
    assert Counter.objects.get(name="webhooks.refused.bad-signature").value == 1
    no_processing.assert_not_called()


def test_a_signed_body_that_is_not_an_event_is_refused(client, db, no_processing):
    response = post(client, *signed({"hello": "world"}))
    assert response.status_code == 400
    assert WebhookEvent.objects.count() == 0


@pytest.mark.parametrize("body", ["not json at all", '{"eventId": "evt_1", ', "NaNx", ""])
def test_a_signed_body_that_is_not_json_is_malformed_not_forged(client, db, no_processing, body):
    response = post(client, body, webhooks.signature_headers(SECRET, body))
    assert response.status_code == 400
    assert response.json() == {"error": "malformed"}
    assert Counter.objects.get(name="webhooks.refused.malformed").value == 1
    assert not Counter.objects.filter(name="webhooks.refused.bad-signature").exists()
    assert WebhookEvent.objects.count() == 0


def test_an_oversized_body_is_refused_before_verification(client, db, no_processing):
    body, headers = signed(event(blob="x" * (1024 * 1024 + 10)))
    response = post(client, body, headers)
    assert response.status_code == 413
    assert WebhookEvent.objects.count() == 0


def test_only_post_is_accepted(client, db):
    assert client.get(URL).status_code == 405


def test_secret_rotation_accepts_a_stored_secret(client, db, settings, no_processing):
    from tests.factories import WebhookSecretFactory

    settings.PAYMENTS_WEBHOOK_SECRET = ""
    WebhookSecretFactory(secret=SECRET)
    assert post(client, *signed(event())).status_code == 202


def test_an_unknown_event_kind_is_stored_and_marked_ignored(client, db):
    evt = event(kind="account.renamed", accountId="a-1")
    assert post(client, *signed(evt)).status_code == 202
    assert WebhookEvent.objects.get().state == "ignored"


def test_receiver_is_outside_csrf_and_login(client, db, no_processing):
    # The API cannot log in nor carry a CSRF token: the signature is the authentication.
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    assert post(strict, *signed(event())).status_code == 202
    assert reverse("mirror-receive-webhook") == URL
