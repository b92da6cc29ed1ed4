"""The queue's filters the home page links to: by SLA, by decision day, and the statuses of
"needs a person" (a CREATED customer only once it waited too long)."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from customers.models import CustomerStatus
from tests.factories import CustomerFactory, CustomerStatusChangeFactory

URL = reverse("customers-list-customers")
pytestmark = pytest.mark.django_db


def names(response) -> set[str]:
    assert response.status_code == 200
    return {c.name for c in response.context["page"].items}


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def clocks():
    now = timezone.now()
    return {
        # Running clocks: 23 h banked + 30 min running (ends in 30 min), 25 h over, 1 h used.
        "due": CustomerFactory(
            name="Dana Due", status="UNDER_REVIEW", waiting_on_us_seconds=23 * 3600,
            waiting_on_us_since=now - dt.timedelta(minutes=30),
        ),
        "over": CustomerFactory(
            name="Otto Over", status="UNDER_REVIEW", waiting_on_us_seconds=24 * 3600,
            waiting_on_us_since=now - dt.timedelta(hours=1),
        ),
        "ok": CustomerFactory(
            name="Olga Okay", status="UNDER_REVIEW", waiting_on_us_seconds=0,
            waiting_on_us_since=now - dt.timedelta(hours=1),
        ),
        # Paused (waiting on the customer) after 25 h on us: over, and not "due".
        "paused": CustomerFactory(
            name="Paul Paused", status="NEEDS_ADDITIONAL_INFORMATION", waiting_on_us_seconds=25 * 3600,
        ),
        # No clock kept: the time in the current state counts.
        "legacy_over": CustomerFactory(
            name="Lea Legacy", status="UNDER_REVIEW", status_since=now - dt.timedelta(hours=30),
        ),
        "legacy_due": CustomerFactory(
            name="Leo Legacy", status="UNDER_REVIEW", status_since=now - dt.timedelta(hours=23),
        ),
        "closed": CustomerFactory(name="Cleo Closed", status="ACTIVE", status_since=now - dt.timedelta(days=9)),
    }  # fmt: skip


def test_sla_breached_lists_the_cases_over_the_sla(reviewer, clocks):
    assert names(reviewer.get(URL, {"sla": "breached"})) == {"Otto Over", "Paul Paused", "Lea Legacy"}


def test_sla_due_lists_the_running_cases_whose_sla_ends_within_two_hours(reviewer, clocks):
    assert names(reviewer.get(URL, {"sla": "due"})) == {"Dana Due", "Leo Legacy"}


def test_an_unknown_sla_value_is_ignored(reviewer, clocks):
    response = reviewer.get(URL, {"sla": "whenever"})
    assert "Olga Okay" in names(response)


def test_decided_lists_the_customers_with_a_decision_that_day(reviewer):
    now = timezone.now()
    today = CustomerStatusChangeFactory(changed_at=now.replace(hour=0, minute=1))
    CustomerStatusChangeFactory(changed_at=now - dt.timedelta(days=2))
    CustomerStatusChangeFactory(new_status="UNDER_REVIEW", old_status="CREATED", changed_at=now.replace(hour=0))
    response = reviewer.get(URL, {"view": "all", "decided": now.date().isoformat()})
    assert names(response) == {today.customer.name}


def test_needs_a_person_with_a_status_keeps_only_those_that_need_one(reviewer):
    now = timezone.now()
    CustomerFactory(name="Fred Fresh", status=CustomerStatus.CREATED, status_since=now - dt.timedelta(minutes=5))
    CustomerFactory(name="Stan Stale", status=CustomerStatus.CREATED, status_since=now - dt.timedelta(days=2))
    assert names(reviewer.get(URL, {"view": "queue", "status": "CREATED"})) == {"Stan Stale"}
    # Without "needs a person" chosen, a status lists all its customers, as before.
    assert names(reviewer.get(URL, {"status": "CREATED"})) == {"Fred Fresh", "Stan Stale"}
