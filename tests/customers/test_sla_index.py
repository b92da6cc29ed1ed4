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

from customers.models import Customer, VerificationIssue
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


WAITING_CLOCK = "customer_waiting_clock"
ISSUE = "DOCUMENT_MISSING_BACK"


@pytest.fixture
def many_waiting_with_an_issue():
    """A thousand customers asked for a document, their clocks paused within the SLA: none over."""
    now = timezone.now()
    customers = Customer.objects.bulk_create(
        Customer(
            customer_id=f"waiting-{i}",
            organization_id="org",
            customer_type="INDIVIDUAL",
            status="NEEDS_ADDITIONAL_INFORMATION",
            name=f"Waiting {i}",
            status_since=now - dt.timedelta(days=3, minutes=i),
            waiting_on_us_seconds=None if i % 3 == 0 else i,
            upstream_updated_at=now,
            synced_at=now,
        )
        for i in range(1000)
    )
    VerificationIssue.objects.bulk_create(
        VerificationIssue(customer=c, code=ISSUE, customer_status=c.status) for c in customers
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE customers_customer")
        cursor.execute("ANALYZE customers_verificationissue")


def test_over_sla_with_an_issue_of_waiting_customers_reads_their_clocks_index(client_as, many_waiting_with_an_issue):
    """The issue's customers wait on the customer, none over the SLA: the page finds that from
    the clocks' partial index and the issues' index, without reading the customers in the
    queue's order."""
    postgresql_only()
    with CaptureQueriesContext(connection) as captured:
        response = client_as("compliance").get(reverse("customers-list-customers"), {"issue": ISSUE, "sla": "breached"})
    assert response.status_code == 200
    assert response.context["page"].items == []
    page = [q["sql"] for q in captured.captured_queries if "LIMIT 51" in q["sql"] and "customers_customer" in q["sql"]]
    plan = plan_of(page[0])
    scans = scans_of_customers(plan)
    assert WAITING_CLOCK in plan and not any(s.startswith("Seq Scan") or "customer_age" in s for s in scans), plan


CLOCKS = {
    "none": {},
    "legacy over": {"status_since_hours": 30},
    "running over": {"seconds": 3600, "since_hours": 25},
    "running within": {"seconds": 3600, "since_hours": 1},
    "paused over": {"seconds": 25 * 3600},
    "paused within": {"seconds": 3600},
}


@pytest.mark.parametrize("statuses", [None, ["NEEDS_ADDITIONAL_INFORMATION"], ["UNDER_REVIEW", "REJECTED"]])
def test_over_sla_with_an_issue_finds_what_the_clock_and_the_issue_say(client_as, statuses, settings):
    """Every open status with every kind of clock, each with the issue (and one without): the
    page shows exactly those over the SLA that have it, as the two filters apart say."""
    settings.CUSTOMERS_REVIEW_SLA_HOURS = 24
    now = timezone.now()
    for status in ("CREATED", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION", "REJECTED", "ACTIVE"):
        for clock, fields in CLOCKS.items():
            for with_it in (True, False):
                customer = CustomerFactory(
                    name=f"{status} {clock} {with_it}",
                    status=status,
                    status_since=now - dt.timedelta(hours=fields.get("status_since_hours", 2)),
                    waiting_on_us_seconds=fields.get("seconds"),
                    waiting_on_us_since=now - dt.timedelta(hours=fields["since_hours"])
                    if "since_hours" in fields
                    else None,
                )
                VerificationIssue.objects.create(
                    customer=customer, code=ISSUE if with_it else "SELFIE_MISMATCH", customer_status=status
                )
    params = {"issue": ISSUE, "sla": "breached", "view": "all", **({"status": statuses} if statuses else {})}
    response = client_as("compliance").get(reverse("customers-list-customers"), params)
    shown = {c.name for c in response.context["page"].items}
    over = Customer.objects.filter(sla_q("breached", timezone.now()), issues__code=ISSUE)
    if statuses:
        over = over.filter(status__in=statuses)
    expected = set(over.values_list("name", flat=True))
    assert shown == expected
    assert expected  # the data holds some of each kind it can
    assert {"NEEDS_ADDITIONAL_INFORMATION paused over True", "UNDER_REVIEW running over True"} & expected
