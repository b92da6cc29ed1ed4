"""A customer's case clock (how long the case waited on us, on the customer, against the SLA)
and the timeline of the customer page: status changes, staff actions and case decisions."""

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from audit.models import AuditEvent
from core import labels

from .choices import action_label
from .models import CASE_OPEN_STATUSES, WAITING_ON_CUSTOMER, CaseDecision, Customer
from .selectors import sla


@dataclass
class CaseClock:
    on_us: dt.timedelta
    on_customer: dt.timedelta
    sla: dt.timedelta
    open: bool
    # The case waits on the customer right now: our clock is paused.
    paused: bool = False

    @property
    def overdue(self) -> bool:
        return self.open and self.on_us > self.sla

    @property
    def left(self) -> dt.timedelta:
        return self.sla - self.on_us


def row_clock(customer: Customer, now: dt.datetime) -> CaseClock:
    """The case clock of a queue row, from the clock customers_upsert keeps on the customer
    (no query; time waiting on the customer is not kept there, so it reads zero)."""
    return CaseClock(
        on_us=customer.waiting_on_us(now),
        on_customer=dt.timedelta(),
        sla=sla(),
        open=customer.status in CASE_OPEN_STATUSES,
        paused=customer.status in WAITING_ON_CUSTOMER,
    )


def case_clock(customer: Customer, changes: list) -> CaseClock:
    """Time the current case has waited on us and on the customer, from the status history.

    A case opens when the customer enters a state that needs a person and closes when they
    leave those states (e.g. ACTIVE). Time in NEEDS_ADDITIONAL_INFORMATION is the customer's.
    """
    now = timezone.now()
    open_states = CASE_OPEN_STATUSES
    is_open = customer.status in open_states
    on_us = on_customer = dt.timedelta()
    end = now
    # Walk back through the changes (newest first) while the case was open.
    for change in sorted(changes, key=lambda c: c.recorded_at, reverse=True):
        if change.new_status not in open_states:
            break
        span = max(end - change.recorded_at, dt.timedelta())
        if change.new_status in WAITING_ON_CUSTOMER:
            on_customer += span
        else:
            on_us += span
        end = change.recorded_at
    if not changes and is_open:
        on_us = now - customer.status_since
    return CaseClock(
        on_us=on_us, on_customer=on_customer, sla=sla(), open=is_open, paused=customer.status in WAITING_ON_CUSTOMER
    )


@dataclass
class TimelineEntry:
    at: dt.datetime
    kind: str  # "status" or "audit"
    title: str
    detail: str
    who: str
    outcome: str = "success"

    @property
    def refused(self) -> bool:
        return self.outcome != AuditEvent.Outcome.SUCCESS


def customer_events(customer: Customer):
    """The newest 100 audit events about this customer (the timeline's; the audit_target index),
    less the decisions, which the timeline shows with their reason."""
    return (
        AuditEvent.objects.filter(target_kind="customer", target_id=customer.customer_id)
        .exclude(action="customer.decide", outcome=AuditEvent.Outcome.SUCCESS)
        .order_by("-created_at", "-id")[:100]
    )


def customer_decisions(customer: Customer):
    """The case's newest 100 decisions."""
    return customer.decisions.order_by("-created_at", "-id")[:100]


def customer_timeline(
    customer: Customer, changes: list, events: list | None = None, decisions: list | None = None
) -> list[TimelineEntry]:
    """Status history of the mirror, the case's decisions and the audit events about this
    customer, in staff words, newest first; `events` and `decisions` as read by the page with
    its other lists (else read here)."""
    entries = [
        TimelineEntry(
            at=change.changed_at,
            kind="status",
            title=f"{labels.label(labels.STATUS, change.old_status) if change.old_status else 'New customer'} → "
            f"{labels.label(labels.STATUS, change.new_status)}",
            detail=f"seen by {change.get_seen_by_display().lower()}",
            who="",
        )
        for change in changes
    ]
    if decisions is None:
        decisions = customer_decisions(customer)
    for decision in decisions:
        level = f" (level {decision.escalation_level})" if decision.kind == CaseDecision.Kind.ESCALATED else ""
        entries.append(
            TimelineEntry(
                at=decision.created_at,
                kind="decision",
                title=f"Decision: {decision.get_kind_display()}{level}",
                detail=f"“{decision.reason}” (customer was {labels.label(labels.STATUS, decision.status_at_decision).lower()})",
                who=decision.actor_username,
            )
        )
    if events is None:
        events = customer_events(customer)
    for event in events:
        sections = event.details.get("sections")
        detail = ", ".join(str(s).replace("_", " ") for s in sections) if isinstance(sections, list) else ""
        if event.details.get("error"):
            detail = f"{detail} — {event.details['error']}" if detail else str(event.details["error"])
        entries.append(
            TimelineEntry(
                at=event.created_at,
                kind="audit",
                # "Refused: Decided the case", never the action as if it were done.
                title=f"Refused: {action_label(event.action)}" if event.refused else action_label(event.action),
                detail=detail,
                who=event.actor_username or "system",
                outcome=event.outcome,
            )
        )
    return sorted(entries, key=lambda e: e.at, reverse=True)
