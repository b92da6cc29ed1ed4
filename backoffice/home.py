"""The home page's sections, one per role the user holds: what waits for them, each figure a
link to the list it counts.

Figures over large sets come from the roll-ups (backoffice/rollups.py, refreshed every
minute) and say their age; the live ones read small sets (see home_figures.py). A page reads
every snapshot and live figure it needs in one query, whatever the roles (a member with every
role: 8 queries in all).
"""

import datetime as dt
import functools
import logging
from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import urlencode

from django.core.cache import cache
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from audit.targets import name_targets
from core import labels
from core.access import Role
from core.together import fetch_together
from customers.models import CustomerStatus
from customers.selectors import NEEDS_PERSON
from customers.templatetags.customers_extras import duration
from monitoring.models import AlertKind, AlertStatus
from payments.models import ApprovalRequest, TransactionStatus
from payments.selectors import STUCK_RULE_LABELS
from upstream.client import get_client

from . import charts, home_figures, rollups
from .models import Snapshot

log = logging.getLogger(__name__)
# Transfers awaiting funds that expire within this many minutes.
EXPIRING_MINUTES = 10
LATEST_AUDIT_EVENTS = 10
DECISION_SERIES = [("Approved", "url(#pattern-approved)"), ("Rejected", "url(#pattern-rejected)")]
# The order of the needs-a-person statuses on the page: CREATED counts once it waited too long.
QUEUE_STATUSES = [*NEEDS_PERSON, CustomerStatus.CREATED]
# The circuit breaker's states (upstream.client), in words and as a badge.
BREAKER_BADGES = {
    "closed": ("ok", "calls go through"),
    "open": ("bad", "calls paused after failures"),
    "half-open": ("warn", "one trial call allowed"),
}


def age(moment: dt.datetime | None, now: dt.datetime | None = None) -> str:
    """ "just now", "4 min ago", "2 h 5 min ago": how old a figure is."""
    if moment is None:
        return ""
    since = (now or timezone.now()) - moment
    return "just now" if since < dt.timedelta(minutes=1) else f"{duration(since)} ago"


@dataclass
class Figure:
    label: str
    value: object
    url: str = ""
    note: str = ""
    # When a rolled-up figure was computed (the page shows its age); None for a live one.
    as_of: dt.datetime | None = None

    @property
    def age(self) -> str:
        return age(self.as_of)


@dataclass
class Section:
    role: str
    title: str
    template: str
    # When the roll-up behind the section's figures was computed; None: all live, or not yet.
    as_of: dt.datetime | None = None
    computed: bool = True
    context: dict = field(default_factory=dict)

    @property
    def age(self) -> str:
        return age(self.as_of)


@functools.cache
def _path(name: str) -> str:
    # A list's path, once per process: a page links a few dozen figures to a handful of lists.
    return reverse(name)


def _url(name: str, **query) -> str:
    query = {k: v for k, v in query.items() if v not in (None, "")}
    return _path(name) + (f"?{urlencode(query, doseq=True)}" if query else "")


def snapshots(names: list[str], figures: dict) -> dict[str, Snapshot]:
    """The roll-ups these sections read (read with the live figures, home_figures). Before the
    beat task's first run, one refresh is asked for (at most once a minute): with eager Celery
    it runs now, with a broker the page says "not computed yet" until a worker has done it."""
    if not names:
        return {}
    found = _current(
        Snapshot(name=name, data=figures[f"snapshot_{name}"], computed_at=figures[f"snapshot_{name}_at"])
        for name in names
        if figures.get(f"snapshot_{name}") is not None
    )
    if len(found) < len(names) and cache.add("home:first-refresh", 1, 60):
        from .tasks import refresh_home_figures

        try:
            refresh_home_figures.delay()
        except Exception:  # no broker, or the eager run failed: the page still shows the live figures
            log.warning("The home figures could not be computed on demand", exc_info=True)
        found = _current(Snapshot.objects.filter(name__in=names))
    return found


def _current(rows) -> dict[str, Snapshot]:
    # A snapshot of another shape (written before a deploy changed it) counts as not computed.
    return {s.name: s for s in rows if s.data.get("version") == rollups.SNAPSHOT_VERSION}


def sections_for(user, roles: list[str]) -> list[Section]:
    """The sections of `roles`: every live figure and snapshot they show in one query, the
    auditor's two lists in one more (and their names, one query per kind of target)."""
    builders = {
        Role.COMPLIANCE: compliance_section,
        Role.OPERATIONS: operations_section,
        Role.ADMIN: admin_section,
        Role.AUDITOR: auditor_section,
    }
    # A compliance lead's home is the compliance section (once, if they hold both roles).
    roles = list(dict.fromkeys(Role.COMPLIANCE.value if role == Role.COMPLIANCE_LEAD else role for role in roles))
    roles = [role for role in roles if role in builders]
    wanted = [name for name in (rollups.COMPLIANCE, rollups.OPERATIONS) if name in roles]
    now = timezone.now()
    figures = home_figures.live_figures(
        user=user, roles=roles, snapshots=wanted, now=now, expiring=dt.timedelta(minutes=EXPIRING_MINUTES)
    )
    found = snapshots(wanted, figures)
    return [builders[Role(role)](user=user, snapshot=found.get(role), now=now, figures=figures) for role in roles]


def _rolled(role: str, title: str, template: str, snapshot: Snapshot | None) -> Section:
    return Section(
        role=role,
        title=title,
        template=template,
        as_of=snapshot.computed_at if snapshot else None,
        computed=snapshot is not None,
    )


# --- Compliance ---------------------------------------------------------------------------------


def compliance_section(*, user, snapshot: Snapshot | None, now: dt.datetime, figures: dict) -> Section:
    section = _rolled(Role.COMPLIANCE, "Compliance", "backoffice/_home_compliance.html", snapshot)
    queue = "customers-list-customers"
    mine, escalated = figures["mine"], figures["escalated"]
    context = {
        "casework": [
            Figure("My claimed cases", mine, _url(queue, assignee="me"), "live"),
            Figure("Escalated cases", escalated, _url("customers-list-escalations"), "live"),
        ],
        "open_alerts": open_alerts_by_age(user, figures),
    }
    if snapshot:
        data = snapshot.data
        context["needs_person"] = [
            Figure(labels.label(labels.STATUS, s), data["needs_person"].get(s, 0), _url(queue, view="queue", status=s))
            for s in QUEUE_STATUSES
        ]
        context["needs_person"].append(
            Figure("All cases needing a person", sum(data["needs_person"].values()), _url(queue))
        )
        context["sla"] = [
            Figure("Over SLA", data["sla_breached"], _url(queue, sla="breached")),
            Figure("SLA ends within 2 hours", data["sla_due"], _url(queue, sla="due")),
        ]
        context["casework"].append(
            Figure("Unassigned cases", data["unassigned"], _url(queue, assignee="none"), as_of=snapshot.computed_at)
        )
        median = data["median_seconds"]
        context["median"] = [
            Figure(
                "Median time to a decision",
                duration(dt.timedelta(seconds=median)) if median is not None else "not known yet",
                note=f"from the opening of the case; {data['decision_count']} "
                f"decision{pluralize(data['decision_count'])} in {rollups.WINDOWS[rollups.DECISIONS]} days",
            )
        ]
        context["decisions"] = decisions_chart(data["decisions"])
        context["older_days_minutes"] = rollups.older_days_minutes(rollups.DECISIONS)
    section.context = context
    return section


def open_alerts_by_age(user, figures: dict) -> list[dict]:
    """Open alerts per kind and age (counted with the page's other figures,
    home_figures.open_alert_figures), each linking to the alerts list so filtered. Nothing for a
    member who may not read alerts."""
    if not user.has_perm("core.view_monitoring"):
        return []
    alerts = "monitoring-list-alerts"
    return [
        {
            "kind": kind,
            "figures": [
                Figure(
                    f"{labels.label(labels.CASE_KIND, kind)}: {label}",
                    figures[f"alerts_{kind}_{code}"],
                    _url(alerts, kind=kind, status=AlertStatus.OPEN, age=code),
                )
                for code, label, _, _ in home_figures.ALERT_AGES
            ],
        }
        for kind in AlertKind.values
    ]


def decisions_chart(days: list[dict]) -> charts.ColumnChart:
    columns = []
    for day in days:
        date = dt.date.fromisoformat(day["day"])
        columns.append(
            charts.Column(
                label=f"{date:%-d %b}",
                href=_url("customers-list-customers", view="all", decided=day["day"]),
                parts=[(0, day.get(CustomerStatus.ACTIVE, 0)), (1, day.get(CustomerStatus.REJECTED, 0))],
            )
        )
    return charts.stacked_columns(columns, DECISION_SERIES)


# --- Operations ---------------------------------------------------------------------------------


def operations_section(*, user, snapshot: Snapshot | None, now: dt.datetime, figures: dict) -> Section:
    section = _rolled(Role.OPERATIONS, "Operations", "backoffice/_home_operations.html", snapshot)
    listing = "payments-list-transactions"
    expiring = figures["expiring"]
    context = {
        "expiring": [
            Figure(
                f"Awaiting funds, expiring within {EXPIRING_MINUTES} minutes",
                expiring,
                _url(listing, status=TransactionStatus.AWAITING_TRANSFER, expires_within=EXPIRING_MINUTES),
                "live",
            )
        ]
    }
    if snapshot:
        data = snapshot.data
        today = now.astimezone(dt.UTC).date().isoformat()
        context["stuck"] = [
            Figure(label, data["stuck"].get(rule, 0), _url("payments-list-stuck-transactions", rule=rule))
            for rule, label in STUCK_RULE_LABELS.items()
        ]
        context["today"] = [
            Figure(label, data["today"].get(value, 0), _url(listing, status=value, created_from=today))
            for value, label in TransactionStatus.choices
        ]
        window_start = data["volume"]["days"][0]
        total = sum(data["window_by_status"].values())
        context["rates"] = [
            Figure(
                f"{label} rate",
                f"{data['window_by_status'].get(value, 0) / total:.1%}" if total else "—",
                _url(listing, status=value, created_from=window_start),
                f"{data['window_by_status'].get(value, 0)} of {total}, {data['window_days']} days",
            )
            for value, label in ((TransactionStatus.FAILED, "Failed"), (TransactionStatus.EXPIRED, "Expired"))
        ]
        context["volume"] = volume_chart(data["volume"])
        context["older_days_minutes"] = rollups.older_days_minutes(rollups.TRANSACTIONS)
    section.context = context
    return section


def volume_chart(volume: dict) -> dict:
    """Completed volume per source rail and currency, one row of day bars each (small
    multiples: every row its own scale, its total written beside it)."""
    days = [dt.date.fromisoformat(d) for d in volume["days"]]
    rows = []
    for one in volume["series"]:
        amounts = [Decimal(a) for a in one["amounts"]]
        titles = [f"{day:%-d %b}: {amount:,.2f} {one['currency']}" for day, amount in zip(days, amounts, strict=True)]
        rows.append(
            {
                "rail": one["rail"],
                "currency": one["currency"],
                "total": Decimal(one["total"]),
                "count": one["count"],
                "amounts": amounts,
                "bars": charts.spark_bars(amounts, titles=titles),
                "url": _url(
                    "payments-list-transactions",
                    status=TransactionStatus.COMPLETED,
                    rail=one["rail"],
                    currency=one["currency"],
                    created_from=volume["days"][0],
                ),
            }
        )
    labels = [f"{day:%-d %b}" for day in days]
    table = [{"label": label, "amounts": [row["amounts"][i] for row in rows]} for i, label in enumerate(labels)]
    return {
        "rows": rows,
        "pairs": volume["pairs"],
        "table": table,
        "first_label": labels[0] if labels else "",
        "last_label": labels[-1] if labels else "",
    }


# --- Admin --------------------------------------------------------------------------------------


def admin_section(*, user, snapshot: Snapshot | None, now: dt.datetime, figures: dict) -> Section:
    inbox = home_figures.inbox_state(figures)
    inbox_url = _path("mirror-list-inbox-events")
    mfa = figures["staff_without_mfa"]
    approvals = figures["approvals_waiting"]
    breaker = get_client().breaker.current_state
    context = {
        "syncs": [
            {"kind": kind, "finished_at": finished_at, "age": age(finished_at, now) if finished_at else ""}
            for kind, finished_at in home_figures.last_syncs(figures)
        ],
        "inbox": [
            Figure("Webhook events waiting", inbox.received, f"{inbox_url}?state=received"),
            Figure("Failed events", inbox.failed, f"{inbox_url}?state=failed"),
        ],
        "oldest_waiting": age(inbox.oldest_waiting, now),
        "breaker": breaker,
        "breaker_badge": BREAKER_BADGES.get(breaker, ("warn", ""))[0],
        "breaker_text": BREAKER_BADGES.get(breaker, ("warn", ""))[1],
        "staff": [
            Figure("Staff without a second factor", mfa, _path("staff-list-staff")),
            Figure("Approvals waiting", approvals, _path("payments-list-approval-requests")),
        ],
    }
    return Section(role=Role.ADMIN, title="Admin", template="backoffice/_home_admin.html", context=context)


# --- Auditor ------------------------------------------------------------------------------------


def auditor_section(*, user, snapshot: Snapshot | None, now: dt.datetime, figures: dict) -> Section:
    # Both lists in one query; their names (the events' targets, the approvals' makers) in one
    # query per kind of record named.
    events, approvals = fetch_together(
        AuditEvent.objects.order_by("-created_at", "-id")[:LATEST_AUDIT_EVENTS],
        ApprovalRequest.objects.order_by("-pk")[:LATEST_AUDIT_EVENTS],
    )
    makers = [_Maker(str(approval.maker_id)) for approval in approvals]
    name_targets([*events, *makers], user)
    for approval, maker in zip(approvals, makers, strict=True):
        approval.maker_name = maker.target.name if maker.target else ""
    context = {"events": events, "approvals": approvals, "audit_url": _path("audit-list-events")}
    return Section(role=Role.AUDITOR, title="Auditor", template="backoffice/_home_auditor.html", context=context)


@dataclass
class _Maker:
    """An approval's maker, named as the audit log names a member (audit.targets)."""

    target_id: str
    target_kind: str = "user"
    target: object = None
