"""Figures of the home pages read live, each from a small set by nature (a partial index, the
staff table, a few sync kinds, the approvals waiting).

"""

import datetime as dt
from dataclasses import dataclass

from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Min, OuterRef, Q
from django.utils import timezone

from mirror.models import WebhookEvent
from mirror.sync import SYNC_KINDS, last_successes
from payments.models import ApprovalRequest, ApprovalStatus


def staff_without_mfa() -> int:
    """Active staff (any role, or is_staff) without a second factor (allauth's MFA)."""
    users = get_user_model().objects.filter(Q(is_staff=True) | Q(groups__isnull=False), is_active=True)
    return (
        users.filter(~Exists(Authenticator.objects.filter(user=OuterRef("pk"))))
        .values("pk")
        .distinct()
        .order_by()
        .count()
    )


def approvals_waiting() -> int:
    """Approval requests still waiting for a checker (pending, not past their expiry)."""
    return ApprovalRequest.objects.filter(status=ApprovalStatus.PENDING, expires_at__gt=timezone.now()).count()


@dataclass
class Inbox:
    received: int
    failed: int
    oldest_waiting: dt.datetime | None


def inbox_state() -> Inbox:
    """The work left in the webhook inbox, in one query on its partial index (received and
    failed events only: small however many were processed)."""
    pending = WebhookEvent.objects.filter(state__in=[WebhookEvent.State.RECEIVED, WebhookEvent.State.FAILED])
    figures = pending.aggregate(
        received=Count("id", filter=Q(state=WebhookEvent.State.RECEIVED)),
        failed=Count("id", filter=Q(state=WebhookEvent.State.FAILED)),
        oldest=Min("received_at"),
    )
    return Inbox(received=figures["received"], failed=figures["failed"], oldest_waiting=figures["oldest"])


def last_syncs() -> list[tuple[str, dt.datetime | None]]:
    """When each kind of sync last succeeded (None: never), in one query."""
    finished = last_successes()
    return [(kind, finished.get(kind)) for kind in SYNC_KINDS]
