"""Figures of the home pages read live, each from a small set by nature (a partial index, the
staff table, a few sync kinds, the approvals waiting), and the snapshots of the roll-ups: as
scalar subqueries that the page reads in one query (`live_figures`, core.together)."""

import datetime as dt
from dataclasses import dataclass

from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, Subquery

from core.together import Counted, figures_together
from customers.models import Customer
from customers.selectors import escalated_q, needs_person_q
from mirror.models import SyncRun, WebhookEvent
from mirror.sync import SYNC_KINDS
from monitoring.models import Alert, AlertKind, AlertStatus
from payments.models import ApprovalRequest, ApprovalStatus, Transaction, TransactionStatus

from .models import Snapshot


def staff_without_mfa() -> Counted:
    """Active staff (any role, or is_staff) without a second factor (allauth's MFA)."""
    users = get_user_model().objects.filter(Q(is_staff=True) | Q(groups__isnull=False), is_active=True)
    return Counted(users.filter(~Exists(Authenticator.objects.filter(user=OuterRef("pk")))).values("pk").distinct())


def approvals_waiting(now: dt.datetime) -> Counted:
    """Approval requests still waiting for a checker (pending, not past their expiry)."""
    return Counted(ApprovalRequest.objects.filter(status=ApprovalStatus.PENDING, expires_at__gt=now).values("pk"))


@dataclass
class Inbox:
    received: int
    failed: int
    oldest_waiting: dt.datetime | None


def inbox_figures() -> dict:
    """The work left in the webhook inbox, on its partial index (received and failed events
    only: small however many were processed)."""
    pending = WebhookEvent.objects.filter(state__in=[WebhookEvent.State.RECEIVED, WebhookEvent.State.FAILED])
    return {
        "inbox_received": Counted(pending.filter(state=WebhookEvent.State.RECEIVED).values("pk")),
        "inbox_failed": Counted(pending.filter(state=WebhookEvent.State.FAILED).values("pk")),
        "inbox_oldest": Subquery(pending.order_by("received_at").values("received_at")[:1]),
    }


def inbox_state(figures: dict) -> Inbox:
    return Inbox(
        received=figures["inbox_received"], failed=figures["inbox_failed"], oldest_waiting=figures["inbox_oldest"]
    )


def last_sync_figures() -> dict:
    """When each kind of sync last succeeded, each on the (kind, outcome, finished_at) index."""
    succeeded = SyncRun.objects.filter(outcome=SyncRun.Outcome.SUCCEEDED).order_by("-finished_at")
    return {f"sync_{kind}": Subquery(succeeded.filter(kind=kind).values("finished_at")[:1]) for kind in SYNC_KINDS}


def last_syncs(figures: dict) -> list[tuple[str, dt.datetime | None]]:
    """When each kind of sync last succeeded (None: never)."""
    return [(kind, figures[f"sync_{kind}"]) for kind in SYNC_KINDS]


def snapshot_figures(names: list[str]) -> dict:
    rows = Snapshot.objects.order_by()
    figures = {}
    for name in names:
        figures[f"snapshot_{name}"] = Subquery(rows.filter(name=name).values("data")[:1])
        figures[f"snapshot_{name}_at"] = Subquery(rows.filter(name=name).values("computed_at")[:1])
    return figures


# The open alerts' ages on the compliance home: the alerts list's `age` filter for each
# (code, words, from days, to days).
ALERT_AGES = [("1", "under 24 hours", 0, 1), ("1-7", "1 to 7 days", 1, 7), ("over7", "over 7 days", 7, None)]


def open_alert_figures(now: dt.datetime) -> dict:
    """Open alerts per kind and age, each from the alerts' (status, created) index (the open
    ones are few by nature)."""
    figures = {}
    for kind in AlertKind.values:
        for code, _, low, high in ALERT_AGES:
            rows = Alert.objects.filter(status=AlertStatus.OPEN, kind=kind)
            if low:
                rows = rows.filter(created_at__lt=now - dt.timedelta(days=low))
            if high:
                rows = rows.filter(created_at__gte=now - dt.timedelta(days=high))
            figures[f"alerts_{kind}_{code}"] = Counted(rows.values("pk"))
    return figures


def live_figures(*, user, roles: list[str], snapshots: list[str], now: dt.datetime, expiring: dt.timedelta) -> dict:
    """Every figure the sections of `roles` read live, and the `snapshots` they show, in one
    query whatever the roles."""
    from core.access import Role

    figures = snapshot_figures(snapshots)
    if Role.COMPLIANCE in roles:
        # Each on its index: the assignee's, the decision's.
        figures["mine"] = Counted(Customer.objects.filter(needs_person_q(), assignee=user).values("pk"))
        figures["escalated"] = Counted(Customer.objects.filter(escalated_q()).values("pk"))
        if user.has_perm("core.view_monitoring"):
            figures |= open_alert_figures(now)
    if Role.OPERATIONS in roles:
        figures["expiring"] = Counted(
            Transaction.objects.filter(
                status=TransactionStatus.AWAITING_TRANSFER, expires_at__gte=now, expires_at__lt=now + expiring
            ).values("pk")
        )
    if Role.ADMIN in roles:
        figures |= inbox_figures() | last_sync_figures()
        figures["staff_without_mfa"] = staff_without_mfa()
        figures["approvals_waiting"] = approvals_waiting(now)
    return figures_together(**figures)
