"""Sentry on SENTRY_DSN: the Django and Celery integrations, no personal data in what is sent."""

import pytest
import sentry_sdk
from sentry_sdk.transport import Transport

from backoffice.observability import MASK, init_sentry, scrub_event


class Captured(Transport):
    events: list = []

    def capture_envelope(self, envelope):
        for item in envelope.items:
            if item.type == "event":
                Captured.events.append(item.payload.json)


@pytest.fixture
def sentry(monkeypatch):
    Captured.events = []
    real_init = sentry_sdk.init
    monkeypatch.setattr(sentry_sdk, "init", lambda **options: real_init(transport=Captured, **options))
    init_sentry(dsn="https://public@sentry.example.invalid/1", environment="test", release="r1", traces_sample_rate=0)
    yield Captured.events
    sentry_sdk.get_client().close()
    real_init()  # no DSN: reporting off again


def test_init_sends_no_personal_data_and_masks_what_is_left(sentry):
    client = sentry_sdk.get_client()
    assert client.options["send_default_pii"] is False
    assert client.options["before_send"] is scrub_event
    names = {type(i).__name__ for i in client.integrations.values()}
    assert {"DjangoIntegration", "CeleryIntegration"} <= names

    with sentry_sdk.new_scope() as scope:
        scope.set_extra("customer", {"email": "ada@example.com", "status": "ACTIVE", "nationalIdNumber": "123-45-6789"})
        scope.set_user({"id": 7, "email": "staff@example.com", "username": "ada"})
        sentry_sdk.capture_message("Could not reach the API with Bearer sbx_live_secret for ada@example.com")
    sentry_sdk.flush()
    (event,) = sentry
    text = str(event)
    for secret in ("ada@example.com", "123-45-6789", "sbx_live_secret", "staff@example.com"):
        assert secret not in text
    assert event["extra"]["customer"]["status"] == "ACTIVE"
    assert event["extra"]["customer"]["email"] == MASK
    assert event["user"] == {"id": 7}


def test_scrub_drops_request_bodies_and_cookies():
    event = {
        "request": {
            "url": "http://testserver/customers/1/kyc",
            "data": {"legalFirstName": "Ada"},
            "cookies": {"sessionid": "abc"},
            "headers": {"Authorization": "Bearer x", "User-Agent": "curl"},
        },
        "exception": {"values": [{"stacktrace": {"frames": [{"vars": {"api_key": "'sbx_1'", "n": "3"}}]}}]},
    }
    scrubbed = scrub_event(event)
    assert "data" not in scrubbed["request"] and "cookies" not in scrubbed["request"]
    assert scrubbed["request"]["headers"] == {"Authorization": MASK, "User-Agent": "curl"}
    assert scrubbed["exception"]["values"][0]["stacktrace"]["frames"][0]["vars"] == {"api_key": MASK, "n": "3"}
