"""Cases by kind in the review queue: verification (the customer's data), transaction
monitoring and watch-list screening (open alerts, counted on the customer by monitoring in the
transaction that raises or decides them)."""

import datetime as dt
import itertools

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from customers.filters import QueueFilter
from customers.models import CaseDecision, Customer
from monitoring.models import Alert, AlertDecision, AlertKind
from monitoring.services import alert_decide, raise_alerts
from tests.factories import CustomerFactory, StaffUserFactory

URL = reverse("customers-list-customers")
pytestmark = pytest.mark.django_db


def names(response) -> set[str]:
    assert response.status_code == 200
    return {c.name for c in response.context["page"].items}


_keys = itertools.count()


def alert(customer, kind=AlertKind.SCREENING, key=None) -> Alert:
    key = key or f"test:{kind}:{customer.pk}:{next(_keys)}"
    return Alert(kind=kind, customer=customer, dedupe_key=key, sentence="Name matches a watch-list entry")


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def cases():
    now = timezone.now()
    rows = {
        "review": CustomerFactory(name="Rita Review", status="UNDER_REVIEW", status_since=now - dt.timedelta(days=3)),
        "screened": CustomerFactory(name="Sam Screened", status="ACTIVE", status_since=now - dt.timedelta(days=9)),
        "watched": CustomerFactory(name="Mo Monitored", status="ACTIVE", status_since=now - dt.timedelta(days=5)),
        "quiet": CustomerFactory(name="Quinn Quiet", status="ACTIVE"),
    }
    raise_alerts([alert(rows["screened"]), alert(rows["screened"])])
    raise_alerts([alert(rows["watched"], AlertKind.MONITORING)])
    return rows


def counts(customer) -> tuple[int, int]:
    customer.refresh_from_db()
    return customer.open_monitoring_alerts, customer.open_screening_alerts


def test_raising_alerts_counts_them_on_the_customer_once(cases):
    assert counts(cases["screened"]) == (0, 2)
    assert counts(cases["watched"]) == (1, 0)
    # Raised again (a webhook and a sync of the same transaction, a list imported again): one alert.
    again = Alert.objects.filter(customer=cases["watched"]).get()
    raise_alerts([alert(cases["watched"], AlertKind.MONITORING, key=again.dedupe_key)])
    assert counts(cases["watched"]) == (1, 0)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, {"Rita Review", "Sam Screened", "Mo Monitored"}),
        ({"kind": "verification"}, {"Rita Review"}),
        ({"kind": "monitoring"}, {"Mo Monitored"}),
        ({"kind": "screening"}, {"Sam Screened"}),
        ({"kind": "screening", "view": "all"}, {"Sam Screened"}),
        ({"view": "all"}, {"Rita Review", "Sam Screened", "Mo Monitored", "Quinn Quiet"}),
        ({"kind": "screening", "status": "ACTIVE", "view": "queue"}, {"Sam Screened"}),
        ({"kind": "verification", "status": "ACTIVE", "view": "queue"}, set()),
    ],
)
def test_the_kind_filter(reviewer, cases, params, expected):
    assert names(reviewer.get(URL, params)) == expected


def test_rows_show_the_open_alerts_in_staff_words(reviewer, cases):
    html = reviewer.get(URL, {"kind": "screening"}).content.decode()
    assert "2 Watchlist screening" in html
    html = reviewer.get(URL, {"kind": "monitoring"}).content.decode()
    assert "1 Transaction monitoring" in html
    assert '<option value="screening">Watchlist screening</option>' in reviewer.get(URL).content.decode()


def test_deciding_the_alerts_closes_the_case(reviewer, cases):
    screened = cases["screened"]
    first, second = Alert.objects.filter(customer=screened).order_by("pk")
    lead = StaffUserFactory()
    alert_decide(user=lead, alert=first, decision=AlertDecision.NEEDS_MORE, reason="Asked for a passport")
    assert counts(screened) == (0, 2)  # "needs more" keeps it open
    alert_decide(user=lead, alert=first, decision=AlertDecision.FALSE_POSITIVE, reason="Other birth date")
    assert counts(screened) == (0, 1)
    assert "Sam Screened" in names(reviewer.get(URL, {"kind": "screening"}))
    alert_decide(user=lead, alert=second, decision=AlertDecision.TRUE_MATCH, reason="Same passport")
    assert counts(screened) == (0, 0)
    assert names(reviewer.get(URL, {"kind": "screening"})) == set()


def test_an_escalated_alert_case_waits_for_a_lead_not_in_the_queue(reviewer, cases):
    Customer.objects.filter(pk=cases["screened"].pk).update(case_decision=CaseDecision.Kind.ESCALATED)
    assert names(reviewer.get(URL, {"kind": "screening"})) == set()
    assert names(reviewer.get(URL, {"kind": "screening", "view": "all"})) == {"Sam Screened"}


def test_next_case_of_a_kind_claims_its_oldest(reviewer, cases):
    response = reviewer.post(
        reverse("customers-claim-next-case"),
        {"kind": "monitoring", "submission": "5f0e8ad4-7a4e-4f6c-9d3a-0c0f7c8b9e11"},
    )
    assert response.status_code == 302
    cases["watched"].refresh_from_db()
    assert cases["watched"].assignee is not None
    assert Customer.objects.filter(assignee__isnull=False).count() == 1


def test_the_kind_costs_no_query_more(reviewer, cases, django_assert_max_num_queries):
    reviewer.get(URL)  # warm-up: session, permissions, counts
    with django_assert_max_num_queries(6):
        response = reviewer.get(URL, {"kind": "screening", "sort": "updated"})
    assert names(response) == {"Sam Screened"}


def test_the_export_carries_the_alert_counts(reviewer, cases):
    response = reviewer.get(reverse("customers-export-customers"), {"kind": "screening"})
    body = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    header, *rows = body.strip().splitlines()
    assert "openMonitoringAlerts" in header and "openScreeningAlerts" in header
    assert len(rows) == 1 and "Sam Screened" in rows[0] and rows[0].endswith(",0,2")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="partial indexes are read by PostgreSQL's planner")
@pytest.mark.parametrize(("kind", "sort"), [("screening", "age"), ("monitoring", "updated")])
def test_a_kind_reads_its_partial_index(cases, kind, sort):
    """The filter's predicate is the partial indexes' own: the few customers with open alerts
    are read from them, never by walking the table (which would be a million rows)."""
    filterset = QueueFilter({"kind": kind, "sort": sort}, user=StaffUserFactory())
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = filterset.qs.prefetch_related(None).order_by(*filterset.ordering)[:51].explain()
    assert f"customer_{kind}_" in plan, plan
