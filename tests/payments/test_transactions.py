"""The transaction page, refresh, cancel, the list with its filters and the CSV export."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from payments.models import Quote, Transaction
from tests.factories import CustomerFactory, TransactionFactory
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


@pytest.fixture
def executed(upstream, client_as):
    """An onramp executed through the pages: (operations client, Transaction)."""
    setup = sandbox_customer(upstream)
    client = client_as("operations")
    client.post(reverse("payments-create-quote"), quote_post_data(setup))
    quote = Quote.objects.get()
    client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {})
    return client, Transaction.objects.get()


def test_transaction_page_shows_only_the_rails_instructions(executed):
    client, tx = executed
    html = client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert "Onramp" in html and "Awaiting transfer" in html and "data-countdown" in html
    for label in (
        "Account number",
        "Routing number",
        "Bank name",
        "Beneficiary",
        "Reference (quote it with the payment)",
    ):
        assert f"<dt>{label}</dt>" in html
    for label in ("IBAN", "BIC / SWIFT", "Sort code", "CLABE", "Deposit address"):
        assert f"<dt>{label}</dt>" not in html
    number = tx.transfer_instructions["transferBankAccountNumber"]
    assert f'data-copy="{number}"' in html
    assert "Cancel transaction…" in html and 'data-dialog-open="cancel-dialog"' in html


def test_refresh_follows_the_transaction_to_completed(executed, upstream):
    client, tx = executed
    upstream.helper(f"transactions/{tx.transaction_id}/advance", {"to": "PROCESSING"})
    upstream.helper(f"transactions/{tx.transaction_id}/advance", {"to": "COMPLETED"})
    response = client.post(reverse("payments-refresh-transaction", args=[tx.transaction_id]), follow=True)
    tx.refresh_from_db()
    assert tx.status == "COMPLETED" and tx.destination_reference_id
    html = response.content.decode()
    assert "Refreshed: completed." in html
    assert [c.new_status for c in tx.status_changes.order_by("id")] == ["AWAITING_TRANSFER", "COMPLETED"]


def test_cancel_keeps_the_reason_in_the_audit_log(executed):
    client, tx = executed
    response = client.post(
        reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": "customer changed mind"}
    )
    assert response.status_code == 302
    tx.refresh_from_db()
    assert tx.status == "CANCELLED"
    event = AuditEvent.objects.get(action="transaction.cancel")
    assert event.outcome == "success" and event.details == {"reason": "customer changed mind"}
    html = client.get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert "Cancel transaction…" not in html


def test_cancel_needs_a_reason(executed):
    client, tx = executed
    response = client.post(reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": ""})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    tx.refresh_from_db()
    assert tx.status == "AWAITING_TRANSFER"


def test_cancel_refused_by_the_api_shows_its_message_and_takes_the_apis_state(executed, upstream):
    client, tx = executed
    upstream.helper(f"transactions/{tx.transaction_id}/advance", {"to": "PROCESSING"})  # the mirror lags
    response = client.post(
        reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": "late"}, follow=True
    )
    html = response.content.decode()
    assert "The Payments API refused this:" in html and "PROCESSING" in html
    # The refusal says the mirror was behind: it now shows the API's state (the issue wants
    # the mirror to end equal to the API when a cancel races a state change).
    assert Transaction.objects.get(pk=tx.pk).status == "PROCESSING"
    assert [c.new_status for c in tx.status_changes.order_by("id")] == ["AWAITING_TRANSFER", "PROCESSING"]
    event = AuditEvent.objects.get(action="transaction.cancel")
    assert event.outcome == "failure" and event.details == {"reason": "late", "error": "BAD_REQUEST"}


def test_cancel_of_a_final_transaction_is_refused_without_calling_the_api(client_as, faulty_upstream):
    tx = TransactionFactory(status="COMPLETED")
    response = client_as("admin").post(
        reverse("payments-cancel-transaction", args=[tx.transaction_id]), {"reason": "x"}, follow=True
    )
    assert faulty_upstream.requests == []
    assert "A completed transaction cannot be cancelled." in response.content.decode()


def test_refresh_when_the_api_is_down_keeps_the_mirror(executed, faulty_upstream):
    client, tx = executed
    before = Transaction.objects.values().get(pk=tx.pk)
    faulty_upstream.fail("slow")
    html = client.post(reverse("payments-refresh-transaction", args=[tx.transaction_id]), follow=True).content.decode()
    assert "Could not refresh: The Payments API did not answer; try again." in html
    assert len(faulty_upstream.sent("GET", tx.transaction_id)) == 3  # a read: tried again twice
    assert Transaction.objects.values().get(pk=tx.pk) == before


@pytest.mark.parametrize("role", ["compliance", "auditor"])
def test_readers_see_no_actions(client_as, role):
    tx = TransactionFactory()
    html = client_as(role).get(reverse("payments-view-transaction", args=[tx.transaction_id])).content.decode()
    assert tx.transaction_id in html
    assert "Cancel transaction…" not in html and ">Refresh<" not in html


# --- The list --------------------------------------------------------------------------------


@pytest.fixture
def many(db):
    ada, bob = CustomerFactory(active=True, name="Ada"), CustomerFactory(active=True, name="Bob")
    start = timezone.now() - dt.timedelta(days=10)
    rows = []
    for i in range(60):
        rows.append(
            TransactionFactory(
                customer=ada if i % 2 else bob,
                status="COMPLETED" if i % 3 else "AWAITING_TRANSFER",
                correlation_id=f"order-{i}",
                created_upstream_at=start + dt.timedelta(hours=i * 3),
            )
        )
    return {"ada": ada, "bob": bob, "rows": rows}


def test_list_filters_and_pages_with_a_fixed_number_of_queries(client_as, many, django_assert_max_num_queries):
    client = client_as("auditor")
    url = reverse("payments-list-transactions")
    client.get(url)  # warm-up: session, permissions caches
    with django_assert_max_num_queries(6):
        first = client.get(url)
    page = first.context["page"]
    assert len(page.items) == 50 and page.next_cursor
    with django_assert_max_num_queries(6):
        second = client.get(url, {"cursor": page.next_cursor})
    assert len(second.context["page"].items) == 10
    shown = [t.transaction_id for t in page.items + second.context["page"].items]
    assert shown == [t.transaction_id for t in sorted(many["rows"], key=lambda t: t.created_upstream_at, reverse=True)]
    only = client.get(url, {"status": "AWAITING_TRANSFER", "customer": many["ada"].customer_id}).context["page"].items
    assert {t.status for t in only} == {"AWAITING_TRANSFER"} and {t.customer_id for t in only} == {many["ada"].pk}
    assert [t.correlation_id for t in client.get(url, {"correlation_id": "order-7"}).context["page"].items] == [
        "order-7"
    ]
    day = many["rows"][8].created_upstream_at.date()
    ranged = client.get(url, {"created_from": day.isoformat(), "created_until": day.isoformat()}).context["page"].items
    assert ranged and all(t.created_upstream_at.date() == day for t in ranged)
    assert len(ranged) == sum(1 for t in many["rows"] if t.created_upstream_at.date() == day)


def test_list_htmx_answers_the_results_fragment(client_as, many):
    response = client_as("operations").get(
        reverse("payments-list-transactions"), {"status": "COMPLETED"}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">') and "<h1>" not in html
    assert "Export these as CSV" in html and "status=COMPLETED" in html


def test_export_streams_the_filtered_list(client_as, many):
    response = client_as("auditor").get(reverse("payments-export-transactions"), {"customer": many["bob"].customer_id})
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="transactions-')
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:4] == ["transactionId", "status", "statusLabel", "customerId"]
    bob_rows = sorted(
        (t for t in many["rows"] if t.customer_id == many["bob"].pk), key=lambda t: t.created_upstream_at, reverse=True
    )
    assert [r[0] for r in rows[1:]] == [t.transaction_id for t in bob_rows]
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["sourceAmount"] == "100.000000000000000000" and row["correlationId"] == bob_rows[0].correlation_id
    # Codes for spreadsheets, and the staff words beside them.
    assert (row["sourcePaymentMethod"], row["sourcePaymentMethodLabel"]) == ("ACH", "ACH")
    assert (row["destinationPaymentMethod"], row["destinationPaymentMethodLabel"]) == ("BASE", "Base")
    assert row["statusLabel"] == {"AWAITING_TRANSFER": "Awaiting transfer", "COMPLETED": "Completed"}.get(
        row["status"], row["statusLabel"]
    )


def test_export_neutralises_formulas(client_as):
    TransactionFactory(correlation_id="=HYPERLINK(1)")
    body = b"".join(client_as("auditor").get(reverse("payments-export-transactions")).streaming_content).decode()
    assert "'=HYPERLINK(1)" in body
