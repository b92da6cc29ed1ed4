"""The browser reports its time zone once; from then on pages show local times, UTC on hover."""

import datetime as dt

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser.nav import log_in, own_menu_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, "timezone_id": "Europe/Berlin"}


def test_the_browser_zone_is_kept_and_used(page, live_server, make_staff, screenshot):
    from staff.models import StaffPreference
    from tests.factories import CustomerFactory

    customer = CustomerFactory(name="Ada Lovelace", status_since=dt.datetime(2026, 1, 15, 9, 5, tzinfo=dt.UTC))
    user = make_staff("compliance")
    detect_url = f"{live_server.url}{reverse('staff-set-time-zone')}"
    # The home page sends the zone once it has loaded: wait for the server's answer (it has
    # kept the zone by then), however long a loaded machine takes.
    with page.expect_response(lambda r: r.url == detect_url and r.request.method == "POST") as detected:
        log_in(page, live_server, "compliance-user")
        expect(own_menu_link(page, "Time zone: UTC")).to_be_visible()  # nothing kept yet
    assert detected.value.status == 204

    page.goto(f"{live_server.url}/customers/{customer.customer_id}/")
    expect(own_menu_link(page, "Time zone: Europe/Berlin")).to_be_visible()
    assert StaffPreference.objects.get(user=user).time_zone == "Europe/Berlin"
    shown = page.locator('span[title="2026-01-15 09:05 UTC"]').first
    expect(shown).to_have_text("2026-01-15 10:05")
    screenshot("local-times")
