"""A watch-list hit on a customer made through the sandbox opens a screening case: a
compliance reviewer filters the queue by "Watchlist screening", claims the case, finds the
alert in the customer page's alerts section, decides it with a reason and finds the decision
in the audit log."""

import datetime as dt

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from playwright.sync_api import expect

from customers.models import Customer
from monitoring import importers
from monitoring.models import Alert, AlertKind, WatchList
from monitoring.screening import screen_customers
from monitoring.services import raise_alerts
from tests.browser.nav import follow, log_in, nav_link
from tests.factories import CustomerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIST = (
    "id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,emails,dataset,"
    "first_seen,last_seen,last_change\n"
    "NK-ada001,Person,LOVELACE Ada,Augusta Ada King,1815-12-10,gb,,,UK Sanctions List,,,UK HMT,"
    "2026-01-01T00:00:00,2026-11-01T00:00:00,2026-11-01T00:00:00\n"
)


def test_a_reviewer_works_a_screening_case_from_the_queue_to_the_audit_log(
    page, live_server, sandbox, customer, make_staff, screenshot
):
    watchlist = WatchList.objects.create(name="UK HMT", format=WatchList.Format.OPENSANCTIONS)
    importers.import_entries(watchlist, importers.read_files("", main=LIST.encode()))
    ada = Customer.objects.get(customer_id=customer["customer_id"])
    assert screen_customers([ada.pk]) == 1
    # An older case of the other kind: "Next case" without the filter would claim it.
    mo = CustomerFactory(name="Mo Monitored", status="ACTIVE", status_since=timezone.now() - dt.timedelta(days=9))
    raise_alerts([Alert(kind=AlertKind.MONITORING, customer=mo, dedupe_key="browser:mo", sentence="Velocity")])
    reviewer = make_staff("compliance", "rita")
    reviewer.groups.add(Group.objects.get(name="auditor"))

    log_in(page, live_server, "rita")
    follow(page, nav_link(page, "Customers and cases", "Customers"))
    queue = page.locator("table.queue")
    expect(queue).to_contain_text("Mo Monitored")
    page.get_by_label("Case").select_option(label="Watchlist screening")
    expect(queue).not_to_contain_text("Mo Monitored")
    expect(queue).to_contain_text("Ada Lovelace")
    expect(queue).to_contain_text("1 Watchlist screening")
    screenshot("queue")

    follow(page, page.get_by_role("button", name="Next case"))
    expect(page.locator(".messages")).to_contain_text("You claimed Ada Lovelace")
    expect(page.locator("#assignee")).to_contain_text("rita")
    alerts = page.locator("#customer-alerts")
    expect(alerts.get_by_role("heading", name="Alerts")).to_be_visible()
    expect(alerts).to_contain_text("Watchlist screening")
    expect(alerts).to_contain_text("Ada Lovelace")
    expect(alerts).to_contain_text("UK HMT")
    screenshot("customer")

    follow(page, alerts.get_by_role("link", name="matches"))
    expect(page.get_by_role("heading", name="Watchlist screening")).to_be_visible()
    page.get_by_label("False positive").check()
    page.get_by_label("Reason").fill("Born 1815; our customer's passport gives 1990.")
    follow(page, page.get_by_role("button", name="Record the decision"))
    expect(page.locator(".messages")).to_contain_text("Alert decided: False positive.")

    page.goto(f"{live_server.url}/customers/{ada.customer_id}/")
    expect(page.locator("#customer-alerts")).to_contain_text("False positive")

    follow(page, nav_link(page, "Administration", "Audit log"))
    expect(page.locator("main")).to_contain_text("Decided a monitoring alert")
    expect(page.locator("main")).to_contain_text("False positive")
