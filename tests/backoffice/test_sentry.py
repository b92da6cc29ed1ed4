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


def test_routine_conditions_are_not_reported(sentry, client, db, settings):
    """A request for a host not in ALLOWED_HOSTS (a scanner, a probe by IP) and a sync that
    finds another running are expected: no event."""
    import datetime as dt

    from core.models import hold_lock
    from mirror.tasks import SKIPPED, sync_mirror

    settings.ALLOWED_HOSTS = ["backoffice.example.com"]
    assert client.get("/accounts/login/", HTTP_HOST="203.0.113.9").status_code == 400
    with hold_lock("mirror-sync", ttl=dt.timedelta(minutes=1)):
        assert sync_mirror.apply(throw=False).result == SKIPPED
    sentry_sdk.flush()
    assert sentry == []


def test_local_variables_are_never_sent(sentry):
    assert sentry_sdk.get_client().options["include_local_variables"] is False

    import uuid

    password = uuid.uuid4().hex  # made at run time: not in the source lines Sentry sends

    def fails(conninfo):
        raise RuntimeError("no")

    try:
        fails(f"host=db password={password}")
    except RuntimeError:
        sentry_sdk.capture_exception()
    sentry_sdk.flush()
    (event,) = sentry
    assert password not in str(event)
