"""A screening true match held in the back-office, in real browsers: an admin decides the alert
a true match and asks, from the alert's page, for a hold of the customer's bank account; a
second admin approves it in "Waiting for approval"; an operations user's quote from that
account is then refused with the hold's words, and nothing reaches the API."""

import pytest
from playwright.sync_api import expect

from customers.models import Customer
from monitoring import importers
from monitoring.models import Alert, WatchList
from monitoring.screening import screen_customers
from payments.models import PaymentAccount, Quote
from tests.browser.nav import build_quote, follow, log_in, nav_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIST = (
    "id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,emails,dataset,"
    "first_seen,last_seen,last_change\n"
    "NK-ada001,Person,LOVELACE Ada,,1990-12-10,us,,,OFAC SDN,,,OFAC,"
    "2026-01-01T00:00:00,2026-11-01T00:00:00,2026-11-01T00:00:00\n"
)
REASON = "Ada Lovelace is the listed person (same birth date): hold until the provider deactivates."


def test_an_admin_holds_a_true_matchs_account_a_second_approves_and_a_quote_from_it_is_refused(
    page, new_context, live_server, sandbox, customer, make_staff, screenshot
):
    watchlist = WatchList.objects.create(name="OFAC SDN", format=WatchList.Format.OPENSANCTIONS)
    importers.import_entries(watchlist, importers.read_files("", main=LIST.encode()))
    ada = Customer.objects.get(customer_id=customer["customer_id"])
    assert screen_customers([ada.pk]) == 1
    alert = Alert.objects.get()
    bank = PaymentAccount.objects.get(account_id=customer["bank"])
    make_staff("admin", "adele")

    log_in(page, live_server, "adele", next_path=f"/monitoring/alerts/{alert.pk}/")
    expect(page.get_by_role("heading", name="Watchlist screening")).to_be_visible()
    page.get_by_label("True match").check()
    page.locator("#id_reason").fill("Same name and birth date as the SDN entry.")
    follow(page, page.get_by_role("button", name="Record the decision"))
    expect(page.locator(".messages")).to_contain_text("Alert decided: True match.")
    expect(page.locator("#no-deactivate")).to_contain_text("ask the provider to deactivate it")
    item = page.locator(f"#account-{bank.pk}")
    item.get_by_label("Reason").fill(REASON)
    screenshot("asking")
    follow(page, item.get_by_role("button", name="Hold in the back-office"))
    expect(page.locator(".messages")).to_contain_text("Hold asked for: another admin approves it")
    expect(page.locator("#approval-status")).to_have_text("Waiting for approval")
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)  # not the maker's to approve
    assert not PaymentAccount.objects.get(pk=bank.pk).is_held

    # A second admin, in a browser of their own.
    context = new_context()
    checker = context.new_page()
    make_staff("admin", "bruno")
    log_in(checker, live_server, "bruno")
    follow(checker, nav_link(checker, "Payments", "Waiting for approval"))
    row = checker.locator("table.approvals tbody tr").first
    expect(row).to_contain_text("adele")
    expect(row).to_contain_text("Hold Checking · External bank account · USD · ACH · …6789 of Ada Lovelace")
    follow(checker, row.get_by_role("link"))
    expect(checker.locator("#approval-facts")).to_contain_text(REASON)
    expect(checker.locator("#approval-facts").get_by_role("link", name=f"Screening alert #{alert.pk}")).to_be_visible()
    follow(checker, checker.get_by_role("button", name="Approve"))
    expect(checker.locator("#approval-status")).to_have_text("Approved and executed")
    follow(checker, checker.get_by_role("link", name="The payment account"))
    expect(checker.locator("#held-badge")).to_be_visible()
    expect(checker.locator("#held-by")).to_have_text("adele")
    expect(checker.locator("#hold-checker")).to_have_text("bruno")
    expect(checker.locator("#hold-reason")).to_have_text(REASON)
    context.close()
    page.goto(f"{live_server.url}/payments/accounts/{bank.pk}/")
    expect(page.locator("#hold")).to_contain_text("ask the provider to deactivate it")
    expect(page.get_by_role("button", name="Ask to release the hold")).to_be_visible()
    screenshot("held")

    # An operations user quotes from the held account: refused, with the hold's words.
    quotes = new_context()
    operations = quotes.new_page()
    make_staff("operations", "otto")
    log_in(operations, live_server, "otto")
    build_quote(operations, live_server, customer)
    operations.get_by_role("button", name="Create quote").click()
    refusal = operations.get_by_role("alert")
    expect(refusal).to_contain_text(
        "“Checking · External bank account · USD · ACH · …6789” is held in the back-office by adele since"
    )
    expect(refusal).to_contain_text("moves money from or to a held account. Nothing was sent.")
    assert not Quote.objects.exists()
    quotes.close()
