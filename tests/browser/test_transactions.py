"""Quote → execute → track in a real browser, against the sandbox over real HTTP."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from payments.models import Transaction
from tests.browser.nav import build_quote, follow, log_in, nav_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_operations_quotes_executes_and_follows_an_onramp_to_completed(
    page, live_server, make_staff, sandbox, customer, screenshot
):
    make_staff("operations")
    log_in(page, live_server, "operations-user")
    build_quote(page, live_server, customer)
    screenshot("quote-builder", docs="quote-builder.png")
    page.get_by_role("button", name="Create quote").click()
    expect(page.get_by_role("heading", name="Quote")).to_be_visible()
    expect(page.locator("time[data-countdown]")).to_contain_text("left")
    screenshot("quote")
    page.get_by_label("Correlation id (optional)").fill("invoice-2026-11")
    follow(page, page.get_by_role("button", name="Execute…"))
    # The confirmation: the figures again, accounts by name, before any money moves.
    figures = page.locator("#execute-figures")
    expect(figures).to_contain_text("Checking · External bank account · USD · ACH · …6789")
    expect(figures).to_contain_text("99.25 USDC")
    expect(page.get_by_label("Correlation id (optional)")).to_have_value("invoice-2026-11")
    assert not Transaction.objects.exists()
    page.get_by_role("button", name="Execute: move the money").click()

    expect(page.locator("#tx-status")).to_have_text("Awaiting transfer")
    expect(page.get_by_role("heading", name="Transfer instructions (fiat)")).to_be_visible()
    instructions = page.locator("dl.tx-instructions")
    expect(instructions.get_by_text("Routing number")).to_be_visible()
    expect(instructions.get_by_text("Account number")).to_be_visible()
    expect(instructions.get_by_text("IBAN")).to_have_count(0)
    expect(page.locator("time[data-countdown]")).to_contain_text("left")
    screenshot("transaction", docs="transaction.png")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot("transaction-390")
    page.set_viewport_size({"width": 1280, "height": 800})

    tx = Transaction.objects.get()
    assert tx.correlation_id == "invoice-2026-11"
    # The sandbox's helpers play the customer's transfer and the provider's completion.
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "PROCESSING"})
    sandbox.helper(f"transactions/{tx.transaction_id}/advance", {"to": "COMPLETED"})
    page.get_by_role("button", name="Refresh").click()
    expect(page.locator("#tx-status")).to_have_text("Completed")
    expect(page.get_by_role("button", name="Cancel transaction…")).to_have_count(0)

    page.goto(f"{live_server.url}/payments/transactions/")
    expect(page.get_by_role("link", name=tx.transaction_id[:12])).to_be_visible()
    screenshot("transactions", docs="transactions.png")


def test_double_click_on_execute_makes_one_transaction(page, live_server, make_staff, sandbox, customer):
    make_staff("operations")
    log_in(page, live_server, "operations-user")
    build_quote(page, live_server, customer)
    page.get_by_role("button", name="Create quote").click()
    follow(page, page.get_by_role("button", name="Execute…"))
    page.get_by_role("button", name="Execute: move the money").dblclick()
    expect(page.locator("#tx-status")).to_have_text("Awaiting transfer")
    assert Transaction.objects.count() == 1
    from sandbox.models import Transaction as UpstreamTransaction

    assert UpstreamTransaction.objects.count() == 1


def test_a_stuck_transaction_is_cancelled_through_the_dialog(
    page, live_server, make_staff, sandbox, customer, screenshot
):
    make_staff("operations")
    log_in(page, live_server, "operations-user")
    build_quote(page, live_server, customer, amount="42.00")
    page.get_by_role("button", name="Create quote").click()
    follow(page, page.get_by_role("button", name="Execute…"))
    page.get_by_role("button", name="Execute: move the money").click()
    expect(page.locator("#tx-status")).to_have_text("Awaiting transfer")
    # The mirror missed the expiry: past expiresAt locally, still open upstream.
    tx = Transaction.objects.get()
    Transaction.objects.filter(pk=tx.pk).update(expires_at=timezone.now() - dt.timedelta(minutes=5))

    nav_link(page, "Payments", "Stuck").click()
    row = page.get_by_role("row").filter(has_text=tx.transaction_id[:12])
    expect(row).to_contain_text("Awaiting transfer")
    row.get_by_role("checkbox").check()
    screenshot("stuck", docs="stuck.png")
    page.get_by_role("button", name="Cancel selected…").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep them").click()
    expect(dialog).to_be_hidden()
    assert Transaction.objects.get(pk=tx.pk).status == "AWAITING_TRANSFER"

    page.get_by_role("button", name="Cancel selected…").click()
    dialog.get_by_label("Reason (kept in the audit log)").fill("Customer will not pay")
    screenshot("stuck-dialog")
    dialog.get_by_role("button", name="Cancel them").click()
    outcomes = page.locator("#bulk-outcomes")
    expect(outcomes).to_contain_text("Cancelled")
    expect(outcomes.locator('[title="CANCELLED"]')).to_have_text("Cancelled")  # the status in words
    assert Transaction.objects.get(pk=tx.pk).status == "CANCELLED"
