"""Exports of what staff look at: the filters on screen, the page's access rules, UTC times,
cells a spreadsheet will not run as formulas, streamed."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from core.exports import formula_safe
from core.models import StaffPreference
from mirror.models import WebhookEvent
from tests.factories import AuditEventFactory, CustomerFactory, PaymentAccountFactory, WebhookEventFactory

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 1, 15, 23, 30, 5, tzinfo=dt.UTC)  # 00:30 the next day in Berlin


def rows_of(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


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
    assert rows[0][:5] == ["customerId", "name", "email", "type", "status"]
    assert len(rows) == 2
    assert rows[1][1] == "'=cmd|' /C calc'!A0" and rows[1][4] == "UNDER_REVIEW"
    assert rows[1][6] == "2026-01-15T23:30:05.000000+00:00"


def test_exports_are_in_utc_whatever_the_staff_zone(client_as):
    CustomerFactory(status="UNDER_REVIEW", status_since=AT)
    client = client_as("compliance")
    client.post(reverse("core-set-time-zone"), {"time_zone": "Europe/Berlin"})
    assert StaffPreference.objects.get().time_zone == "Europe/Berlin"

    rows = rows_of(client.get(reverse("customers-export-customers")))

    assert rows[1][6] == "2026-01-15T23:30:05.000000+00:00"


def test_payment_accounts_export_leaves_the_details_out(client_as):
    account = PaymentAccountFactory(bank=True, nickname="+44 savings")
    PaymentAccountFactory(status="INACTIVE")

    rows = rows_of(
        client_as("auditor").get(reverse("payments-export-payment-accounts"), {"account_type": "EXTERNAL_BANK_ACCOUNT"})
    )

    assert rows[0] == [
        "accountId", "customerId", "customerName", "type", "status", "nickname",
        "isThirdParty", "createdAt", "syncedAt", "missingUpstream",
    ]  # fmt: skip
    assert [r[0] for r in rows[1:]] == [account.account_id]
    assert rows[1][5] == "'+44 savings" and rows[1][6] in ("true", "false")
    assert "First Test Bank" not in ",".join(rows[1])  # the type-specific details stay out


def test_audit_log_export_follows_the_filters(client_as):
    AuditEventFactory(action="customer.update", details={"sections": ["kyc"]})
    AuditEventFactory(action="auth.login")

    rows = rows_of(client_as("auditor").get(reverse("core-export-audit-events"), {"action": "customer.update"}))

    assert rows[0][:3] == ["createdAt", "actor", "action"]
    assert [r[2] for r in rows[1:]] == ["customer.update"]
    assert rows[1][7] == '{"sections": ["kyc"]}'
    assert rows[1][0].endswith("+00:00")


def test_webhook_inbox_export_follows_the_state_and_leaves_payloads_out(client_as):
    failed = WebhookEventFactory(state=WebhookEvent.State.FAILED, last_error="-1 attempts left")
    WebhookEventFactory(state=WebhookEvent.State.PROCESSED)

    response = client_as("admin").get(reverse("mirror-export-inbox-events"), {"state": "failed"})
    rows = rows_of(response)

    assert [r[0] for r in rows[1:]] == [failed.event_id]
    assert rows[1][4] == "'-1 attempts left"
    assert "payload" not in ",".join(rows[0]).lower()


@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("customers-export-customers", "customers-list-customers"),
        ("payments-export-transactions", "payments-list-transactions"),
        ("payments-export-payment-accounts", "payments-list-payment-accounts"),
        ("core-export-audit-events", "core-list-audit-events"),
        ("mirror-export-inbox-events", "mirror-list-inbox-events"),
    ],
)
def test_each_list_offers_its_export_with_the_filters_on_screen(client_as, name, page):
    html = client_as("admin").get(reverse(page), {"q": "x", "state": "failed"}).content.decode()
    assert f'href="{reverse(name)}?' in html and "data-export" in html
    assert "state=failed" in html


def test_the_filters_dates_are_the_pages_own_zone(client_as):
    from core.models import AuditEvent

    event = AuditEventFactory(action="customer.update")
    AuditEvent.objects.filter(pk=event.pk).update(created_at=AT)  # 16 January in Berlin
    client = client_as("auditor")
    client.post(reverse("core-set-time-zone"), {"time_zone": "Europe/Berlin"})
    query = {"since": "2026-01-16", "action": "customer.update"}

    page = client.get(reverse("core-list-audit-events"), query).content.decode()
    rows = rows_of(client.get(reverse("core-export-audit-events"), query))

    assert event.target_id in page
    assert "2026-01-16 00:30:05" in page
    assert [r[6] for r in rows[1:]] == [event.request_id]
    assert rows[1][0] == "2026-01-15T23:30:05.000000+00:00"
