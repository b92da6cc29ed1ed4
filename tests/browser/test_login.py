import pytest
from playwright.sync_api import expect

from tests.browser.nav import nav_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("role", "sees_audit"), [("operations", False), ("auditor", True)])
def test_staff_logs_in_and_sees_only_their_navigation(page, live_server, make_staff, screenshot, role, sees_audit):
    make_staff(role)
    page.goto(f"{live_server.url}/")
    expect(page).to_have_url(f"{live_server.url}/accounts/login/?next=/")
    page.get_by_label("Username").fill(f"{role}-user")
    page.get_by_label("Password").fill("correct horse battery")
    screenshot("login")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome, {role}-user")).to_be_visible()
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.locator("summary", has_text="Administration")).to_have_count(1 if sees_audit else 0)
    if sees_audit:
        expect(nav_link(page, "Administration", "Audit log")).to_be_visible()
    screenshot("home")


def test_wrong_password_shows_the_generic_message(page, live_server, make_staff):
    make_staff("compliance")
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("compliance-user")
    page.get_by_label("Password").fill("not it")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("Wrong username or password.")
