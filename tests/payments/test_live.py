"""The transaction page and the stuck view follow the mirror while open (core/live.py)."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from payments.models import Transaction
from tests.customers.test_live import poller_url
from tests.factories import TransactionFactory

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
