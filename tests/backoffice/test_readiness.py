"""/readyz: 503 naming the part that is missing (broker, worker, beat, a sync), 200 once it is back."""

import datetime as dt
import time
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from backoffice.health import HEARTBEAT_TASK, SYNC_KINDS, beat_published, mark_heartbeat
from backoffice.tasks import heartbeat
from tests.backoffice.outages import database_down
from tests.factories import SyncRunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def production_like(settings):
    """A broker configured (it answers), both heartbeats fresh, every sync kind just done."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.HEARTBEAT_STALE_SECONDS = 120
    settings.SYNC_STALE_SECONDS = 3600
    for kind in SYNC_KINDS:
        SyncRunFactory(kind=kind)
    mark_heartbeat("worker")
    mark_heartbeat("beat")
    with mock.patch("backoffice.health.broker_status", return_value="ok") as broker:
        yield broker


def readyz(client):
    response = client.get(reverse("readyz"))
    return response.status_code, response.json()


def test_ready_when_every_part_is_well(client, production_like):
    status, body = readyz(client)
    assert status == 200, body
    assert body["ready"] is True
    assert body["checks"]["worker"]["status"] == "ok"
    assert body["checks"]["sync"]["customers"]["status"] == "ok"


def test_broker_down_then_back(client, production_like):
    production_like.return_value = "unavailable"
    status, body = readyz(client)
    assert (status, body["ready"], body["checks"]["broker"]["status"]) == (503, False, "unavailable")
    production_like.return_value = "ok"
    assert readyz(client)[0] == 200


def test_no_worker_heartbeat_then_a_worker_runs_the_heartbeat(client, production_like):
    mark_heartbeat("worker", at=time.time() - 600)
    status, body = readyz(client)
    assert status == 503
    assert body["checks"]["worker"] == {"status": "stale", "ageSeconds": 600}
    assert body["checks"]["beat"]["status"] == "ok"
    heartbeat.apply()  # what a worker does with beat's message
    assert readyz(client)[0] == 200


def test_worker_never_seen_is_missing(client, production_like):
    from django.core.cache import cache

    cache.delete("heartbeat:worker")
    status, body = readyz(client)
    assert status == 503
    assert body["checks"]["worker"]["status"] == "missing"


def test_beat_is_seen_when_it_sends_the_heartbeat(client, production_like):
    mark_heartbeat("beat", at=time.time() - 600)
    assert readyz(client)[1]["checks"]["beat"]["status"] == "stale"
    beat_published(sender="mirror.tasks.sync_mirror")  # another task proves nothing of beat
    assert readyz(client)[0] == 503
    beat_published(sender=HEARTBEAT_TASK)
    assert readyz(client)[0] == 200


def test_stale_sync_then_a_fresh_one(client, production_like, settings):
    from mirror.models import SyncRun

    SyncRun.objects.filter(kind="payment-accounts").update(finished_at=timezone.now() - dt.timedelta(hours=2))
    SyncRunFactory(kind="payment-accounts", failed=True)  # a failed run does not count
    status, body = readyz(client)
    assert status == 503
    assert body["checks"]["sync"]["payment-accounts"]["status"] == "stale"
    assert body["checks"]["sync"]["customers"]["status"] == "ok"
    SyncRunFactory(kind="payment-accounts")
    assert readyz(client)[0] == 200


def test_database_down_is_not_ready(client, production_like):
    with database_down():
        status, body = readyz(client)
    assert status == 503
    assert body["checks"]["database"]["status"] == "unavailable"


def test_without_a_broker_worker_and_beat_are_eager(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    for kind in SYNC_KINDS:
        SyncRunFactory(kind=kind)
    status, body = readyz(client)
    assert status == 200, body
    assert body["checks"]["worker"] == {"status": "eager"}
    assert body["checks"]["broker"] == {"status": "eager"}


def test_the_heartbeat_is_on_beats_schedule(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["heartbeat"]
    assert entry["task"] == HEARTBEAT_TASK
    assert entry["schedule"] < settings.HEARTBEAT_STALE_SECONDS
