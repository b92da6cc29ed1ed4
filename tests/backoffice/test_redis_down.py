"""With Redis away (the broker and the shared cache at an address where nothing listens), what
must work without it works: pages, login, storing webhooks; /readyz answers 503 in JSON naming
the broker and the cache. Redis is never stopped here: the settings point at a closed port."""

import time
import uuid

import pytest
from django.urls import reverse

from backoffice.celery import app
from backoffice.settings import REDIS_CACHE_OPTIONS
from mirror.models import WebhookEvent, WebhookSecret
from tests import webhooks
from tests.backoffice.outages import redis_away_url
from tests.factories import SyncRunFactory

pytestmark = pytest.mark.django_db

SECRET = "whsec_" + "c2VjcmV0LW9mLXRoZS1yZWRpcy1kb3duLXRlc3Q="


@pytest.fixture
def redis_away(settings, monkeypatch):
    """The production wiring (django-redis as the shared cache, a Redis broker), pointed at a
    port where nothing listens."""
    url = redis_away_url()
    settings.CACHES = {
        "default": {
            "BACKEND": "backoffice.cache.SharedCache",
            "LOCATION": url,
            "KEY_PREFIX": "backoffice",
            "OPTIONS": dict(REDIS_CACHE_OPTIONS),
        },
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "redis-away"},
    }
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Celery takes CELERY_BROKER_URL from the environment before its configuration.
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    previous = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = url, False
    # The app's connection pools for the real broker are set aside (kombu keeps one per broker
    # address, shared by the whole process: never closed here) and come back afterwards.
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    yield url
    app.conf.broker_url, app.conf.task_always_eager = previous


def test_readyz_answers_503_json_naming_the_broker_and_the_cache(client, redis_away):
    for kind in ("customers", "payment-accounts", "transactions"):
        SyncRunFactory(kind=kind)
    started = time.monotonic()
    response = client.get(reverse("readyz"))
    assert time.monotonic() - started < 10
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["ready"] is False
    assert body["checks"]["broker"] == {"status": "unavailable"}
    assert body["checks"]["cache"] == {"status": "unavailable"}
    assert body["checks"]["database"] == {"status": "ok"}
    assert body["checks"]["worker"] == body["checks"]["beat"] == {"status": "unknown"}


def test_healthz_stays_200_and_reports_redis_away(client, redis_away):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json()["broker"] == response.json()["cache"] == "unavailable"


def test_a_signed_webhook_is_stored(client, caplog, redis_away):
    WebhookSecret.objects.create(webhook_id=f"wh_{uuid.uuid4().hex}", secret=SECRET)
    event = {
        "eventId": f"evt_{uuid.uuid4().hex}",
        "eventType": "customer.update",
        "createdAt": "2026-11-22T10:00:00Z",
        "data": {"customerId": str(uuid.uuid4())},
    }
    body, headers = webhooks.signed(event, SECRET)

    response = client.post("/webhooks/payments", body, content_type="application/json", headers=headers)

    assert response.status_code == 202
    stored = WebhookEvent.objects.get(event_id=event["eventId"])
    assert stored.state == WebhookEvent.State.RECEIVED  # processed by the sweep once Redis is back
    # An outage, not a bug: one warning, no traceback (and so no error report).
    (line,) = [r for r in caplog.records if r.name == "mirror.receiver"]
    assert line.levelname == "WARNING" and line.exc_info is None
    assert "broker is unreachable" in line.getMessage()


def test_login_and_pages_work(client, make_staff, redis_away):
    user = make_staff("operations", "redis-away-ops")
    user.set_password("a-long-enough-password-0")
    user.save()
    response = client.post(
        reverse("account_login"), {"login": "redis-away-ops", "password": "a-long-enough-password-0"}
    )
    assert response.status_code == 302, response.content[:500]
    assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("payments-list-transactions")).status_code == 200
