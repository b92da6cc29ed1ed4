"""Read pages keep working from the mirror when the API fails, and say so."""

from django.core.cache import cache
from django.urls import reverse

from mirror.models import SyncRun
from tests.factories import SyncRunFactory
from upstream.client import get_client

BANNER = "The Payments API is not answering"


def _run(outcome):
    SyncRunFactory(outcome=outcome)
    cache.clear()


def test_no_banner_while_syncs_succeed(client_as):
    _run(SyncRun.Outcome.SUCCEEDED)
    assert BANNER not in client_as("auditor").get(reverse("home")).content.decode()


def test_a_failed_last_sync_shows_the_banner_with_the_last_good_sync(client_as):
    _run(SyncRun.Outcome.SUCCEEDED)
    _run(SyncRun.Outcome.FAILED)
    html = client_as("auditor").get(reverse("home")).content.decode()
    assert BANNER in html and "synced <time" in html


def test_an_open_circuit_shows_the_banner(client_as):
    cache.clear()
    breaker = get_client().breaker
    breaker.open()
    try:
        response = client_as("operations").get(reverse("home"))
    finally:
        breaker.close()
    assert response.status_code == 200
    assert BANNER in response.content.decode()


def test_the_banner_costs_no_query_once_cached(client_as):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_as("auditor")
    cache.clear()
    with CaptureQueriesContext(connection) as first:
        client.get(reverse("home"))
    with CaptureQueriesContext(connection) as second:
        client.get(reverse("home"))
    assert any("mirror_syncrun" in q["sql"] for q in first.captured_queries)
    assert not any("mirror_syncrun" in q["sql"] for q in second.captured_queries)
