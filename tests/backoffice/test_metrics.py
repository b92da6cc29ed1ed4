"""/metrics: guarded by METRICS_TOKEN, and every figure of docs/operations.md present."""

import datetime as dt

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from backoffice.celery import app
from backoffice.health import mark_heartbeat
from core.middleware import operation
from core.models import hold_lock
from mirror.tasks import SKIPPED, refresh_transactions, sync_mirror
from paymentsapi import PaymentsApiError
from tests.factories import SyncRunFactory, WebhookEventFactory
from upstream.client import client_from_settings

pytestmark = pytest.mark.django_db
TOKEN = "metrics-token-for-tests-0123456789"


@pytest.fixture
def token(settings):
    settings.METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(client) -> dict:
    response = client.get(reverse("metrics"), HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_off_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get(reverse("metrics"), HTTP_AUTHORIZATION="Bearer anything").status_code == 404


def test_guarded_by_the_token(client, token):
    missing = client.get(reverse("metrics"))
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"].startswith("Bearer")
    assert client.get(reverse("metrics"), HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get(reverse("metrics"), HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 401
    assert b"backoffice_" not in missing.content


def test_request_latency_by_view(client, token):
    client.get(reverse("healthz"))
    samples = scrape(client)
    key = ("backoffice_request_seconds_count", (("method", "GET"), ("status", "2xx"), ("view", "healthz")))
    assert samples[key] >= 1


def test_upstream_calls_by_operation_and_outcome_and_the_breaker(client, token):
    answers = iter([httpx.Response(200, json={}), httpx.Response(503, json={})])
    api = client_from_settings(transport=httpx.MockTransport(lambda request: next(answers)), max_retries=0)
    before_ok = REGISTRY.get_sample_value(
        "backoffice_upstream_calls_total", {"operation": "GET /customer/{id}", "outcome": "ok"}
    )
    api._request("GET", "/customer/cus_0001")
    with pytest.raises(PaymentsApiError):
        api._request("GET", "/customer/cus_0002")
    api.breaker.open()
    samples = scrape(client)
    ok = samples[("backoffice_upstream_calls_total", (("operation", "GET /customer/{id}"), ("outcome", "ok")))]
    assert ok == (before_ok or 0) + 1
    assert samples[("backoffice_upstream_calls_total", (("operation", "GET /customer/{id}"), ("outcome", "5xx")))] >= 1
    assert samples[("backoffice_upstream_circuit_state", ())] == 2
    api.breaker.close()
    assert scrape(client)[("backoffice_upstream_circuit_state", ())] == 0


def test_operation_labels_hide_ids():
    assert operation("GET", "/payment-accounts/pa_7f3/balances") == "GET /payment-accounts/{id}/balances"
    assert operation("POST", "/customers") == "POST /customers"


def test_inbox_backlog_and_oldest_waiting_event(client, token):
    old = WebhookEventFactory()
    WebhookEventFactory()
    WebhookEventFactory(state="processed")
    WebhookEventFactory(state="failed", attempts=6)  # given up: replayed by hand
    type(old).objects.filter(pk=old.pk).update(received_at=timezone.now() - dt.timedelta(minutes=10))
    samples = scrape(client)
    assert samples[("backoffice_inbox_backlog", ())] == 2
    assert samples[("backoffice_inbox_given_up", ())] == 1
    assert 590 <= samples[("backoffice_inbox_oldest_waiting_seconds", ())] <= 700


def test_sync_age_per_kind_and_heartbeats(client, token):
    SyncRunFactory(kind="customers", finished_at=timezone.now() - dt.timedelta(minutes=5))
    mark_heartbeat("worker")
    samples = scrape(client)
    assert 290 <= samples[("backoffice_sync_last_success_age_seconds", (("kind", "customers"),))] <= 400
    assert ("backoffice_sync_last_success_age_seconds", (("kind", "transactions"),)) not in samples  # never
    assert samples[("backoffice_heartbeat_age_seconds", (("process", "worker"),))] < 60


def test_task_runtimes_and_failures(client, token):
    @app.task(name="tests.metrics_fails")
    def fails():
        raise RuntimeError("no")

    @app.task(name="tests.metrics_runs")
    def runs():
        return 1

    runs.apply()
    assert fails.apply(throw=False).failed()  # as in a worker: the error is the task's result
    samples = scrape(client)
    assert samples[("backoffice_task_seconds_count", (("task", "tests.metrics_runs"),))] >= 1
    assert samples[("backoffice_task_failures_total", (("task", "tests.metrics_fails"),))] >= 1


@pytest.mark.parametrize("task", [sync_mirror, refresh_transactions])
def test_a_sync_that_finds_another_running_is_skipped_not_failed(client, token, task):
    name = ("backoffice_task_failures_total", (("task", task.name),))
    before = scrape(client).get(name, 0)
    with hold_lock("mirror-sync", ttl=dt.timedelta(minutes=1)):
        result = task.apply(throw=False)
    assert result.successful() and result.result == SKIPPED
    assert scrape(client).get(name, 0) == before
