"""An admin adds a payment account from the customer's page: the form comes with the customer
chosen, and the new account shows on the customer's page by its name."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.nav import follow, log_in, nav_link, pick_customer
from tests.payments.account_fixtures import EVM_ADDRESS, make_customer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_adds_an_account_from_the_customer_page(page, live_server, make_staff, sandbox, screenshot):
    customer_id = make_customer(sandbox)
    make_staff("admin")
    log_in(page, live_server, "admin-user", next_path=f"/customers/{customer_id}/")
    expect(page.get_by_role("heading", name="Ada Lovelace")).to_be_visible()

    follow(page, page.get_by_role("link", name="Add payment account"))
    expect(page.get_by_role("heading", name="New payment account")).to_be_visible()
    # The customer is chosen already, by name; the type tabs keep them.
    picker = page.locator("[data-picker-chosen]")
    expect(picker.get_by_text("Ada Lovelace", exact=True)).to_be_visible()
    follow(page, page.get_by_role("navigation", name="Account type").get_by_role("link", name="External crypto wallet"))
    expect(picker.get_by_text("Ada Lovelace", exact=True)).to_be_visible()
    # Choosing another customer and coming back works by name too.
    page.get_by_role("button", name="Choose another customer").click()
    expect(page.get_by_label("Find a customer")).to_be_visible()
    pick_customer(page, "Ad", "Ada Lovelace")

    page.get_by_label("Nickname").fill("Ada's Base wallet")
    page.get_by_label("Chain").select_option("BASE")
    page.get_by_label("Currency (token label or contract address)").fill("USDC")
    page.get_by_label("Wallet address").fill(EVM_ADDRESS)
    page.get_by_role("button", name="Create external crypto wallet").click()

    expect(page.get_by_text("External crypto wallet created.")).to_be_visible()
    owner = page.get_by_role("link", name="Ada Lovelace")
    expect(owner).to_be_visible()
    follow(page, owner)
    account_link = page.get_by_role("link", name="Ada's Base wallet · External crypto wallet · USDC on Base · …abab")
    expect(account_link).to_be_visible()
    screenshot("customer-accounts")

    # The accounts list filtered by the same customer, chosen by name: the list follows at once.
    follow(page, nav_link(page, "Payments", "Payment accounts"))
    pick_customer(page, "Ada", "Ada Lovelace")
    expect(page).to_have_url(re.compile(rf"/payments/accounts/\?.*customer={customer_id}"))
    expect(page.get_by_role("link", name="Ada's Base wallet")).to_be_visible()
    screenshot("accounts-by-customer")
