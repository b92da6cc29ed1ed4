"""An admin adds a staff member in the browser; the member chooses a password through the
one-time link, enrols an authenticator app (codes computed here) and lands on their home page.
The second factor is required, as when DEBUG is off."""

import re

import pytest
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from playwright.sync_api import expect

from tests.browser.nav import follow
from tests.totp import totp_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A code typed here reaches the server this much later at most, on a loaded machine (a
# screenshot, a click, the live server's answer).
BROWSER_ROUND_TRIP = 10


def test_admin_adds_a_member_who_sets_a_password_and_enrols_totp(
    page, new_context, live_server, make_staff, settings, screenshot
):
    settings.STAFF_MFA_REQUIRED = True
    admin_secret = generate_totp_secret()
    TOTP.activate(make_staff("admin"), admin_secret)

    # The admin: password, then the code of their authenticator app.
    page.goto(f"{live_server.url}/staff/")
    page.get_by_label("Username").fill("admin-user")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    page.get_by_label("Code").fill(totp_code(admin_secret, valid_for=BROWSER_ROUND_TRIP))
    screenshot("second-factor")
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_role("heading", name="Staff")).to_be_visible()

    follow(page, page.get_by_role("link", name="Add a staff member"))
    page.get_by_label("Username").fill("new-operator")
    page.get_by_label("Email").fill("new-operator@example.com")
    page.get_by_label("Operations").check()
    page.get_by_role("button", name="Add").click()
    link = page.get_by_label("Set-password link").input_value()
    assert re.fullmatch(rf"{re.escape(live_server.url)}/accounts/password/reset/key/\S+/", link)
    screenshot("link")

    # The member, in a browser of their own.
    member = new_context().new_page()
    member.goto(link)
    member.get_by_label("New Password:", exact=True).fill("a long password for the newcomer")
    member.get_by_label("New Password (again):").fill("a long password for the newcomer")
    member.get_by_role("button", name="Change Password").click()

    # Signed in, and sent to set up a second factor before anything else.
    expect(member.get_by_text("Set up a second factor")).to_be_visible()
    follow(member, member.get_by_role("link", name="Activate"))
    secret = member.locator("#authenticator_secret").input_value()
    member.get_by_label("Authenticator code").fill(totp_code(secret, valid_for=BROWSER_ROUND_TRIP))
    member.get_by_role("button", name="Activate").click()
    expect(member.get_by_role("heading", name="Recovery Codes")).to_be_visible()
    follow(member, member.get_by_role("link", name="Continue to the back-office"))
    expect(member.get_by_role("heading", name="Welcome, new-operator")).to_be_visible()
    nav = member.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Customers", include_hidden=True)).to_have_count(1)
    expect(nav.get_by_role("link", name="Staff", include_hidden=True)).to_have_count(0)

    # The admin's list shows them with their role and their second factor.
    page.goto(f"{live_server.url}/staff/")
    row = page.get_by_role("row").filter(has_text="new-operator")
    expect(row).to_contain_text("Operations")  # the role in words
    expect(row).to_contain_text("enrolled")
    screenshot("list")
