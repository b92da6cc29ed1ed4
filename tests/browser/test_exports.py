"""The export button in the browser: refused filters are said on the button, not a failed download."""

import pytest
from playwright.sync_api import expect

from tests.browser.nav import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_export_with_a_refused_filter_says_why_on_the_button(page, live_server, make_staff):
    make_staff("operations")
    log_in(page, live_server, "operations-user", next_path="/payments/transactions/?status=BOGUS")
    expect(page.get_by_role("alert")).to_contain_text("Check the filters:")
    button = page.get_by_role("link", name="Export these as CSV")
    button.click()
    expect(page.locator("a[data-export]")).to_contain_text("Not exported. Check the filters:")
    expect(page.locator("a[data-export]")).to_contain_text("BOGUS")
