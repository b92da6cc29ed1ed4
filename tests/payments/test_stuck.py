"""The stuck view's rules and the bulk cancel with an outcome per row."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from payments.models import Quote, Transaction
from tests.factories import TransactionFactory
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600
    settings.STUCK_PROCESSING_HOURS = 4
    settings.STUCK_CREATED_MINUTES = 30


def _ids(response):
    return {t.transaction_id for t in response.context["page"].items}


def test_each_rule_selects_what_it_says(client_as, django_assert_max_num_queries):
    now = timezone.now()
    late = TransactionFactory(status="AWAITING_TRANSFER", expires_at=now - dt.timedelta(minutes=1))
    TransactionFactory(status="AWAITING_TRANSFER", expires_at=now + dt.timedelta(minutes=10))
    slow = TransactionFactory(status="PROCESSING", status_since=now - dt.timedelta(hours=5))
    TransactionFactory(status="PROCESSING", status_since=now - dt.timedelta(hours=3))
    idle = TransactionFactory(status="CREATED", status_since=now - dt.timedelta(minutes=31))
    TransactionFactory(status="CREATED", status_since=now - dt.timedelta(minutes=5))
    TransactionFactory(status="COMPLETED", status_since=now - dt.timedelta(days=3))
    client = client_as("auditor")
    url = reverse("payments-list-stuck-transactions")
    client.get(url)
    with django_assert_max_num_queries(6):
        assert _ids(client.get(url)) == {late.transaction_id}
    assert _ids(client.get(url, {"rule": "processing-long"})) == {slow.transaction_id}
    assert len(_ids(client.get(url, {"rule": "processing-long", "processing_hours": "2"}))) == 2
    assert _ids(client.get(url, {"rule": "created-long"})) == {idle.transaction_id}
    assert len(_ids(client.get(url, {"rule": "created-long", "created_minutes": "1"}))) == 2
    html = client.get(url).content.decode()
    assert "Cancel selected…" not in html  # the auditor reads only


def test_processing_rule_offers_no_cancel(client_as):
    TransactionFactory(status="PROCESSING", status_since=timezone.now() - dt.timedelta(hours=9))
    html = (
        client_as("operations")
        .get(reverse("payments-list-stuck-transactions"), {"rule": "processing-long"})
        .content.decode()
    )
    assert 'name="transactions"' not in html and "cannot be cancelled" in html


def test_bulk_cancel_reports_each_row(upstream, client_as):
    setup = sandbox_customer(upstream)
    client = client_as("operations")
    for _ in range(2):
        client.post(reverse("payments-create-quote"), quote_post_data(setup))
    for quote in Quote.objects.all():
        client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {})
    open_one, moved_on = Transaction.objects.order_by("id")
    upstream.helper(f"transactions/{moved_on.transaction_id}/advance", {"to": "PROCESSING"})
    final = TransactionFactory(status="COMPLETED")
    html = client.post(
        reverse("payments-bulk-cancel-transactions"),
        {"transactions": [open_one.transaction_id, moved_on.transaction_id, final.transaction_id], "reason": "stuck"},
    ).content.decode()
    rows = html.split('<table class="dense" id="bulk-outcomes">')[1].split("</table>")[0].split("<tr>")[2:]
    assert "Cancelled" in rows[0] and open_one.transaction_id in rows[0]
    assert "Refused" in rows[1] and "PROCESSING" in rows[1]
    assert "Refused" in rows[2] and "A completed transaction cannot be cancelled." in rows[2]
    assert Transaction.objects.get(pk=open_one.pk).status == "CANCELLED"
    assert Transaction.objects.get(pk=moved_on.pk).status == "PROCESSING"  # refused: the API's state now
    assert AuditEvent.objects.filter(action="transaction.cancel", details__reason="stuck").count() == 2


def test_bulk_cancel_needs_a_selection_and_a_reason(client_as):
    response = client_as("operations").post(reverse("payments-bulk-cancel-transactions"), {"reason": ""})
    assert response.status_code == 400
    assert "select at least one transaction; a reason is required" in response.content.decode()
