"""Each role's home page in a browser: log in as each demo role and see its figures."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from backoffice import rollups
from customers.models import CustomerStatus
from payments.models import TransactionStatus
from tests.factories import (
    AuditEventFactory,
    CustomerFactory,
    CustomerStatusChangeFactory,
    SyncRunFactory,
    TransactionFactory,
    WebhookEventFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Per role: a figure (its label, its value) that the data below gives, and a heading.
SEES = {
    "compliance": ("Under review", "2", "Decisions per day, last 14 days"),
    "operations": ("Completed", "1", "Completed volume per rail and currency, last 30 days"),
    "admin": ("Webhook events waiting", "1", "Mirror syncs"),
    "auditor": (None, None, "Latest audit events"),
}


@pytest.fixture
def mirror():
    now = timezone.now()
    CustomerFactory.create_batch(2, status=CustomerStatus.UNDER_REVIEW)
    CustomerStatusChangeFactory(changed_at=now - dt.timedelta(minutes=10))
    TransactionFactory(status=TransactionStatus.COMPLETED, status_since=now - dt.timedelta(seconds=30))
    SyncRunFactory()
    WebhookEventFactory()
    AuditEventFactory(action="customer.update")
    rollups.refresh()


@pytest.mark.parametrize("role", list(SEES))
def test_each_demo_role_sees_its_home_page(page, live_server, make_staff, screenshot, mirror, role):
    make_staff(role, username=f"demo-{role}")
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(f"demo-{role}")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome, demo-{role}")).to_be_visible()
    section = page.get_by_role("region", name=role.capitalize())
    label, value, heading = SEES[role]
    expect(section.get_by_role("heading", name=heading)).to_be_visible()
    if label:
        figure = section.get_by_role("link", name=f"{value} {label}", exact=True)
        expect(figure).to_be_visible()
    else:
        expect(section.get_by_role("link", name="Customer update")).to_be_visible()  # the action in words
    for other in SEES:
        if other != role:
            expect(page.get_by_role("region", name=other.capitalize())).to_have_count(0)
    screenshot("home")
    if label:
        figure.click()
        expect(page).not_to_have_url(f"{live_server.url}/")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
