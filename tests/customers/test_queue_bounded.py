"""The queue's plans do not depend on luck: the issue filter starts from the issues of that code
and status, and a search looks at a bounded set of customers (customers.selectors)."""

import pytest
from django.urls import reverse

from customers import selectors
from tests.factories import CustomerFactory, VerificationIssueFactory

pytestmark = pytest.mark.django_db


def listed(client, **params):
    response = client.get(reverse("customers-list-customers"), {"view": "all", **params})
    assert response.status_code == 200
    return {c.customer_id for c in response.context["page"].items}


def test_the_issue_filter_with_a_status_finds_the_issues_of_that_status_only(client_as):
    waiting = CustomerFactory(status="NEEDS_ADDITIONAL_INFORMATION")
    rejected = CustomerFactory(status="REJECTED")
    VerificationIssueFactory(customer=waiting, code="DOCUMENT_MISSING_BACK")
    VerificationIssueFactory(customer=rejected, code="DOCUMENT_MISSING_BACK")
    CustomerFactory(status="UNDER_REVIEW")
    client = client_as("compliance")

    assert listed(client, issue="DOCUMENT_MISSING_BACK") == {waiting.customer_id, rejected.customer_id}
    assert listed(client, issue="DOCUMENT_MISSING_BACK", status="REJECTED") == {rejected.customer_id}
    assert listed(client, issue="DOCUMENT_MISSING_BACK", status="UNDER_REVIEW") == set()


def test_the_issue_filter_reads_the_issue_rows_of_its_code_and_statuses():
    sql = str(selectors.with_issue("DOCUMENT_MISSING_BACK", statuses=["UNDER_REVIEW"]).query)
    assert '"customers_verificationissue"."code" = DOCUMENT_MISSING_BACK' in sql
    assert '"customers_verificationissue"."customer_status" IN (UNDER_REVIEW)' in sql


def test_a_search_looks_at_a_bounded_set_and_says_so(client_as, monkeypatch):
    monkeypatch.setattr(selectors, "SEARCH_CANDIDATES", 3)
    for i in range(6):
        CustomerFactory(name=f"Olivia Smith {i}", email=f"olivia{i}@example.com", status="UNDER_REVIEW")
    other = CustomerFactory(name="Noah Kim", email="noah@example.com", status="UNDER_REVIEW")
    client = client_as("compliance")

    found = listed(client, q="Olivia")
    assert len(found) == 3 and other.customer_id not in found
    assert listed(client, q="Noah") == {other.customer_id}
    assert listed(client, q="noah@") == {other.customer_id}
    page = client.get(reverse("customers-list-customers"), {"q": "Olivia"}).content.decode()
    assert "Looks at the first 3 customers whose name or e-mail starts with it" in page


def test_a_status_that_never_needs_a_person_makes_the_queue_empty_without_reading_it(
    client_as, django_assert_num_queries
):
    CustomerFactory(status="DEACTIVATED")
    waiting = CustomerFactory(status="UNDER_REVIEW")
    client = client_as("compliance")
    url = reverse("customers-list-customers")
    client.get(url, {"view": "queue"})  # warm-up: session, permissions, counts
    # Session, user, permissions, the assignee choices: neither the page nor its issues are read
    # (a verification case; open alerts make a case of any status, tests/customers/test_queue_kinds.py).
    with django_assert_num_queries(4) as empty:
        response = client.get(url, {"view": "queue", "status": "DEACTIVATED", "kind": "verification"})
    assert list(response.context["page"].items) == []
    assert not any("customers_customer" in q["sql"] and "LIMIT 51" in q["sql"] for q in empty.captured_queries)
    assert listed(client, view="queue", status=["DEACTIVATED", "UNDER_REVIEW"]) == {waiting.customer_id}
