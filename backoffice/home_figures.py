"""Figures of the home pages read live, each from a small set by nature (a partial index, the
staff table, a few sync kinds), and the ones other code may provide.

`staff_without_mfa` and `approvals_waiting` are the defaults of the settings
HOME_STAFF_WITHOUT_MFA and HOME_APPROVALS_WAITING: they answer None while what they count is
not installed (django-allauth's MFA, an ApprovalRequest model in payments), and the home page
then says "not configured" or leaves the figure out.
"""

import datetime as dt
from dataclasses import dataclass

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Min, OuterRef, Q
from django.utils.module_loading import import_string

from mirror.models import SyncRun, WebhookEvent
from mirror.sync import last_success

# The kinds of sync the mirror runs (mirror/sync.py).
SYNC_KINDS = ["customers", "payment-accounts", "transactions"]
APPROVAL_MODEL = ("payments", "ApprovalRequest")


def staff_without_mfa() -> int | None:
    """Active staff (any role, or is_staff) without an MFA authenticator; None without
    allauth's MFA app."""
    if not apps.is_installed("allauth.mfa"):
        return None
    authenticator = apps.get_model("mfa", "Authenticator")
    users = get_user_model().objects.filter(Q(is_staff=True) | Q(groups__isnull=False), is_active=True)
    return (
        users.filter(~Exists(authenticator.objects.filter(user=OuterRef("pk"))))
        .values("pk")
        .distinct()
        .order_by()
        .count()
    )


def approval_model():
    """The ApprovalRequest model when an app provides it, else None."""
    try:
        return apps.get_model(*APPROVAL_MODEL)
    except LookupError:
        return None


def approvals_waiting() -> int | None:
    """Approval requests waiting for a decision; None while there is no such model. The model
    may say which are waiting (a `waiting()` on its manager); else a `status` of "pending"."""
    model = approval_model()
    if model is None:
        return None
    manager = model._default_manager
    if hasattr(manager, "waiting"):
        return manager.waiting().count()
    if "status" in {field.name for field in model._meta.get_fields()}:
        return manager.filter(status__iexact="pending").count()
    return None


def provided(setting: str) -> int | None:
    """The figure of the function a HOME_* setting names."""
    return import_string(getattr(settings, setting))()


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


def last_syncs() -> list[tuple[str, SyncRun | None]]:
    """The last successful run of each kind of sync (one index lookup each)."""
    return [(kind, last_success(kind)) for kind in SYNC_KINDS]
