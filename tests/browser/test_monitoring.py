"""A structuring series made through the sandbox reaches a compliance reviewer as an explained
alert; the reviewer decides it with a reason and finds the decision in the audit log."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from monitoring.models import RuleKind
from payments.upserts import transactions_upsert
from tests.browser.nav import follow, log_in, nav_link
from tests.monitoring.helpers import live_rule, onramp_quote
from upstream.client import get_client
from upstream.mirrored import Source

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_decides_a_structuring_alert_and_sees_it_in_the_audit_log(
    page, live_server, sandbox, customer, make_staff, settings, screenshot
):
    settings.APPROVAL_THRESHOLD_USD = Decimal("100")
    rule = live_rule(RuleKind.STRUCTURING, name="Split payments", window_hours=24, min_count=3, band_percent=10)
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
