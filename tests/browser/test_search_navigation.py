"""The top bar in the browser: one line at 1280 px for every demo role, menus by keyboard, `/`
to the search box, and an id typed there and Enter opening its record."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.access import Role
from tests.browser.nav import log_in, nav_link
from tests.factories import CustomerFactory, TransactionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}


def tops(page) -> dict[str, float]:
    """The top of each piece of the top bar: the brand, each menu, the search box, the member's menu."""
    pieces = {"brand": page.locator(".topbar .brand"), "search": page.locator("#topsearch-q")}
    for summary in page.locator(".topbar summary").all():
        pieces[summary.inner_text()] = summary
    return {name: piece.bounding_box()["y"] for name, piece in pieces.items()}


@pytest.mark.parametrize("role", [role.value for role in Role])
def test_the_top_bar_is_one_line_at_1280_px_for_every_demo_role(page, live_server, make_staff, screenshot, role):
    make_staff(role, username=f"demo-{role}")  # as seed_demo names them: the longest names
    log_in(page, live_server, f"demo-{role}")
    found = tops(page)
    assert len(found) >= 5, found  # the brand, two menus at least, the search box, the member
    assert max(found.values()) - min(found.values()) <= 4, found
    bar = page.locator(".topbar").bounding_box()
    assert bar["height"] <= 56, bar
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot("top-bar")


def test_menus_open_by_keyboard_and_close_with_escape(page, live_server, make_staff):
    make_staff("admin", username="demo-admin")
    log_in(page, live_server, "demo-admin")
    payments = page.locator(".topbar summary", has_text="Payments")
    payments.focus()
    page.keyboard.press("Enter")
    link = page.get_by_role("navigation", name="Main").get_by_role("link", name="Transactions", exact=True)
    expect(link).to_be_visible()
    page.keyboard.press("Escape")
    expect(link).to_be_hidden()
    expect(payments).to_be_focused()
    # One menu at a time.
    payments.click()
    page.locator(".topbar summary", has_text="Administration").click()
    expect(link).to_be_hidden()
    expect(nav_link(page, "Administration", "Staff")).to_be_visible()
    # The member's own menu says what it holds.
    page.locator(".topbar .menus.own summary").click()
    expect(page.get_by_role("link", name="Security: second factor and passkeys")).to_be_visible()
    expect(page.get_by_role("link", name="Time zone: UTC")).to_be_visible()


def test_slash_goes_to_the_search_box_unless_typing(page, live_server, make_staff):
    make_staff("compliance", username="demo-compliance")
    log_in(page, live_server, "demo-compliance")
    box = page.locator("#topsearch-q")
    page.keyboard.press("/")
    expect(box).to_be_focused()
    expect(box).to_have_value("")
    # In a field, "/" is typed like any character.
    page.goto(f"{live_server.url}{reverse('customers-list-customers')}?view=all")
    field = page.get_by_label("Name or e-mail starts with")
    field.click()
    page.keyboard.type("a/b")
    expect(field).to_have_value("a/b")
    expect(box).not_to_be_focused()


def test_an_id_typed_and_enter_opens_the_record(page, live_server, make_staff):
    ada = CustomerFactory(name="Ada Lovelace", email="ada@example.com")
    tx = TransactionFactory(customer=ada)
    make_staff("operations", username="demo-operations")
    log_in(page, live_server, "demo-operations")
    page.keyboard.press("/")
    page.keyboard.type(tx.transaction_id)
    with page.expect_navigation(wait_until="load"):
        page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}{reverse('payments-view-transaction', args=[tx.transaction_id])}")

    # While typing, the drop-down lists what is found; a click opens it.
    page.keyboard.press("/")
    page.keyboard.type("Ada Lov")
    result = page.locator("#topsearch-results").get_by_role("link", name="Ada Lovelace")
    expect(result).to_be_visible()
    with page.expect_navigation(wait_until="load"):
        result.click()
    expect(page).to_have_url(f"{live_server.url}{reverse('customers-view-customer', args=[ada.customer_id])}")
