"""The periodic check (beat, every NOTIFY_CHECK_SECONDS): conditions that no staff action
records, read from the existing selectors, each told once per occurrence.

- A record's occurrence (a case past its SLA, a transfer stuck) is keyed by the record and the
  status period it is in: the same case past its SLA is told once, however many checks see it.
  Only occurrences that began within NOTIFY_LOOKBACK_HOURS are looked at (a first check on an
  old mirror does not tell of years of history), at most NOTIFY_BATCH of each per check.
- A state of the system (a sync stale, the inbox backlogged, the breaker open) is an
  OpenCondition while it holds: told when it appears, and again only once it cleared and came
  back.
"""

import datetime as dt

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from core.access import Role

from .kinds import BREAKER_OPEN, CASE_PAST_SLA, INBOX_BACKLOG, SYNC_STALE, TRANSFER_STUCK, Raised, in_roles
from .models import OpenCondition
from .services import raise_notification


def _lookback() -> dt.timedelta:
    return dt.timedelta(hours=settings.NOTIFY_LOOKBACK_HOURS)


def cases_past_sla(now: dt.datetime) -> int:
    """Cases whose SLA ended within the look-back: their assignee, else the compliance team."""
    from customers.models import Customer
    from customers.selectors import sla_q

    breached = Customer.objects.filter(sla_q("breached", now)).exclude(sla_q("breached", now - _lookback()))
    told = 0
    for customer in breached.select_related("assignee").order_by("-id")[: settings.NOTIFY_BATCH]:
        if customer.assignee_id and customer.assignee.is_active:
            recipients = get_user_model().objects.filter(pk=customer.assignee_id)
        else:
            recipients = in_roles(Role.COMPLIANCE, Role.COMPLIANCE_LEAD)
        raised = Raised(
            CASE_PAST_SLA,
            f"The case of {customer.name or customer.customer_id} is past its SLA "
            f"({settings.CUSTOMERS_REVIEW_SLA_HOURS} h) in “{customer.get_status_display()}”",
            reverse("customers-view-customer", args=[customer.customer_id]),
            recipients,
        )
        told += bool(raise_notification(raised, key=f"sla:{customer.customer_id}:{customer.status_since.isoformat()}"))
    return told


def transfers_stuck(now: dt.datetime) -> int:
    """Transactions processing, or created, longer than NOTIFY_STUCK_AFTER_MINUTES: operations."""
    from payments.selectors import StuckRule, transactions_stuck

    after = dt.timedelta(minutes=settings.NOTIFY_STUCK_AFTER_MINUTES)
    hours = after.total_seconds() / 3600
    told = 0
    for rule in (StuckRule.PROCESSING_LONG, StuckRule.CREATED_LONG):
        rows, _ = transactions_stuck(rule=rule, processing_hours=hours, created_minutes=hours * 60, now=now)
        rows = rows.filter(status_since__gte=now - after - _lookback()).order_by("-status_since")
        for tx in rows[: settings.NOTIFY_BATCH]:
            raised = Raised(
                TRANSFER_STUCK,
                f"Transaction {tx.transaction_id} has been {tx.status.replace('_', ' ').lower()} "
                f"since {tx.status_since:%Y-%m-%d %H:%M} UTC",
                reverse("payments-view-transaction", args=[tx.transaction_id]),
                TRANSFER_STUCK.audience(),
            )
            told += bool(raise_notification(raised, key=f"stuck:{tx.transaction_id}:{tx.status_since.isoformat()}"))
    return told


def _hold(key: str, holds: bool, raised: Raised) -> int:
    """Tell of condition `key` when it appears; forget it once it no longer holds."""
    if not holds:
        OpenCondition.objects.filter(key=key).delete()
        return 0
    condition, created = OpenCondition.objects.get_or_create(key=key)
    if not created:
        return 0
    return bool(raise_notification(raised, key=f"{key}:{condition.raised_at.isoformat()}"))


def syncs_stale(now: dt.datetime) -> int:
    """Each kind of sync without a success for NOTIFY_SYNC_AFTER_MINUTES (one that never
    succeeded counts from its first run): admins."""
    from mirror.models import SyncRun
    from mirror.sync import SYNC_KINDS, last_successes

    cutoff = now - dt.timedelta(minutes=settings.NOTIFY_SYNC_AFTER_MINUTES)
    succeeded = last_successes()
    tried = set(SyncRun.objects.filter(started_at__lt=cutoff).values_list("kind", flat=True).distinct())
    told = 0
    for kind in SYNC_KINDS:
        last = succeeded.get(kind)
        stale = last < cutoff if last else kind in tried
        since = f"since {last:%Y-%m-%d %H:%M} UTC" if last else "ever"
        raised = Raised(
            SYNC_STALE,
            f"The {kind} sync has not succeeded {since}",
            reverse("home"),
            SYNC_STALE.audience(),
        )
        told += _hold(f"sync:{kind}", stale, raised)
    return told


def inbox_backlogged(now: dt.datetime) -> int:
    """More webhook events waiting (with tries left) than NOTIFY_INBOX_BACKLOG: admins."""
    from mirror.inbox import MAX_ATTEMPTS, PENDING
    from mirror.models import WebhookEvent

    limit = settings.NOTIFY_INBOX_BACKLOG
    # Counted up to the limit only: cheap however long the backlog is.
    waiting = (
        WebhookEvent.objects.filter(state__in=PENDING, attempts__lt=MAX_ATTEMPTS).order_by().values("id")[: limit + 1]
    )
    backlogged = len(waiting) > limit
    raised = Raised(
        INBOX_BACKLOG,
        f"More than {limit} webhook events wait in the inbox",
        reverse("mirror-list-inbox-events"),
        INBOX_BACKLOG.audience(),
    )
    return _hold("inbox-backlog", backlogged, raised)


def breaker_opened(now: dt.datetime) -> int:
    """The circuit breaker to the Payments API open in the worker (its calls keep failing): admins."""
    from upstream.client import get_client

    breaker = get_client().breaker
    raised = Raised(
        BREAKER_OPEN,
        "The Payments API keeps failing: the circuit breaker is open and calls are refused for now",
        reverse("home"),
        BREAKER_OPEN.audience(),
    )
    return _hold("breaker-open", breaker.current_state != "closed", raised)


CHECKS = (cases_past_sla, transfers_stuck, syncs_stale, inbox_backlogged, breaker_opened)


def check_all(now: dt.datetime | None = None) -> dict[str, int]:
    """Run every check; how many occurrences each told of."""
    now = now or timezone.now()
    return {check.__name__: check(now) for check in CHECKS}
