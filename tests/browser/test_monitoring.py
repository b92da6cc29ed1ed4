"""A structuring rule goes live once a second admin approves it in the four-eyes list; a
structuring series made through the sandbox reaches a compliance reviewer as an explained
alert; the reviewer decides it with a reason and finds the decision in the audit log."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from monitoring.models import RuleKind
from monitoring.rules import default_params
from monitoring.services import rule_create, rule_submit
from payments.upserts import transactions_upsert
from tests.browser.nav import follow, log_in, nav_link
from tests.monitoring.helpers import onramp_quote
from upstream.client import get_client
from upstream.mirrored import Source

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _approved_in_the_browser(new_context, live_server, make_staff, screenshot):
    """A structuring rule an admin drafted and submitted, approved by a second admin on the
    "Waiting for approval" page, as any four-eyes request is."""
    maker = make_staff("admin", "mona")
    params = {**default_params(RuleKind.STRUCTURING), "window_hours": 24, "min_count": 3, "band_percent": 10}
    rule = rule_create(user=maker, name="Split payments", kind=RuleKind.STRUCTURING, params=params)
    rule_submit(user=maker, rule=rule)
    make_staff("admin", "adam")
    context = new_context()
    checker = context.new_page()
    log_in(checker, live_server, "adam")
    follow(checker, nav_link(checker, "Payments", "Waiting for approval"))
    row = checker.locator("table.approvals tbody tr").first
    expect(row).to_contain_text("mona")
    expect(row).to_contain_text("Make monitoring rule “Split payments” live at version 1")
    follow(checker, row.get_by_role("link"))
    expect(checker.locator("#approval-facts")).to_contain_text("3 or more transfers within 24 h")
    follow(checker, checker.get_by_role("button", name="Approve"))
    expect(checker.locator("#approval-status")).to_have_text("Approved and executed")
    follow(checker, checker.get_by_role("link", name="The rule, its backtests"))
    expect(checker.locator("h1")).to_contain_text("Live")
    context.close()
    rule.refresh_from_db()
    assert rule.live_version.approved_by.username == "adam"
    return rule


def test_a_reviewer_decides_a_structuring_alert_and_sees_it_in_the_audit_log(
    page, new_context, live_server, sandbox, customer, make_staff, settings, screenshot
):
    settings.APPROVAL_THRESHOLD_USD = Decimal("100")
    rule = _approved_in_the_browser(new_context, live_server, make_staff, screenshot)
    reviewer = make_staff("compliance", "rita")
    reviewer.groups.add(Group.objects.get(name="auditor"))
    client = get_client()
    for amount in ("95.00", "97.50", "99.00"):
        quote = client.quotes.create(
            **onramp_quote(customer["customer_id"], customer["bank"], customer["wallet"], amount)
        )
        made = client.transactions.create(quote_id=quote.quote_id)
        # The mirror reads it back as its sync does; the rules run once that is committed.
        transactions_upsert(items=[client.transactions.get(transaction_id=made.transaction_id)], seen_by=Source.SYNC)

    log_in(page, live_server, "rita")
    follow(page, nav_link(page, "Monitoring", "Alerts"))
    rows = page.locator("#results table")
    expect(rows).to_contain_text("3 transfers of 95\u201399 USD")
    expect(rows).to_contain_text("each under the 100 USD approval threshold")
    expect(rows).to_contain_text(f"{rule.name} v1")
    screenshot("alerts")
    follow(page, rows.get_by_role("link").first)
    expect(page.get_by_role("heading", name="Why it was raised")).to_be_visible()
    page.get_by_label("True match").check()
    page.get_by_label("Reason").fill("Three payments split to stay under the threshold; report filed.")
    follow(page, page.get_by_role("button", name="Record the decision"))
    expect(page.locator(".messages")).to_contain_text("Alert decided: True match.")
    expect(page.locator("dl.facts")).to_contain_text("True match by rita")

    follow(page, nav_link(page, "Administration", "Audit log"))
    expect(page.locator("main")).to_contain_text("Decided a monitoring alert")
    expect(page.locator("main")).to_contain_text("True match")
