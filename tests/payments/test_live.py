"""The transaction page and the stuck view follow the mirror while open (core/live.py)."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from payments.models import Transaction
from tests.customers.test_live import assert_nothing_typed_is_replaced, poller_url
from tests.factories import TransactionFactory
from upstream.mirrored import Source

pytestmark = pytest.mark.django_db


def _webhook_moves(tx: Transaction, status: str) -> None:
    """What the upsert of a webhook's re-read does to the row."""
    now = timezone.now()
    Transaction.objects.filter(pk=tx.pk).update(status=status, status_since=now, synced_at=now, upstream_updated_at=now)


def test_transaction_page_unchanged_then_changed(client_as):
    tx = TransactionFactory(status="PROCESSING", synced_at=timezone.now())
    client = client_as("operations")
    url = poller_url(client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode())

    unchanged = client.get(url)
    _webhook_moves(tx, "COMPLETED")
    changed = client.get(url)

    assert unchanged.status_code == 304 and unchanged.content == b""
    assert changed.status_code == 200
    html = changed.content.decode()
    assert '<span class="badge status-COMPLETED" id="tx-status">' in html
    for part in ("tx-status-line", "tx-amounts", "tx-instructions", "tx-history"):
        assert f'id="{part}" hx-swap-oob="true"' in html, part
    assert "<form" not in html and "<textarea" not in html  # the cancel dialog's reason stays
    assert client.get(poller_url(html)).status_code == 304


def test_stuck_view_follows_its_rule_and_keeps_the_filters(client_as):
    now = timezone.now()
    late = TransactionFactory(status="AWAITING_TRANSFER", expires_at=now - dt.timedelta(minutes=1))
    other = TransactionFactory(status="AWAITING_TRANSFER", expires_at=now - dt.timedelta(minutes=2))
    client = client_as("operations")
    page = client.get(reverse("payments-list-stuck-transactions"), {"rule": "awaiting-expired"})
    url = poller_url(page.content.decode())
    assert "rule=awaiting-expired" in url and url.startswith(reverse("payments-list-stuck-transactions-live"))
    assert 'hx-target="#results"' in page.content.decode()

    assert client.get(url).status_code == 304
    _webhook_moves(late, "CANCELLED")
    changed = client.get(url)

    assert changed.status_code == 200
    html = changed.content.decode()
    assert html.lstrip().startswith('<div id="results" data-live-guard>')
    assert other.transaction_id in html and late.transaction_id not in html
    assert 'name="transactions"' in html  # the boxes of the bulk cancel come back with the rows
    assert client.get(poller_url(html)).status_code == 304


# --- The customer page's section of accounts, transactions and rules ---------------------------


def _account_item(customer_id: str, account_id: str, status: str = "ACTIVE"):
    from paymentsapi import types as api

    return api.PaymentAccount.model_validate(
        {
            "paymentAccountId": account_id,
            "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
            "paymentAccountStatus": status,
            "nickname": "Treasury",
            "customerId": customer_id,
            "externalCryptoWallet": {"currency": {"label": "USDC"}, "address": {"address": "0x" + "ab" * 20}},
        }
    )


def _customer_poller(client, customer) -> str:
    return poller_url(client.get(reverse("customers-view-customer", args=[customer.customer_id])).content.decode())


def _section(html: str) -> str:
    start = html.index('<div id="customer-sections" hx-swap-oob="true">')
    return html[start : html.index("</section>", start)]


def test_the_customer_pages_payments_follow_an_account_and_a_transaction(client_as):
    from payments.upserts import payment_accounts_upsert
    from tests.factories import CustomerFactory

    ada, other = CustomerFactory(name="Ada Lovelace"), CustomerFactory()
    tx = TransactionFactory(customer=ada, status="PROCESSING")
    client = client_as("admin")
    url = _customer_poller(client, ada)
    assert client.get(url).status_code == 304

    # Another customer's records leave the page alone.
    payment_accounts_upsert(items=[_account_item(other.customer_id, "acct-other")], seen_by=Source.WEBHOOK)
    _webhook_moves(TransactionFactory(customer=other, status="PROCESSING"), "COMPLETED")
    assert client.get(url).status_code == 304

    # A webhook brings an account of hers: the section comes anew, with its Add button.
    payment_accounts_upsert(items=[_account_item(ada.customer_id, "acct-1", status="PENDING")], seen_by=Source.WEBHOOK)
    changed = client.get(url)
    assert changed.status_code == 200
    html = changed.content.decode()
    section = _section(html)
    assert "Treasury" in section and "acct-1" in section
    assert "Add payment account" in section
    assert_nothing_typed_is_replaced(html)
    url = poller_url(html)
    assert client.get(url).status_code == 304

    # The account becomes active, then her transaction completes: each is a new version.
    payment_accounts_upsert(items=[_account_item(ada.customer_id, "acct-1")], seen_by=Source.WEBHOOK)
    changed = client.get(url)
    assert 'title="ACTIVE">Active<' in _section(changed.content.decode())
    url = poller_url(changed.content.decode())
    _webhook_moves(tx, "COMPLETED")
    changed = client.get(url)
    assert changed.status_code == 200
    assert 'title="COMPLETED">Completed<' in _section(changed.content.decode())
    assert client.get(poller_url(changed.content.decode())).status_code == 304


def test_the_add_account_button_follows_the_customers_status(client_as):
    from customers.models import Customer
    from tests.factories import CustomerFactory

    ada = CustomerFactory(status="ACTIVE")
    client = client_as("admin")
    page = client.get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode()
    assert "Add payment account" in page
    url = poller_url(page)

    Customer.objects.filter(pk=ada.pk).update(status="DEACTIVATED", synced_at=timezone.now())
    changed = client.get(url)

    assert changed.status_code == 200
    assert 'id="customer-sections" hx-swap-oob="true"' in changed.content.decode()
    assert "Add payment account" not in changed.content.decode()


def test_an_unchanged_customer_page_poll_reads_no_more_for_the_section(client_as, django_assert_num_queries):
    from tests.factories import CustomerFactory

    ada = CustomerFactory()
    TransactionFactory(customer=ada)
    client = client_as("admin")
    url = _customer_poller(client, ada)
    with django_assert_num_queries(2):  # the version (the section's columns in it) and the session
        assert client.get(url).status_code == 304
