"""Every page of the role matrix renders from the mirror while the Payments API is down, with
the banner that says so and when the data was last synced; the balance fragment, the one part
of a page that asks the API, says in plain words that it did not answer."""

import datetime as dt

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.factories import SyncRunFactory
from tests.matrix import MATRIX
from tests.payments.access_accounts import _account

pytestmark = pytest.mark.django_db

BANNER = "The Payments API is not answering"
PAGES = sorted(name for name, access in MATRIX.items() if access.method == "get")
LAST_GOOD_SYNC = dt.datetime(2025, 11, 20, 9, 30, tzinfo=dt.UTC)


def _synced_once():
    SyncRunFactory(finished_at=LAST_GOOD_SYNC)
    cache.clear()


def _open_circuit(faulty):
    faulty.client.breaker.open()


def _failed_sync(faulty):
    SyncRunFactory(failed=True)
    cache.clear()


@pytest.mark.parametrize("how", [_open_circuit, _failed_sync], ids=["circuit-open", "last-sync-failed"])
@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_from_the_mirror_with_the_banner(name, how, faulty_upstream, client_as):
    access = MATRIX[name]
    client = client_as(sorted(access.roles - {None})[0])
    url = reverse(name, kwargs=access.kwargs() if access.kwargs else None)
    data = access.data() if access.data else {}
    _synced_once()
    faulty_upstream.fail("down")
    how(faulty_upstream)

    response = client.get(url, data, **access.headers)

    assert response.status_code == 200, (name, response.status_code)
    if response.get("Content-Type", "").startswith("text/html"):
        html = response.content.decode()
        assert "Traceback" not in html
        if "<html" in html:  # a full page, not an htmx fragment
            assert BANNER in html, name
            assert f'synced <time datetime="{LAST_GOOD_SYNC.isoformat()}' in html, name
    else:
        b"".join(response.streaming_content if response.streaming else [response.content])
    # Pages read the mirror: none of them called the API (the open circuit lets nothing out).
    assert faulty_upstream.requests == [] or how is _failed_sync


def test_no_page_calls_the_api_on_load(faulty_upstream, client, make_staff):
    """Reads come from the mirror: a whole tour of the pages sends nothing upstream."""
    faulty_upstream.fail("down")
    users = {}
    for name in PAGES:
        if name in ("payments-view-payment-account-balances", "payments-preview-quote"):
            continue  # the two fragments that exist to ask the API (tested below / in test_quotes)
        access = MATRIX[name]
        role = sorted(access.roles - {None})[0]
        if role not in users:
            users[role] = make_staff(role)
        client.force_login(users[role])
        url = reverse(name, kwargs=access.kwargs() if access.kwargs else None)
        assert client.get(url, access.data() if access.data else {}, **access.headers).status_code == 200, name
    assert faulty_upstream.requests == []


@pytest.mark.parametrize("mode", ["down", "slow", "500", "html-500", "429"])
def test_the_balance_fragment_says_the_api_did_not_answer(mode, faulty_upstream, client_as):
    url = reverse("payments-view-payment-account-balances", kwargs=_account())
    faulty_upstream.fail(mode)
    response = client_as("auditor").get(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert {
        "down": "The Payments API could not be reached; try again in a minute.",
        "slow": "The Payments API did not answer; try again.",
        "500": "The Payments API had an error; try again.",
        "html-500": "The Payments API had an error; try again.",
        "429": "The Payments API is busy (too many requests); try again in a minute.",
    }[mode] in html, html
    # A nice-to-have on a page already shown: one try, no retry, no wait.
    assert len(faulty_upstream.requests) == 1 and faulty_upstream.sleeps == []


def test_the_balance_fragment_with_an_open_circuit_sends_nothing(faulty_upstream, client_as):
    url = reverse("payments-view-payment-account-balances", kwargs=_account())
    faulty_upstream.fail("down")
    faulty_upstream.client.breaker.open()
    html = client_as("auditor").get(url, headers={"HX-Request": "true"}).content.decode()
    assert "The Payments API has been failing, so the back-office is not calling it for a moment" in html
    assert faulty_upstream.requests == []
