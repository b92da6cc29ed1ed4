"""Four-eyes in a real browser: one operations user executes a large quote, a second one
approves it, and the transaction appears with both names."""

import pytest
from playwright.sync_api import expect

from payments.models import ApprovalRequest, Transaction
from tests.browser.nav import ask_for_approval, follow, log_in, nav_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_large_execute_waits_for_a_second_operations_user(
    page,
    new_context,
    live_server,
    make_staff,
    sandbox,
    customer,
    screenshot,
):
    make_staff("operations", "olga")
    log_in(page, live_server, "olga")
    ask_for_approval(page, live_server, customer)
    expect(page.get_by_role("button", name="Approve and execute")).to_have_count(0)  # not the maker's to approve
    screenshot("requested")
    assert not Transaction.objects.exists()

    # A second operations user, in a browser of their own.
    context = new_context()
    checker = context.new_page()
    make_staff("operations", "pavel")
    log_in(checker, live_server, "pavel")
    follow(checker, nav_link(checker, "Payments", "Waiting for approval"))
    row = checker.locator("table.approvals tbody tr").first
    expect(row).to_contain_text("olga")
    expect(row).to_contain_text("Execute 20000 USD")
    follow(checker, row.get_by_role("link"))
    expect(checker.locator("#maker")).to_contain_text("olga")
    expect(checker.locator("dl.tx-facts").first).to_contain_text(
        "Base wallet · External crypto wallet · USDC on Base · …abab"
    )
    checker.get_by_role("button", name="Approve and execute").click()

    expect(checker.locator("#tx-status")).to_have_text("Awaiting transfer")
    expect(checker.locator("#tx-maker")).to_contain_text("olga")
    expect(checker.locator("#tx-checker")).to_contain_text("pavel")
    tx = Transaction.objects.get()
    approval = ApprovalRequest.objects.get()
    assert (approval.status, approval.transaction_id, approval.checker.username) == (
        "executed",
        tx.transaction_id,
        "pavel",
    )
    context.close()

    # The maker sees it done.
    page.reload()
    expect(page.locator("#approval-status")).to_have_text("Approved and executed")
    expect(page.get_by_role("link", name=tx.transaction_id)).to_be_visible()
