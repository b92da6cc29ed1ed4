"""The rules of the seeded demo: on the rules page, an account's page, a customer's page, and
from the transactions they made (one seeding: it takes half a minute)."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from payments.models import AutomationRule, PaymentAccount, Transaction
from tests.demo import seeded_demo  # noqa: F401  (the fixture)


@pytest.mark.slow
@pytest.mark.usefixtures("seeded_demo")
def test_the_demo_rules_show_on_every_page_that_names_them(client_as):
    client = client_as("auditor")
    rules = AutomationRule.objects.select_related("customer")
    assert rules.count() == 20

    page = client.get(reverse("payments-list-automation-rules")).content.decode()
    assert "No automation rules match" not in page
    for rule in rules:
        assert escape(rule.name) in page
        assert reverse("payments-view-automation-rule", args=[rule.pk]) in page
    # The source account by its name and the customer by theirs, linked: no bare ids.
    rule = rules.first()
    source = PaymentAccount.objects.get(account_id=rule.source_account_id)
    assert escape(source.display_name) in page
    assert reverse("payments-view-payment-account", args=[source.pk]) in page
    assert reverse("customers-view-customer", args=[rule.customer.customer_id]) in page

    account_page = client.get(reverse("payments-view-payment-account", args=[source.pk])).content.decode()
    assert "Automation rules from this account" in account_page and escape(rule.name) in account_page
    customer_page = client.get(reverse("customers-view-customer", args=[rule.customer.customer_id])).content.decode()
    assert escape(rule.name) in customer_page
    assert reverse("payments-view-automation-rule", args=[rule.pk]) in customer_page

    rule_page = client.get(reverse("payments-view-automation-rule", args=[rule.pk])).content.decode()
    assert "created" in rule_page and escape(source.display_name) in rule_page

    made = Transaction.objects.filter(correlation_id__startswith="automation-rule:")
    assert made.exists()
    tx = made.first()
    maker = AutomationRule.objects.get(rule_id=tx.correlation_id.split(":", 1)[1])
    page = client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert reverse("payments-view-automation-rule", args=[maker.pk]) in page
    # Its quote was made by the API, not here: the quote page shows the transaction's terms.
    quote = client.get(reverse("payments-view-quote", args=[tx.quote_id]))
    assert quote.status_code == 200
    assert "made outside the back-office" in quote.content.decode()
    assert reverse("payments-view-transaction", args=[tx.transaction_id]) in quote.content.decode()
