"""Staff pages speak in staff words: no status, issue code or payment method appears as its raw
API code in visible text (the code is on hover, in a title attribute, or in a <code> element)."""

import datetime as dt
import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import timezone

from customers import choices
from customers.models import CustomerStatus
from payments.models import TransactionStatus, TransactionStatusChange
from tests.factories import CustomerFactory, CustomerStatusChangeFactory, TransactionFactory, VerificationIssueFactory

pytestmark = pytest.mark.django_db

# UPPER_SNAKE (two words or more), or one of the one-word statuses the API sends.
CODES = {*CustomerStatus.values, *TransactionStatus.values, *choices.ISSUE_LABELS}
RAW = re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b|\b(?:" + "|".join(sorted(CODES)) + r")\b")
HIDDEN = {"code", "script", "style", "textarea", "title", "datalist", "option"}


class VisibleText(HTMLParser):
    """The text a person reads: attributes are never text; code, scripts and the like are left out."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in HIDDEN and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def raw_codes(html: str) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    return set(RAW.findall(" ".join(parser.parts)))


def test_the_checker_finds_a_raw_code():
    assert raw_codes("<p>now NEEDS_ADDITIONAL_INFORMATION and REJECTED</p><code>SANCTIONED_COUNTRY</code>") == {
        "NEEDS_ADDITIONAL_INFORMATION",
        "REJECTED",
    }
    assert raw_codes('<span title="AWAITING_TRANSFER">Awaiting transfer</span>') == set()


@pytest.fixture
def seeded():
    """A customer in every status with every issue code and a history; a transaction with one."""
    now = timezone.now()
    customers = []
    for i, status in enumerate(CustomerStatus.values):
        customer = CustomerFactory(status=status, name=f"Customer {i}", status_since=now - dt.timedelta(hours=i + 1))
        CustomerStatusChangeFactory(customer=customer, old_status="CREATED", new_status=status)
        customers.append(customer)
    for code in choices.ISSUE_LABELS:
        VerificationIssueFactory(customer=customers[-2], code=code, message=code)
    tx = TransactionFactory(customer=customers[3])
    TransactionStatusChange.objects.create(
        transaction=tx, old_status="CREATED", new_status="AWAITING_TRANSFER", changed_at=now, seen_by="sync"
    )
    return customers, tx


def test_no_staff_page_shows_a_raw_code(client_as, seeded):
    customers, tx = seeded
    client = client_as("compliance")
    client.post(
        reverse("customers-decide-customer", args=[customers[-2].customer_id]),
        {"kind": "escalated", "reason": "Sanctions list match to confirm."},
    )
    pages = [
        reverse("customers-list-customers"),
        reverse("customers-list-customers") + "?view=all",
        reverse("customers-list-escalations"),
        *(reverse("customers-view-customer", args=[c.customer_id]) for c in customers),
        reverse("payments-list-transactions"),
        reverse("payments-view-transaction", args=[tx.transaction_id]),
    ]
    found = {}
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        if codes := raw_codes(response.content.decode()):
            found[url] = codes
    assert found == {}


def test_the_fee_says_which_figure_is_the_usd_value(client_as):
    tx = TransactionFactory()
    html = client_as("operations").get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert "0.35 USD (USD value 0.35)" in html
    assert "· 0.35 USD" not in html
