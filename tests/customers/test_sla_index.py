"""`?sla=due` answers from the expression index customer_sla_start (migration 0010) on
PostgreSQL, not from a walk of every open case; and the indexed expression finds exactly the
cases the clock says are due (the SLA filter's own tests, tests/customers/test_queue_case_filters.py,
run on either database)."""

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from customers.models import Customer
from customers.selectors import needs_person_q, sla, sla_q
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db

INDEX = "customer_sla_start"


def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("the expression index and its plans are PostgreSQL's")


@pytest.fixture
def many_open_cases():
    """A thousand open cases far from their SLA's end, and the few that are due."""
    now = timezone.now()
    Customer.objects.bulk_create(
        Customer(
            customer_id=f"bulk-{i}",
            organization_id="org",
            customer_type="INDIVIDUAL",
            status="UNDER_REVIEW",
            name=f"Bulk {i}",
            status_since=now - dt.timedelta(minutes=i),
            waiting_on_us_seconds=None if i % 2 else i,
            waiting_on_us_since=None if i % 2 else now - dt.timedelta(minutes=i),
            upstream_updated_at=now,
            synced_at=now,
        )
        for i in range(1000)
    )
    due = [
        CustomerFactory(name="Dana Due", status="UNDER_REVIEW", status_since=now - sla() + dt.timedelta(minutes=30)),
        CustomerFactory(
            name="Rita Running",
            status="UNDER_REVIEW",
            waiting_on_us_seconds=int((sla() - dt.timedelta(hours=1)).total_seconds()),
            waiting_on_us_since=now,
        ),
    ]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE customers_customer")
    return due


def plan_of(sql: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql.replace("%", "%%"))
        return json.dumps(cursor.fetchone()[0])


def scans_of_customers(plan: str) -> list[str]:
    """The ways the plan reads customers_customer: each node's type and index."""

    def walk(node):
        if node.get("Relation Name") == "customers_customer":
            yield f"{node['Node Type']} {node.get('Index Name', '')}".strip()
        for child in node.get("Plans", []):
            yield from walk(child)

    return list(walk(json.loads(plan)[0]["Plan"]))


def test_the_due_filter_of_the_queue_reads_the_sla_start_index(client_as, many_open_cases):
    postgresql_only()
    client = client_as("compliance")
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("customers-list-customers"), {"sla": "due"})
    assert response.status_code == 200
    assert {c.name for c in response.context["page"].items} == {"Dana Due", "Rita Running"}
    page = [q["sql"] for q in captured.captured_queries if "LIMIT 51" in q["sql"] and "customers_customer" in q["sql"]]
    assert page, "the page's query was not found"
    plan = plan_of(page[0])
    assert INDEX in plan and not any(scan.startswith("Seq Scan") for scan in scans_of_customers(plan)), plan


def test_the_home_figures_count_the_due_cases_from_the_index(many_open_cases):
    postgresql_only()
    due = Customer.objects.filter(needs_person_q(), sla_q("due", timezone.now()))
    assert due.count() == 2
    sql, params = due.values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = json.dumps(cursor.fetchone()[0])
    assert INDEX in plan and not any(scan.startswith("Seq Scan") for scan in scans_of_customers(plan)), plan


@pytest.mark.parametrize("minutes_left", [-5, 0, 1, 60, 119, 120, 121, 600])
def test_the_indexed_expression_agrees_with_the_clock(minutes_left):
    """A case is due when its clock (Customer.waiting_on_us, the one the row shows) reaches the
    SLA within SLA_DUE_SOON from now: the same for a running clock and for a row without one."""
    now = timezone.now()
    left = dt.timedelta(minutes=minutes_left)
    running = CustomerFactory(
        status="UNDER_REVIEW",
        waiting_on_us_seconds=3600,
        waiting_on_us_since=now - (sla() - dt.timedelta(hours=1) - left),
    )
    legacy = CustomerFactory(status="UNDER_REVIEW", status_since=now - (sla() - left))
    paused = CustomerFactory(
        status="NEEDS_ADDITIONAL_INFORMATION", waiting_on_us_seconds=int((sla() - left).total_seconds())
    )
    expected = 0 <= minutes_left < 120
    due = set(Customer.objects.filter(sla_q("due", now)).values_list("pk", flat=True))
    assert (running.pk in due) is expected
    assert (legacy.pk in due) is expected
    assert paused.pk not in due
