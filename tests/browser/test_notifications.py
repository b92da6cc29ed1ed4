"""A checker learns of a request waiting for them without looking for it: while their page is
open, a maker's large execute raises the bell's unread count; they follow the notification to
the request and approve it."""

import pytest
from playwright.sync_api import expect

from notifications.models import Notification
from payments.models import ApprovalRequest
from tests.browser.nav import ask_for_approval, follow, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_checkers_bell_rises_and_leads_to_the_request(page, new_context, live_server, make_staff, customer):
    make_staff("operations", "pavel")
    context = new_context()
    checker = context.new_page()
    log_in(checker, live_server, "pavel")
    expect(checker.locator("#bell-count")).to_have_text("0")

    make_staff("operations", "olga")
    log_in(page, live_server, "olga")
    ask_for_approval(page, live_server, customer)
    expect(page.locator("#bell-count")).to_have_text("0")  # the maker is not told of their own request

    # The checker's page, untouched since it opened, follows (polls every 4 s).
    expect(checker.locator("#bell-count")).to_have_text("1")
    expect(checker.locator("#bell")).to_have_class("bell unread")
    follow(checker, checker.locator("#bell"))
    item = checker.get_by_role("button", name="olga asks for your approval: Execute 20000 USD")
    expect(item).to_be_visible()
    follow(checker, item)

    approval = ApprovalRequest.objects.get()
    assert checker.url.endswith(f"/payments/approvals/{approval.pk}/")
    expect(checker.locator("#maker")).to_contain_text("olga")
    expect(checker.locator("#bell-count")).to_have_text("0")  # opened: read
    checker.get_by_role("button", name="Approve and execute").click()
    expect(checker.locator("#tx-status")).to_have_text("Awaiting transfer")
    approval.refresh_from_db()
    assert approval.status == "executed" and approval.checker.username == "pavel"
    assert Notification.objects.get().read_at is not None
    context.close()
