"""The browser reports its time zone once; from then on pages show local times, UTC on hover."""

import datetime as dt
import time

import pytest
from playwright.sync_api import expect

from tests.browser.nav import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, "timezone_id": "Europe/Berlin"}


def test_the_browser_zone_is_kept_and_used(page, live_server, make_staff, screenshot):
    from core.models import StaffPreference
    from tests.factories import CustomerFactory

    customer = CustomerFactory(name="Ada Lovelace", status_since=dt.datetime(2026, 1, 15, 9, 5, tzinfo=dt.UTC))
    user = make_staff("compliance")
    log_in(page, live_server, "compliance-user")
    expect(page.get_by_role("link", name="UTC")).to_be_visible()  # nothing kept yet
    for _ in range(50):  # the page sends the zone once it has loaded
        if StaffPreference.objects.filter(user=user).exists():
            break
        time.sleep(0.1)

    page.goto(f"{live_server.url}/customers/{customer.customer_id}/")
    expect(page.locator(".topbar .tz")).to_have_text("Europe/Berlin")
    assert StaffPreference.objects.get(user=user).time_zone == "Europe/Berlin"
    shown = page.locator('span[title="2026-01-15 09:05 UTC"]').first
    expect(shown).to_have_text("2026-01-15 10:05")
    screenshot("local-times")
