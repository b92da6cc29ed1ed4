"""The home pages' roll-ups: per-day figures recomputed a few days at a time, and the snapshots
the pages read."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from backoffice import rollups
from backoffice.models import DailyFigure, Snapshot
from backoffice.tasks import refresh_home_figures
from core.models import hold_lock
from customers.models import CustomerStatus
from payments.models import TransactionStatus
from tests.factories import CustomerFactory, CustomerStatusChangeFactory, TransactionFactory

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 3, 10, 12, 0, tzinfo=dt.UTC)


def days_ago(days: int, hours: int = 0) -> dt.datetime:
    return NOW - dt.timedelta(days=days, hours=hours)


def test_an_empty_mirror_gives_zeros_and_every_day_of_the_windows():
    computed = rollups.refresh(NOW)
    assert len(computed["decisions"]) == 14
    assert len(computed["transactions"]) == 30
    compliance = Snapshot.objects.get(name="compliance")
    assert compliance.computed_at == NOW
    assert compliance.data["needs_person"] == {}
    assert compliance.data["median_seconds"] is None
    assert [d["day"] for d in compliance.data["decisions"]][-1] == "2026-03-10"
    operations = Snapshot.objects.get(name="operations").data
    assert operations["today"] == {}
    assert operations["volume"]["series"] == []
    assert operations["stuck"] == {"awaiting-expired": 0, "processing-long": 0, "created-long": 0}


def test_later_runs_recompute_today_yesterday_and_the_stalest_days_only():
    rollups.refresh(NOW)
    later = NOW + dt.timedelta(minutes=1)
    computed = rollups.refresh(later)
    today = NOW.date()
    assert computed["transactions"][-2:] == [today - dt.timedelta(days=1), today]
    assert len(computed["transactions"]) == 2 + rollups.STALEST_PER_RUN
    # The next run takes the next stalest days: every day is refreshed in turn.
    again = rollups.refresh(later + dt.timedelta(minutes=1))
    assert set(again["transactions"][:2]).isdisjoint(computed["transactions"][:2])


def test_days_that_left_the_window_are_dropped():
    rollups.refresh(NOW)
    rollups.refresh(NOW + dt.timedelta(days=3))
    oldest = DailyFigure.objects.filter(figure="transactions").order_by("day").first().day
    assert oldest == (NOW + dt.timedelta(days=3)).date() - dt.timedelta(days=29)


def test_decisions_per_day_by_outcome_and_the_median_time_from_the_case_opening():
    customer = CustomerFactory(status=CustomerStatus.ACTIVE)
    # Opened two days before its approval (seen first as under review), then approved.
    CustomerStatusChangeFactory(customer=customer, old_status="", new_status="UNDER_REVIEW", changed_at=days_ago(3))
    CustomerStatusChangeFactory(customer=customer, changed_at=days_ago(1))
    other = CustomerFactory(status=CustomerStatus.REJECTED)
    CustomerStatusChangeFactory(customer=other, old_status="ACTIVE", new_status="UNDER_REVIEW", changed_at=days_ago(2))
    CustomerStatusChangeFactory(customer=other, new_status="REJECTED", changed_at=NOW - dt.timedelta(hours=11))
    # A decision whose case opened before the history began: counted, no duration.
    CustomerStatusChangeFactory(changed_at=days_ago(1, hours=2))
    # Not decisions: first seen already active (no case), and an old one outside the window.
    CustomerStatusChangeFactory(old_status="", new_status="ACTIVE", changed_at=days_ago(1))
    CustomerStatusChangeFactory(changed_at=days_ago(20))

    rollups.refresh(NOW)

    data = Snapshot.objects.get(name="compliance").data
    by_day = {d["day"]: d for d in data["decisions"]}
    assert by_day["2026-03-09"] == {"day": "2026-03-09", "ACTIVE": 2}
    assert by_day["2026-03-10"] == {"day": "2026-03-10", "REJECTED": 1}
    assert data["decision_count"] == 3
    # 48 hours for the approval, 37 for the rejection: the median is their mean.
    assert data["median_seconds"] == (48 + 37) * 3600 // 2


def test_transactions_per_day_status_rail_and_currency_with_decimal_amounts():
    TransactionFactory(status=TransactionStatus.COMPLETED, status_since=NOW - dt.timedelta(hours=1))
    TransactionFactory(status=TransactionStatus.COMPLETED, status_since=days_ago(2), source_amount=Decimal("0.10"))
    TransactionFactory(
        status=TransactionStatus.COMPLETED,
        status_since=days_ago(2),
        source_amount=Decimal("0.20"),
    )
    TransactionFactory(
        status=TransactionStatus.COMPLETED,
        status_since=days_ago(2),
        source_payment_method="SEPA",
        source_currency="EUR",
        source_amount=Decimal("5"),
    )
    TransactionFactory(status=TransactionStatus.FAILED, status_since=NOW - dt.timedelta(hours=2))
    TransactionFactory(status=TransactionStatus.EXPIRED, status_since=days_ago(40))

    rollups.refresh(NOW)

    data = Snapshot.objects.get(name="operations").data
    assert data["today"] == {"COMPLETED": 1, "FAILED": 1}
    assert data["window_by_status"] == {"COMPLETED": 4, "FAILED": 1}
    ach, sepa = data["volume"]["series"]
    assert (ach["rail"], ach["currency"], ach["count"]) == ("ACH", "USD", 3)
    assert Decimal(ach["total"]) == Decimal("100.30")
    assert Decimal(ach["amounts"][-3]) == Decimal("0.30")
    assert Decimal(ach["amounts"][-1]) == Decimal("100")
    assert (sepa["rail"], sepa["currency"], Decimal(sepa["total"])) == ("SEPA", "EUR", Decimal("5"))


def test_a_later_status_reaches_an_old_day_when_its_turn_comes():
    tx = TransactionFactory(status=TransactionStatus.PROCESSING, status_since=days_ago(10))
    rollups.refresh(NOW)
    tx.status = TransactionStatus.COMPLETED
    tx.save()
    seen = []
    for minute in range(1, 30):
        rollups.refresh(NOW + dt.timedelta(minutes=minute))
        seen.append(Snapshot.objects.get(name="operations").data["window_by_status"])
        if seen[-1] == {"COMPLETED": 1}:
            break
    assert seen[-1] == {"COMPLETED": 1}
    assert len(seen) <= 30 // rollups.STALEST_PER_RUN


def test_needs_person_unassigned_and_sla_counts(admin_user):
    now = timezone.now()
    CustomerFactory(status=CustomerStatus.UNDER_REVIEW, waiting_on_us_seconds=0, waiting_on_us_since=now)
    CustomerFactory(
        status=CustomerStatus.UNDER_REVIEW,
        assignee=admin_user,
        waiting_on_us_seconds=23 * 3600,
        waiting_on_us_since=now - dt.timedelta(minutes=30),
    )
    CustomerFactory(status=CustomerStatus.REJECTED, waiting_on_us_seconds=25 * 3600, waiting_on_us_since=None)
    CustomerFactory(status=CustomerStatus.CREATED, status_since=now - dt.timedelta(minutes=5))  # not stale yet
    CustomerFactory(status=CustomerStatus.CREATED, status_since=now - dt.timedelta(hours=2))
    CustomerFactory(status=CustomerStatus.ACTIVE)

    rollups.refresh(now)

    data = Snapshot.objects.get(name="compliance").data
    assert data["needs_person"] == {"UNDER_REVIEW": 2, "REJECTED": 1, "CREATED": 1}
    assert data["unassigned"] == 3
    assert data["sla_breached"] == 1
    assert data["sla_due"] == 1


def test_the_task_leaves_the_work_to_a_run_under_way():
    with hold_lock("home-figures", ttl=dt.timedelta(minutes=1)):
        assert refresh_home_figures.delay().get() == "skipped"
    assert not Snapshot.objects.exists()
    assert refresh_home_figures.delay().get().startswith("decisions: 14 days")
    assert Snapshot.objects.count() == 2
