"""Names and links instead of ids: accounts by their display name, customers linked to their
page, the customer type-ahead of filters and forms, quotes found again (open ones, and those
made elsewhere), rule pages; each page at a fixed number of queries."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from tests.factories import (
    AutomationRuleFactory,
    CustomerFactory,
    PaymentAccountFactory,
    QuoteFactory,
    TransactionFactory,
)

pytestmark = pytest.mark.django_db


def queries(client, url) -> int:
    """The queries of one GET of `url`, after a first one (which also loads the session)."""
    client.get(url)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_an_account_is_named_by_nickname_type_currency_and_last_digits():
    wallet = PaymentAccountFactory.build(nickname="Treasury")
    assert wallet.display_name == "Treasury · External crypto wallet · USDC on Base · …abab"
    bank = PaymentAccountFactory.build(bank=True, nickname="", details={"bankAccountMask": "****6789",
        "bankAccountCurrency": {"label": "USD"}, "bankAccountPaymentMethod": "ACH"})  # fmt: skip
    assert bank.display_name == "External bank account · USD · ACH · …6789"
    assert PaymentAccountFactory.build(account_type="SERVICE_FIAT_ACCOUNT", nickname="", details={}).display_name == (
        "Service fiat account"
    )


def test_account_names_come_in_one_query_however_many(django_assert_num_queries):
    from payments.selectors import account_name, account_names

    accounts = [PaymentAccountFactory(nickname=f"Wallet {i}") for i in range(6)]
    with django_assert_num_queries(1):
        names = account_names(*[a.account_id for a in accounts], "unknown-id", "")
    assert names == {a.account_id: a.display_name for a in accounts}
    assert account_name(names, accounts[0].account_id).startswith("Wallet 0 · ")
    assert account_name(names, "unknown-id") == "account unknown-id"
    with django_assert_num_queries(0):
        assert account_names("", "") == {}


def test_a_transaction_names_its_accounts_and_links_its_customer(client_as):
    customer = CustomerFactory(name="Ada Lovelace")
    source = PaymentAccountFactory(nickname="Payroll", customer=customer)
    destination = PaymentAccountFactory(nickname="Cold wallet", customer=customer)
    tx = TransactionFactory(customer=customer, source_account_id=source.account_id,
                            destination_account_id=destination.account_id)  # fmt: skip
    client = client_as("auditor")
    page = client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    for account in (source, destination):
        assert f'href="{reverse("payments-view-payment-account", args=[account.pk])}"' in page
        assert escape(account.display_name) in page
    assert f'<a href="{reverse("customers-view-customer", args=[customer.customer_id])}">Ada Lovelace</a>' in page
    rows = client.get(reverse("payments-list-transactions")).content.decode()
    assert f'href="/customers/{customer.customer_id}/">Ada Lovelace</a>' in rows


def test_an_account_unknown_to_the_mirror_keeps_its_id(client_as):
    tx = TransactionFactory(source_account_id="acct-elsewhere")
    page = client_as("auditor").get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert "<code>acct-elsewhere</code>" in page


def test_the_rules_list_names_accounts_and_customers_in_a_fixed_number_of_queries(client_as):
    client = client_as("auditor")
    url = reverse("payments-list-automation-rules")

    def make_rules(n):
        for _ in range(n):
            customer = CustomerFactory()
            source = PaymentAccountFactory(customer=customer)
            AutomationRuleFactory(customer=customer, source_account_id=source.account_id)

    make_rules(2)
    few = queries(client, url)
    make_rules(10)
    assert queries(client, url) == few
    page = client.get(url).content.decode()
    assert page.count(escape(PaymentAccountFactory._meta.model.objects.first().display_name)) >= 1


def test_the_rule_page_shows_its_history_and_its_transactions(client_as):
    from payments.models import AutomationRuleChange

    rule = AutomationRuleFactory(name="Mondays")
    AutomationRuleChange.objects.create(rule=rule, fields=["name"], before={"name": "Weekdays"},
                                        after={"name": "Mondays"}, seen_by="sync")  # fmt: skip
    tx = TransactionFactory(correlation_id=f"automation-rule:{rule.rule_id}")
    page = client_as("compliance").get(reverse("payments-view-automation-rule", args=[rule.pk])).content.decode()
    assert "“Weekdays”" in page and "“Mondays”" in page and "Sync" in page
    assert reverse("payments-view-transaction", args=[tx.transaction_id]) in page
    # Readers see no edit button, nor the audit log they cannot open.
    assert reverse("payments-edit-automation-rule", args=[rule.pk]) not in page
    assert reverse("audit-list-events") not in page


def test_open_quotes_are_the_unused_unexpired_ones_soonest_first(client_as):
    soon = QuoteFactory(expires_at=timezone.now() + dt.timedelta(minutes=1))
    later = QuoteFactory(expires_at=timezone.now() + dt.timedelta(minutes=9))
    used = QuoteFactory()
    TransactionFactory(quote_id=used.quote_id)
    expired = QuoteFactory(expires_at=timezone.now() - dt.timedelta(seconds=1))
    client = client_as("operations")
    url = reverse("payments-list-open-quotes")
    page = client.get(url).content.decode()
    assert page.index(soon.quote_id[:12]) < page.index(later.quote_id[:12])
    assert used.quote_id[:12] not in page and expired.quote_id[:12] not in page
    assert reverse("customers-view-customer", args=[soon.customer.customer_id]) in page
    few = queries(client, url)
    for _ in range(8):
        QuoteFactory()
    assert queries(client, url) == few


def test_open_quotes_read_the_unexpired_ones_from_the_expiry_index(client_as):
    """Expired quotes are a range the page does not read: with sequential scans priced out (as
    tests/search/test_plans.py does), the open quotes' query seeks the index on expiry."""
    if connection.vendor != "postgresql":
        pytest.skip("the plan is PostgreSQL's")
    from payments.views.open_quotes import open_quotes

    QuoteFactory(expires_at=timezone.now() - dt.timedelta(days=1))
    open_one = QuoteFactory()
    assert list(open_quotes()) == [open_one]
    sql, params = open_quotes().order_by("expires_at", "id").values("pk")[:51].query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0][0]["Plan"]

    def quote_reads(node):
        """(node type, index) of each read of payments_quote: a bitmap heap scan by its index's."""
        if node.get("Relation Name") == "payments_quote":
            index = node.get("Index Name") or next((c.get("Index Name") for c in node.get("Plans", [])), None)
            yield node["Node Type"], index
        for child in node.get("Plans", []):
            yield from quote_reads(child)

    reads = list(quote_reads(plan))
    assert len(reads) == 1 and reads[0][1] == "quote_expiry_keyset", plan


def test_a_quote_made_elsewhere_shows_from_its_transaction(client_as):
    customer = CustomerFactory(name="Grace Hopper")
    tx = TransactionFactory(customer=customer, quote_id="quote-from-the-api")
    client = client_as("auditor")
    response = client.get(reverse("payments-view-quote", args=["quote-from-the-api"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "made outside the back-office" in page and "Grace Hopper" in page
    assert reverse("payments-view-transaction", args=[tx.transaction_id]) in page
    assert client.get(reverse("payments-view-quote", args=["no-such-quote"])).status_code == 404


def test_the_customer_search_finds_any_status_by_name_email_or_id(client_as):
    active = CustomerFactory(name="Ada Lovelace", active=True)
    pending = CustomerFactory(name="Adam Smith")
    other = CustomerFactory(name="Grace Hopper")
    client = client_as("auditor")
    url = reverse("payments-search-customers")
    page = client.get(url, {"q": "ada", "for": "id_customer"}).content.decode()
    assert 'id="id_customer-results"' in page
    assert f'data-pick-id="{active.customer_id}"' in page and f'data-pick-id="{pending.customer_id}"' in page
    assert other.customer_id not in page
    assert other.customer_id in client.get(url, {"q": other.customer_id}).content.decode()
    assert "No customer starts with" in client.get(url, {"q": "zz"}).content.decode()


@pytest.mark.parametrize(
    "url_name", ["payments-list-transactions", "payments-list-payment-accounts", "payments-list-automation-rules"]
)
def test_lists_filter_by_a_customer_chosen_by_name(client_as, url_name):
    chosen, other = CustomerFactory(name="Ada Lovelace"), CustomerFactory(name="Grace Hopper")
    for customer in (chosen, other):
        TransactionFactory(customer=customer)
        PaymentAccountFactory(customer=customer, nickname=f"Account of {customer.name}")
        AutomationRuleFactory(customer=customer, name=f"Rule of {customer.name}")
    client = client_as("auditor")
    page = client.get(reverse(url_name), {"customer": chosen.customer_id}).content.decode()
    # The filter shows the customer by name, its field holds the id, and a type-ahead is there.
    assert "<strong data-picker-name>Ada Lovelace</strong>" in page
    assert f'name="customer" value="{chosen.customer_id}"' in page
    assert f'hx-get="{reverse("payments-search-customers")}' in page
    assert "Grace Hopper" not in page


def test_the_customer_page_offers_to_add_an_account_to_whoever_may(client_as):
    customer = CustomerFactory(name="Ada Lovelace")
    account = PaymentAccountFactory(customer=customer, nickname="Payroll")
    add = f"{reverse('payments-create-payment-account')}?customer={customer.customer_id}"
    url = reverse("customers-view-customer", args=[customer.customer_id])
    assert add not in client_as("auditor").get(url).content.decode()
    admin = client_as("admin")
    page = admin.get(url).content.decode()
    assert add in page and escape(account.display_name) in page
    form = admin.get(add).content.decode()
    assert "<strong data-picker-name>Ada Lovelace</strong>" in form
    assert f'name="customer_id" value="{customer.customer_id}"' in form


def test_the_account_form_shown_again_reads_its_customer_once(client_as):
    from customers.models import Customer
    from tests.payments.account_fixtures import EVM_ADDRESS

    customer = CustomerFactory(name="Ada Lovelace", status="ACTIVE")
    form = {
        "account_type": "EXTERNAL_CRYPTO_WALLET",
        "customer_id": customer.customer_id,
        "nickname": "Treasury",
        "chain": "BASE",
        "currency": "USDC",
        "address": EVM_ADDRESS[:-1],  # refused before anything is sent
    }
    admin = client_as("admin")
    with CaptureQueriesContext(connection) as queries:
        page = admin.post(reverse("payments-create-payment-account"), form).content.decode()
    assert "An address on Base is 0x followed by 40 hexadecimal characters." in page
    # The form's check read the customer; the picker shows that one by name.
    assert "<strong data-picker-name>Ada Lovelace</strong>" in page
    table = Customer._meta.db_table
    assert len([q for q in queries.captured_queries if f'FROM "{table}"' in q["sql"]]) == 1


def test_the_customer_search_looks_at_a_bounded_set_in_one_query(client_as, monkeypatch, django_assert_num_queries):
    """A common prefix reads the first SEARCH_CANDIDATES matches, as the queue's search does,
    and orders those by name: not every customer whose name starts so."""
    from customers import selectors as customer_selectors
    from customers.selectors import customers_search

    monkeypatch.setattr(customer_selectors, "SEARCH_CANDIDATES", 3)
    for name in ("Olivia Smith C", "Olivia Smith A", "Olivia Smith E", "Olivia Smith B", "Olivia Smith D"):
        CustomerFactory(name=name, active=True)
    noah = CustomerFactory(name="Noah Kim", active=True)
    with django_assert_num_queries(1) as captured:
        found = [c.name for c in customers_search(query="olivia")]
    assert len(found) == 3 and found == sorted(found)
    assert "LIMIT 3" in captured.captured_queries[0]["sql"]
    assert [c.customer_id for c in customers_search(query="Noah")] == [noah.customer_id]
    assert [c.customer_id for c in customers_search(query=noah.customer_id)] == [noah.customer_id]
    page = client_as("auditor").get(reverse("payments-search-customers"), {"q": "Olivia"}).content.decode()
    assert page.count("data-pick-id=") == 3


@pytest.mark.parametrize(
    "url_name", ["payments-list-transactions", "payments-list-payment-accounts", "payments-list-automation-rules"]
)
def test_lists_show_the_customers_e_mail_under_the_name_without_a_query_per_row(client_as, url_name):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def make(email):
        customer = CustomerFactory(name="Helix Analytics", email=email)
        TransactionFactory(customer=customer)
        PaymentAccountFactory(customer=customer, nickname=f"Account of {email}")
        AutomationRuleFactory(customer=customer, name=f"Rule of {email}")

    make("finance@helix.example")
    client = client_as("admin")
    client.get(reverse(url_name))
    with CaptureQueriesContext(connection) as one:
        client.get(reverse(url_name))
    make("ops@helix-analytics.example")
    make("billing@helix.example")
    with CaptureQueriesContext(connection) as three:
        page = client.get(reverse(url_name)).content.decode()
    for email in ("finance@helix.example", "ops@helix-analytics.example", "billing@helix.example"):
        assert f'Helix Analytics</a><br><span class="kv">{email}</span>' in page
    assert len(three) == len(one)
