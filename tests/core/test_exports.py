"""Exports of what staff look at: the filters on screen, the page's access rules, UTC times,
cells a spreadsheet will not run as formulas, streamed."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from core.exports import formula_safe
from mirror.models import WebhookEvent
from staff.models import StaffPreference
from tests.factories import (
    AuditEventFactory,
    CustomerFactory,
    PaymentAccountFactory,
    TransactionFactory,
    VerificationIssueFactory,
    WebhookEventFactory,
)

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 1, 15, 23, 30, 5, tzinfo=dt.UTC)  # 00:30 the next day in Berlin


def rows_of(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def records_of(response) -> list[dict[str, str]]:
    header, *rows = rows_of(response)
    assert len(set(header)) == len(header)
    return [dict(zip(header, row, strict=True)) for row in rows]


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_formula_start_is_prefixed(start):
    assert formula_safe(f"{start}HYPERLINK(1)") == f"'{start}HYPERLINK(1)"


@pytest.mark.parametrize("text", ["", "Ada", "a=b", " =1", "1+1", "'=already"])
def test_other_text_is_kept(text):
    assert formula_safe(text) == text


def test_review_queue_export_follows_the_filters_and_is_formula_safe(client_as):
    CustomerFactory(name="=cmd|' /C calc'!A0", status="UNDER_REVIEW", status_since=AT)
    CustomerFactory(name="Bob", status="ACTIVE")
    response = client_as("compliance").get(reverse("customers-export-customers"), {"status": "UNDER_REVIEW"})

    rows = rows_of(response)

    assert response["Content-Disposition"].startswith('attachment; filename="review-queue-')
    assert rows[0][:7] == ["customerId", "name", "email", "type", "typeLabel", "status", "statusLabel"]
    assert len(rows) == 2
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["name"] == "'=cmd|' /C calc'!A0" and row["status"] == "UNDER_REVIEW"
    assert row["statusSince"] == "2026-01-15T23:30:05.000000+00:00"


def test_review_queue_export_carries_codes_and_their_staff_words(client_as):
    customer = CustomerFactory(
        status="NEEDS_ADDITIONAL_INFORMATION", customer_type="BUSINESS", case_decision="escalated"
    )
    VerificationIssueFactory(customer=customer, code="DOCUMENT_MISSING_BACK")
    VerificationIssueFactory(customer=customer, code="PROOF_OF_ADDRESS_MISSING")
    CustomerFactory(status="UNDER_REVIEW", customer_type="WHATEVER_NEW")  # no issue; a type no vocabulary knows
    VerificationIssueFactory(customer=CustomerFactory(status="REJECTED"), code="=NEW_CODE")

    records = records_of(client_as("compliance").get(reverse("customers-export-customers"), {"view": "all"}))

    by_status = {r["status"]: r for r in records}
    waiting = by_status["NEEDS_ADDITIONAL_INFORMATION"]
    assert (waiting["statusLabel"], waiting["typeLabel"]) == ("Needs additional information", "Business")
    assert sorted(waiting["issues"].split("; ")) == ["DOCUMENT_MISSING_BACK", "PROOF_OF_ADDRESS_MISSING"]
    assert sorted(waiting["issuesLabel"].split("; ")) == ["Back of ID missing", "Proof of address missing"]
    assert (waiting["caseDecision"], waiting["caseDecisionLabel"]) == ("escalated", "Escalated")
    review = by_status["UNDER_REVIEW"]
    assert (review["issues"], review["issuesLabel"], review["typeLabel"]) == ("", "", "Whatever new")
    # A code the vocabulary lacks reads in words, and stays formula-safe both ways.
    assert (by_status["REJECTED"]["issues"], by_status["REJECTED"]["issuesLabel"]) == ("'=NEW_CODE", "'=new code")


def test_exports_are_in_utc_whatever_the_staff_zone(client_as):
    CustomerFactory(status="UNDER_REVIEW", status_since=AT)
    client = client_as("compliance")
    client.post(reverse("staff-set-time-zone"), {"time_zone": "Europe/Berlin"})
    assert StaffPreference.objects.get().time_zone == "Europe/Berlin"

    records = records_of(client.get(reverse("customers-export-customers")))

    assert records[0]["statusSince"] == "2026-01-15T23:30:05.000000+00:00"


def test_payment_accounts_export_leaves_the_details_out(client_as):
    account = PaymentAccountFactory(bank=True, nickname="+44 savings")
    PaymentAccountFactory(status="INACTIVE")

    rows = rows_of(
        client_as("auditor").get(reverse("payments-export-payment-accounts"), {"account_type": "EXTERNAL_BANK_ACCOUNT"})
    )

    assert rows[0] == [
        "accountId", "customerId", "customerName", "type", "typeLabel", "status", "statusLabel", "nickname",
        "isThirdParty", "createdAt", "syncedAt", "missingUpstream",
    ]  # fmt: skip
    assert [r[0] for r in rows[1:]] == [account.account_id]
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["nickname"] == "'+44 savings" and row["isThirdParty"] in ("true", "false")
    assert (row["type"], row["typeLabel"]) == ("EXTERNAL_BANK_ACCOUNT", "External bank account")
    assert row["statusLabel"] == {"ACTIVE": "Active", "PENDING": "Pending"}[row["status"]]
    assert "First Test Bank" not in ",".join(rows[1])  # the type-specific details stay out


def test_audit_log_export_follows_the_filters(client_as):
    AuditEventFactory(action="customer.update", details={"sections": ["kyc"]})
    AuditEventFactory(action="auth.login")

    rows = rows_of(client_as("auditor").get(reverse("audit-export-events"), {"action": "customer.update"}))

    assert rows[0][:4] == ["createdAt", "actor", "action", "actionLabel"]
    assert [r[2] for r in rows[1:]] == ["customer.update"]
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["details"] == '{"sections": ["kyc"]}'
    assert row["actionLabel"] == "Customer update"  # an action no vocabulary names, in words all the same
    assert row["createdAt"].endswith("+00:00")


def test_audit_log_export_names_the_actions(client_as):
    AuditEventFactory(action="customer.decide", details={"decision": "escalated"})
    AuditEventFactory(action="staff.change_roles")
    records = records_of(client_as("auditor").get(reverse("audit-export-events")))
    assert {r["action"]: r["actionLabel"] for r in records} == {
        "customer.decide": "Decided the case",
        "staff.change_roles": "Changed the roles",
        "auth.login": "Signed in",  # the auditor's own login
    }


def test_webhook_inbox_export_follows_the_state_and_leaves_payloads_out(client_as):
    failed = WebhookEventFactory(state=WebhookEvent.State.FAILED, last_error="-1 attempts left")
    WebhookEventFactory(state=WebhookEvent.State.PROCESSED)

    response = client_as("admin").get(reverse("mirror-export-inbox-events"), {"state": "failed"})
    rows = rows_of(response)

    assert [r[0] for r in rows[1:]] == [failed.event_id]
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["lastError"] == "'-1 attempts left"
    assert (row["eventType"], row["eventTypeLabel"]) == ("customer.update", "Customer changed")
    assert (row["state"], row["stateLabel"]) == ("failed", "Failed")
    assert "payload" not in ",".join(rows[0]).lower()


@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("customers-export-customers", "customers-list-customers"),
        ("payments-export-transactions", "payments-list-transactions"),
        ("payments-export-payment-accounts", "payments-list-payment-accounts"),
        ("audit-export-events", "audit-list-events"),
        ("mirror-export-inbox-events", "mirror-list-inbox-events"),
    ],
)
def test_each_list_offers_its_export_with_the_filters_on_screen(client_as, name, page):
    html = client_as("admin").get(reverse(page), {"q": "x", "state": "failed"}).content.decode()
    assert f'href="{reverse(name)}?' in html and "data-export" in html
    assert "state=failed" in html


def test_the_filters_dates_are_the_pages_own_zone(client_as):
    from audit.models import AuditEvent

    event = AuditEventFactory(action="customer.update")
    AuditEvent.objects.filter(pk=event.pk).update(created_at=AT)  # 16 January in Berlin
    client = client_as("auditor")
    client.post(reverse("staff-set-time-zone"), {"time_zone": "Europe/Berlin"})
    query = {"since": "2026-01-16", "action": "customer.update"}

    page = client.get(reverse("audit-list-events"), query).content.decode()
    rows = rows_of(client.get(reverse("audit-export-events"), query))

    assert event.target_id in page
    assert "2026-01-16 00:30:05" in page
    assert [r[rows[0].index("requestId")] for r in rows[1:]] == [event.request_id]
    assert rows[1][0] == "2026-01-15T23:30:05.000000+00:00"


@pytest.mark.parametrize(
    ("name", "cell"),
    [
        *[(f"{start}SUM(1)", f"'{start}SUM(1)") for start in ["=", "+", "-", "@", "\t", "\r"]],
        ("", ""),
        ("Ada =1", "Ada =1"),
        ("Ada\rLovelace\n", "Ada\rLovelace\n"),
        ("Ærøskøbing ApS", "Ærøskøbing ApS"),
        ("'=already", "'=already"),
    ],
)
def test_the_database_applies_the_formula_rule_to_every_first_character(client_as, name, cell):
    """The export's cells are guarded in SQL (COPY on PostgreSQL, the CASE elsewhere for joined
    cells): the same rule as formula_safe, character by character."""
    customer = CustomerFactory(name=name, status="UNDER_REVIEW")
    VerificationIssueFactory(customer=customer, code="=HYPERLINK")
    response = client_as("compliance").get(reverse("customers-export-customers"), {"status": "UNDER_REVIEW"})
    (record,) = records_of(response)
    assert record["name"] == cell == formula_safe(name)
    assert record["issues"] == "'=HYPERLINK"


def test_an_export_leaves_the_connections_settings_as_it_found_them(client_as):
    """The COPY runs with PostgreSQL's JIT off, and the setting is reset after the download, so
    the connection's later queries keep the server's default."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("the JIT setting is PostgreSQL's")
    for _ in range(3):
        TransactionFactory()
    client = client_as("auditor")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        before = cursor.fetchone()[0]
    with CaptureQueriesContext(connection) as captured:
        assert len(rows_of(client.get(reverse("payments-export-transactions")))) == 4
    statements = [query["sql"] for query in captured.captured_queries]
    assert statements[-2:] == ["SET jit = off", "RESET jit"]  # the COPY runs between them
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == before
