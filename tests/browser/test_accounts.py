"""An admin creates an external crypto wallet in the browser and sees its balance.

The live server mounts the sandbox; the back-office reaches it over real HTTP, as in
production. The main pages are also copied into docs/screenshots/.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from mirror.sync import sync_payment_accounts
from payments.models import ApprovalRequest
from payments.services.approvals import approval_approve
from tests.browser.nav import follow, log_in, nav_link, pick_customer
from tests.payments.account_fixtures import EVM_ADDRESS, make_customer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_creates_an_external_crypto_wallet_and_sees_its_balance(
    page, live_server, make_staff, sandbox, screenshot
):
    customer_id = make_customer(sandbox)
    make_staff("admin")
    log_in(page, live_server, "admin-user", next_path="/payments/accounts/")
    expect(page.get_by_role("heading", name="Payment accounts")).to_be_visible()

    follow(page, page.get_by_role("link", name="New payment account"))
    follow(page, page.get_by_role("navigation", name="Account type").get_by_role("link", name="External crypto wallet"))
    pick_customer(page, "Ada", "Ada Lovelace")
    page.get_by_label("Nickname").fill("Ada's Base wallet")
    page.get_by_label("Chain").select_option("BASE")
    page.get_by_label("Currency (token label or contract address)").fill("USDC")
    # A wrong address is caught before anything is sent.
    page.get_by_label("Wallet address").fill("0x123")
    page.get_by_role("button", name="Create external crypto wallet").click()
    expect(page.get_by_text("An address on Base is 0x followed by 40 hexadecimal characters.")).to_be_visible()
    page.get_by_label("Wallet address").fill(EVM_ADDRESS)
    page.get_by_role("button", name="Create external crypto wallet").click()

    expect(page.get_by_text("External crypto wallet created.")).to_be_visible()
    expect(page.get_by_role("heading", name="Ada's Base wallet")).to_be_visible()
    balances = page.locator("#balances")
    expect(balances.get_by_role("cell", name="0.000000", exact=True)).to_be_visible()

    # Money arrives; the balance is read again on the next visit.
    from payments.models import PaymentAccount

    account = PaymentAccount.objects.get(nickname="Ada's Base wallet")
    sandbox.helper(f"payment-accounts/{account.account_id}/fund", {"amount": "12.5"})
    page.reload()
    expect(balances.get_by_role("cell", name="12.500000", exact=True)).to_be_visible()
    expect(balances.get_by_role("cell", name="12.50", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Copy address")).to_be_visible()
    screenshot("payment-account", docs="payment-account.png")

    page.set_viewport_size({"width": 390, "height": 844})
    expect(balances.get_by_role("cell", name="12.500000", exact=True)).to_be_visible()
    screenshot("payment-account-390")
    page.set_viewport_size({"width": 1280, "height": 800})

    follow(page, nav_link(page, "Payments", "Payment accounts"))
    expect(page.get_by_role("link", name="Ada's Base wallet")).to_be_visible()
    screenshot("payment-accounts", docs="payment-accounts.png")

    follow(page, nav_link(page, "Payments", "Exchange rates"))
    page.get_by_label("From (rail or chain)").select_option("ACH")
    page.get_by_label("To (rail or chain)").select_option("BASE")
    page.get_by_label("Destination currency:", exact=True).fill("EURC")
    page.get_by_label("Amount (optional)").fill("250.00")
    page.get_by_role("button", name="Get the rate").click()
    expect(page.get_by_role("heading", name="USD (ACH) → EURC (BASE)")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/payments/exchange-rates/?" + _rate_query())
    screenshot("exchange-rates", docs="exchange-rates.png")

    follow(page, nav_link(page, "Payments", "Automation rules"))
    follow(page, page.get_by_role("link", name="New rule"))
    # The customer by name; choosing them brings their accounts, by name, into the form.
    pick_customer(page, "Ada", "Ada Lovelace")
    expect(page.get_by_label("Source account")).to_contain_text("Ada's Base wallet")
    page.get_by_label("Name:", exact=True).fill("Weekday sweep")
    page.get_by_label("Source account").select_option(label=account.display_name)
    page.get_by_label("Source payment method").select_option("BASE")
    page.get_by_label("Source currency:", exact=True).fill("USDC")
    page.get_by_label("Destination account").select_option(label=account.display_name)
    page.get_by_label("Destination payment method").select_option("BASE")
    page.get_by_label("Destination currency:", exact=True).fill("USDC")
    page.get_by_label("Amount (source currency):", exact=True).fill("10")
    page.get_by_label("On a schedule (cron)").check()
    page.get_by_label("Cron schedule (5 fields, UTC)").fill("0 9 * * 1-5")
    page.get_by_role("button", name="Create rule").click()
    # Crypto to crypto is not a pair the API takes: refused before any request, the input kept.
    expect(page.get_by_text("BASE → BASE is crypto to crypto")).to_be_visible()
    expect(page.get_by_label("Name:", exact=True)).to_have_value("Weekday sweep")
    bank = sandbox.call(
        "POST",
        "/payment-accounts",
        {"paymentAccountType": "EXTERNAL_BANK_ACCOUNT", "customerId": customer_id, "nickname": "Payroll",
         "externalBankAccount": {"bankAccountType": "CHECKING", "bankAccountOwnerName": "Ada Lovelace",
                                 "bankAccountCurrency": "USD", "bankAccountPaymentMethod": "ACH",
                                 "bankAccountNumber": "000123456789", "bankRoutingNumber": "021000021"}},
    )  # fmt: skip
    # Made through the API, not the page: the mirror learns of it by a sync, as it would in life.
    assert sync_payment_accounts().outcome == "succeeded"
    # The new account is offered once the form's choices are brought up to date, the input kept.
    page.get_by_role("button", name="Update choices").click()
    expect(page.get_by_label("Destination account")).to_contain_text("Payroll")
    expect(page.get_by_label("Name:", exact=True)).to_have_value("Weekday sweep")
    payroll = PaymentAccount.objects.get(account_id=bank["paymentAccountId"])
    page.get_by_label("Destination account").select_option(label=payroll.display_name)
    page.get_by_label("Destination payment method").select_option("ACH")
    page.get_by_label("Destination currency:", exact=True).fill("USD")
    page.get_by_role("button", name="Create rule").click()
    # A rule moves money on its own: it waits for a second admin.
    expect(page.get_by_text("Rule “Weekday sweep” waits for approval by another person.")).to_be_visible()
    expect(page.locator("#approval-status")).to_have_text("Waiting for approval")
    approval = ApprovalRequest.objects.get()
    checker = get_user_model().objects.create_user("second-admin")
    checker.groups.add(Group.objects.get(name="admin"))
    approval_approve(actor=checker, approval=approval)
    follow(page, nav_link(page, "Payments", "Automation rules"))
    expect(page.get_by_role("cell", name="At 09:00 AM, Monday through Friday (UTC)")).to_be_visible()
    screenshot("automation-rules", docs="automation-rules.png")


def _rate_query() -> str:
    return (
        "source_payment_method=ACH&source_currency=&source_amount=250.00"
        "&destination_payment_method=BASE&destination_currency=EURC"
    )
