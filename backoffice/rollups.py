"""The home pages' roll-ups: what the figures of a role's home page are made of.

The beat task (backoffice.tasks.refresh_home_figures, every minute) calls `refresh()`:

- per-day figures (`DailyFigure`) are recomputed a few days at a time: today and yesterday on
  every run (where late updates land), any day of the window not computed yet (the first run
  fills the window), and the STALEST_PER_RUN days computed longest ago, so that an old day
  picks up its transactions' later statuses within (window / STALEST_PER_RUN) minutes. A day
  is read through an index on its time column: a day's rows, never the whole table;
- the counts over sets that may hold most of the mirror (cases needing a person, cases over
  SLA, stuck transactions) are taken once per run, not per page view;
- each home section's values are then written as one `Snapshot` row, which a page reads in
  one query and labels with its age.
"""

import datetime as dt
import statistics
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from customers.models import CASE_OPEN_STATUSES, Customer, CustomerStatusChange
from customers.selectors import DECISION_STATUSES, needs_person_q, sla_q
from payments.models import Transaction, TransactionStatus
from payments.selectors import STUCK_RULE_LABELS, transactions_stuck

from .models import DailyFigure, Snapshot

DECISIONS = "decisions"
TRANSACTIONS = "transactions"
# Days each per-day figure keeps (today included).
WINDOWS = {DECISIONS: 14, TRANSACTIONS: 30}
STALEST_PER_RUN = 2
# The volume chart shows this many rail·currency pairs, the busiest.
VOLUME_SERIES = 6
COMPLIANCE, OPERATIONS = "compliance", "operations"
# Raised when a snapshot's keys change: the pages treat an older one as not computed yet.
SNAPSHOT_VERSION = 1


def older_days_minutes(figure: str) -> int:
    """At most how many minutes (runs) an older day of the window waits for its recomputation."""
    return -(-(WINDOWS[figure] - 2) // STALEST_PER_RUN)


def day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
    return start, start + dt.timedelta(days=1)


def window(figure: str, today: dt.date) -> list[dt.date]:
    days = WINDOWS[figure]
    return [today - dt.timedelta(days=days - 1 - i) for i in range(days)]


def refresh(now: dt.datetime | None = None) -> dict[str, list[dt.date]]:
    """Recompute the days due and write every section's snapshot; returns the days computed."""
    now = now or timezone.now()
    today = now.astimezone(dt.UTC).date()
    computed = {}
    for figure in WINDOWS:
        days = window(figure, today)
        computed[figure] = days_due(figure, days)
        for day in computed[figure]:
            compute_day(figure, day, now)
        DailyFigure.objects.filter(figure=figure, day__lt=days[0]).delete()
    write_snapshots(now)
    return computed


def days_due(figure: str, days: list[dt.date]) -> list[dt.date]:
    done = dict(DailyFigure.objects.filter(figure=figure, key="", day__gte=days[0]).values_list("day", "computed_at"))
    due = {days[-1], days[-2]} | {day for day in days if day not in done}
    older = sorted((at, day) for day, at in done.items() if day not in due and day in days)
    due |= {day for _at, day in older[:STALEST_PER_RUN]}
    return sorted(due)


def compute_day(figure: str, day: dt.date, now: dt.datetime) -> None:
    rows = _decision_rows(day, now) if figure == DECISIONS else _transaction_rows(day, now)
    with transaction.atomic():
        DailyFigure.objects.filter(figure=figure, day=day).delete()
        DailyFigure.objects.bulk_create(rows)


def _decision_rows(day: dt.date, now: dt.datetime) -> list[DailyFigure]:
    """Decisions seen that day (a case moved to ACTIVE or REJECTED), by outcome, with the
    seconds from the case's opening (its last move into an open state from outside) to each."""
    start, end = day_bounds(day)
    opened = (
        CustomerStatusChange.objects.filter(
            customer=OuterRef("customer"), changed_at__lte=OuterRef("changed_at"), new_status__in=CASE_OPEN_STATUSES
        )
        .exclude(old_status__in=CASE_OPEN_STATUSES)
        .order_by("-changed_at", "-id")
        .values("changed_at")[:1]
    )
    decisions = (
        CustomerStatusChange.objects.filter(
            new_status__in=DECISION_STATUSES,
            old_status__in=CASE_OPEN_STATUSES,
            changed_at__gte=start,
            changed_at__lt=end,
        )
        .exclude(old_status=F("new_status"))
        .annotate(opened_at=Subquery(opened))
        .values_list("new_status", "changed_at", "opened_at")
    )
    counts: dict[str, int] = {}
    seconds: list[int] = []
    for status, changed_at, opened_at in decisions:
        counts[status] = counts.get(status, 0) + 1
        if opened_at is not None:
            seconds.append(max(0, int((changed_at - opened_at).total_seconds())))
    rows = [
        DailyFigure(figure=DECISIONS, day=day, key=status, count=n, computed_at=now) for status, n in counts.items()
    ]
    rows.append(
        DailyFigure(
            figure=DECISIONS,
            day=day,
            key="",
            count=sum(counts.values()),
            extra={"seconds": sorted(seconds)},
            computed_at=now,
        )
    )
    return rows


def _transaction_rows(day: dt.date, now: dt.datetime) -> list[DailyFigure]:
    """Transactions created that day by status, source rail and source currency: how many and
    their source amount (Decimal)."""
    start, end = day_bounds(day)
    groups = (
        Transaction.objects.filter(created_upstream_at__gte=start, created_upstream_at__lt=end)
        .values_list("status", "source_payment_method", "source_currency")
        .annotate(n=Count("id"), amount=Sum("source_amount"))
        .order_by()
    )
    rows = [
        DailyFigure(
            figure=TRANSACTIONS,
            day=day,
            key=transaction_key(status, rail, currency),
            count=n,
            amount=amount,
            computed_at=now,
        )
        for status, rail, currency, n, amount in groups
    ]
    rows.append(DailyFigure(figure=TRANSACTIONS, day=day, key="", count=sum(r.count for r in rows), computed_at=now))
    return rows


def transaction_key(status: str, rail: str, currency: str) -> str:
    return f"{status}|{rail}|{currency}"


# --- Snapshots ----------------------------------------------------------------------------------


def write_snapshots(now: dt.datetime) -> None:
    today = now.astimezone(dt.UTC).date()
    for name, data in ((COMPLIANCE, compliance_data(now, today)), (OPERATIONS, operations_data(now, today))):
        data["version"] = SNAPSHOT_VERSION
        Snapshot.objects.update_or_create(name=name, defaults={"data": data, "computed_at": now})


def compliance_data(now: dt.datetime, today: dt.date) -> dict:
    by_status = (
        Customer.objects.filter(needs_person_q())
        .values_list("status")
        .annotate(n=Count("id"), unassigned=Count("id", filter=Q(assignee__isnull=True)))
        .order_by()
    )
    needs_person = {status: n for status, n, _ in by_status}
    unassigned = sum(u for _, _, u in by_status)
    sla = {state: Customer.objects.filter(needs_person_q(), sla_q(state, now)).count() for state in ("breached", "due")}
    days = window(DECISIONS, today)
    per_day = {day: {} for day in days}
    seconds: list[int] = []
    decision_count = 0
    for row in DailyFigure.objects.filter(figure=DECISIONS, day__gte=days[0]):
        if row.key:
            per_day.setdefault(row.day, {})[row.key] = row.count
        else:
            decision_count += row.count
            # A decision whose case opened before the mirror's history began has no duration.
            seconds.extend(row.extra.get("seconds", []))
    return {
        "needs_person": needs_person,
        "unassigned": unassigned,
        "sla_breached": sla["breached"],
        "sla_due": sla["due"],
        "decisions": [{"day": day.isoformat(), **per_day.get(day, {})} for day in days],
        "median_seconds": int(statistics.median(seconds)) if seconds else None,
        "decision_count": decision_count,
    }


def operations_data(now: dt.datetime, today: dt.date) -> dict:
    stuck = {rule: transactions_stuck(rule=rule, now=now)[0].order_by().count() for rule in STUCK_RULE_LABELS}
    days = window(TRANSACTIONS, today)
    index = {day: i for i, day in enumerate(days)}
    today_by_status: dict[str, int] = {}
    by_status: dict[str, int] = {}
    series: dict[tuple[str, str], dict] = {}
    for row in DailyFigure.objects.filter(figure=TRANSACTIONS, day__gte=days[0]).exclude(key=""):
        status, rail, currency = row.key.split("|", 2)
        by_status[status] = by_status.get(status, 0) + row.count
        if row.day == today:
            today_by_status[status] = today_by_status.get(status, 0) + row.count
        if status != TransactionStatus.COMPLETED or row.day not in index:
            continue
        one = series.setdefault(
            (rail, currency), {"amounts": [Decimal(0)] * len(days), "counts": [0] * len(days), "count": 0}
        )
        one["amounts"][index[row.day]] += row.amount or Decimal(0)
        one["counts"][index[row.day]] += row.count
        one["count"] += row.count
    busiest = sorted(series.items(), key=lambda item: (-item[1]["count"], item[0]))
    return {
        "stuck": stuck,
        "today": today_by_status,
        "window_days": len(days),
        "window_by_status": by_status,
        "volume": {
            "days": [day.isoformat() for day in days],
            "pairs": len(series),
            "series": [
                {
                    "rail": rail,
                    "currency": currency,
                    "amounts": [str(a) for a in values["amounts"]],
                    "counts": values["counts"],
                    "count": values["count"],
                    "total": str(sum(values["amounts"], Decimal(0))),
                }
                for (rail, currency), values in busiest[:VOLUME_SERIES]
            ],
        },
    }
