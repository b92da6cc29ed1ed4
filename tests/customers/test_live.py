"""The customer page and the queue's counts follow the mirror while open (core/live.py): the
poll answers 304 while nothing changed, and the changed parts, never a form, once it did."""

import datetime as dt
import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from customers.models import CustomerNote
from customers.upserts import customers_upsert
from tests.conftest import authenticated_now
from tests.customers.test_mirror_upsert import item
from upstream.mirrored import Source

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def poller_url(html: str) -> str:
    match = re.search(r'<div id="live" hidden hx-get="([^"]+)"', html)
    assert match, "the page has no poller"
    return match.group(1).replace("&amp;", "&")


def assert_nothing_typed_is_replaced(html: str) -> None:
    """A live answer replaces no input staff type in: its forms are buttons (the customer
    page's header), with hidden inputs only."""
    assert set(re.findall(r'<input[^>]* type="(\w+)"', html)) <= {"hidden"}
    assert "<textarea" not in html and "<select" not in html


@pytest.fixture
def under_review():
    customers_upsert(items=[item("c-1", status="UNDER_REVIEW", at=T0)], seen_by=Source.WEBHOOK)
    return "c-1"


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


def test_unchanged_answers_an_empty_304(reviewer, under_review):
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    assert url.startswith(reverse("customers-view-customer-live", args=[under_review]) + "?v=")

    response = reviewer.get(url)

    assert response.status_code == 304
    assert response.content == b""
    assert response["Cache-Control"] == "no-store"
    version = response["ETag"].strip('"')
    assert f"v={version}&" in url


def test_if_none_match_is_honoured_like_the_version(reviewer, under_review):
    live = reverse("customers-view-customer-live", args=[under_review])
    tag = reviewer.get(live)["ETag"]
    assert reviewer.get(live, headers={"If-None-Match": tag}).status_code == 304
    assert reviewer.get(live, headers={"If-None-Match": '"other"'}).status_code == 200


def test_a_webhook_decision_answers_the_new_parts_and_no_form(reviewer, under_review):
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    customers_upsert(items=[item("c-1", status="ACTIVE", at=T0 + dt.timedelta(seconds=5))], seen_by=Source.WEBHOOK)

    response = reviewer.get(url)

    assert response.status_code == 200
    html = response.content.decode()
    status = re.search(
        r'<span class="badge status-ACTIVE" id="customer-status" hx-swap-oob="true" title="ACTIVE">([^<]+)<', html
    )
    assert status and status.group(1) == "Active"
    for part in ("profile-facts", "case-facts", "issues", "notes-list", "handouts", "timeline"):
        assert f'id="{part}" hx-swap-oob="true"' in html, part
    assert_nothing_typed_is_replaced(html)
    new_url = poller_url(html)
    assert new_url != url
    assert reviewer.get(new_url).status_code == 304


def test_the_header_actions_follow_the_status(reviewer, under_review):
    page = reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode()
    assert "Refill hosted form" not in page
    url = poller_url(page)
    later = T0 + dt.timedelta(seconds=5)
    customers_upsert(items=[item("c-1", status="NEEDS_ADDITIONAL_INFORMATION", at=later)], seen_by=Source.WEBHOOK)

    html = reviewer.get(url).content.decode()

    actions = re.search(r'<div class="actions" id="customer-actions" hx-swap-oob="true">(.*?)</div>', html, re.S)
    assert actions and "Refill hosted form" in actions.group(1) and "Edit KYC" in actions.group(1)
    assert '<div id="customer-notice" hx-swap-oob="true"></div>' in html


def test_a_colleagues_note_changes_the_version(reviewer, under_review, make_staff):
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    colleague = Client()
    colleague.force_login(make_staff("compliance", "colleague"))
    colleague.post(reverse("customers-add-note", args=[under_review]), {"body": "Called the customer."})
    assert CustomerNote.objects.count() == 1

    response = reviewer.get(url)

    assert response.status_code == 200
    assert "Called the customer." in response.content.decode()


def test_an_unchanged_poll_costs_two_small_queries_then_one(
    reviewer, under_review, django_assert_num_queries, settings
):
    from core import live

    live._ALIVE.clear()
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    with django_assert_num_queries(2):  # the version, and that the session exists: no user or permission read
        assert reviewer.get(url).status_code == 304
    with django_assert_num_queries(1):  # the session was seen alive a moment ago
        assert reviewer.get(url).status_code == 304
    settings.LIVE_SESSION_RECHECK_SECONDS = 0
    with django_assert_num_queries(2):  # its time is up: read again
        assert reviewer.get(url).status_code == 304


def _holding_on(client, url: str):
    """A client that kept the session cookie the poller's token was given to."""
    kept = Client()
    kept.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert kept.get(url).status_code == 304
    return kept


def test_logging_out_ends_the_pollers_token(reviewer, under_review):
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    kept = _holding_on(reviewer, url)

    assert reviewer.post(reverse("account_logout")).status_code == 302

    response = kept.get(url)  # the cookie and the token, replayed after the logout
    assert response.status_code == 302 and response["Location"].startswith(reverse("account_login"))


def test_deactivating_the_member_ends_the_pollers_token(reviewer, under_review, make_staff):
    from django.contrib.auth import get_user_model

    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    kept = _holding_on(reviewer, url)
    admin, admin_user = Client(), make_staff("admin", "the-admin")
    admin.force_login(admin_user)
    authenticated_now(admin, admin_user)
    member = get_user_model().objects.get(username="compliance-user")

    assert admin.post(reverse("staff-deactivate-staff", kwargs={"pk": member.pk})).status_code == 302
    member.refresh_from_db()
    assert not member.is_active

    response = kept.get(url)
    assert response.status_code == 302 and response["Location"].startswith(reverse("account_login"))


def test_without_the_pages_token_the_poll_is_checked_as_any_page(reviewer, under_review, django_assert_num_queries):
    url = poller_url(reviewer.get(reverse("customers-view-customer", args=[under_review])).content.decode())
    forged = re.sub(r"t=[^&]+", "t=forged", url)
    with django_assert_num_queries(4):  # session, user, permissions, version
        assert reviewer.get(forged).status_code == 304
    reviewer.logout()
    response = reviewer.get(url)  # the session cookie the token was given to is gone
    assert response.status_code == 302 and response["Location"].startswith(reverse("account_login"))


def test_an_unknown_customer_is_404(reviewer, under_review):
    assert reviewer.get(reverse("customers-view-customer-live", args=["nobody"])).status_code == 404


def test_the_queue_counts_follow_the_mirror(reviewer, under_review):
    page = reviewer.get(reverse("customers-list-customers")).content.decode()
    url = poller_url(page)
    assert url.startswith(reverse("customers-list-counts-live"))

    first = reviewer.get(url)  # the page's counts may be a minute old: the first poll refreshes
    assert first.status_code == 200
    current = poller_url(first.content.decode())
    assert reviewer.get(current).status_code == 304

    customers_upsert(items=[item("c-2", status="UNDER_REVIEW", at=T0 + dt.timedelta(minutes=1))], seen_by=Source.SYNC)
    changed = reviewer.get(current)

    assert changed.status_code == 200
    html = changed.content.decode()
    assert 'id="status-counts" aria-label="Customers per status" hx-swap-oob="true"' in html
    assert re.search(r'status-UNDER_REVIEW">Under review <span class="count">2</span>', html)
