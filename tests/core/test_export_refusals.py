"""An export answers a refused filter with the list's own message (400), never a broken
download, and an export that fails midway says so in its last line. Through the views, the
streamed answer read to its end, on SQLite and PostgreSQL alike (CI runs the suite on both)."""

import re

import pytest
from django.db import connection
from django.urls import reverse

from core import exports
from core.exports import INCOMPLETE_LINE
from tests.factories import AuditEventFactory

REFUSED = [
    ("customers-export-customers", "customers-list-customers", "compliance", "status=BOGUS"),
    ("customers-export-customers", "customers-list-customers", "compliance", "type=BOGUS"),
    ("customers-export-customers", "customers-list-customers", "compliance", "updated_since=2026-02-31"),
    ("payments-export-transactions", "payments-list-transactions", "operations", "status=BOGUS"),
    ("payments-export-payment-accounts", "payments-list-payment-accounts", "operations", "status=BOGUS"),
    ("audit-export-events", "audit-list-events", "auditor", "since=2026-02-31"),
]


def _alert(html: str) -> str:
    return re.search(r'role="alert">(.*?)</p>', html, re.S).group(1)


@pytest.mark.django_db
@pytest.mark.parametrize(("export", "page", "role", "query"), REFUSED)
def test_a_refused_filter_answers_400_with_the_lists_message(client_as, export, page, role, query):
    client = client_as(role)
    answer = client.get(f"{reverse(export)}?{query}")

    assert answer.status_code == 400
    assert not answer.streaming
    assert answer["Content-Type"].startswith("text/html")
    html = answer.content.decode()
    # The very words the list shows for these filters, and the way back to it with them.
    listed = client.get(f"{reverse(page)}?{query}").content.decode()
    assert _alert(html) == _alert(listed)
    assert _alert(html).startswith("Check the filters:")
    assert f'href="{reverse(page)}?{query}"' in html


@pytest.mark.django_db
def test_a_filter_that_selects_nothing_exports_the_header_alone(client_as):
    """Valid filters whose queryset is `.none()` (a status that never needs a person, asked
    among those that do): the header and no error, PostgreSQL's COPY included."""
    answer = client_as("compliance").get(reverse("customers-export-customers"), {"view": "queue", "status": "ACTIVE"})
    assert answer.status_code == 200
    body = b"".join(answer.streaming_content)
    assert body.startswith(b"customerId,name,email") and body.count(b"\n") == 1
    assert INCOMPLETE_LINE not in body


@pytest.mark.django_db(transaction=True)
def test_an_export_that_fails_midway_ends_with_a_line_that_says_so(client_as, monkeypatch):
    """The database goes away after the first rows were sent: the download still ends
    normally, its last line says it is incomplete."""
    monkeypatch.setattr(exports, "CHUNK_ROWS", 10)
    monkeypatch.setattr(exports, "CHUNK_BYTES", 512)
    AuditEventFactory.create_batch(200, action="staff.add")
    answer = client_as("auditor").get(reverse("audit-export-events"))
    assert answer.status_code == 200
    chunks = iter(answer.streaming_content)
    received = [next(chunks), next(chunks)]  # the header, then the first rows
    connection.close()
    received.extend(chunks)

    lines = b"".join(received).splitlines(keepends=True)
    assert lines[-1] == INCOMPLETE_LINE
    assert 1 < len(lines) - 2 < 200  # some rows, not all
    assert all(line.count(b",") >= 7 for line in lines[1:-1])  # whole rows before it
