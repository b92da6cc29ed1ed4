"""The kinds of notification, in one place: what each is called, who may receive it, its
default, and what raises it.

Two sources raise them. A staff action records an audit event (core.audit); AUDIT_ACTIONS
names the actions that tell someone, and each one's `Raised` says what, to whom, and where
the work is (notifications.signals hands it to the worker once the action commits). A
condition without an event (a case past its SLA, a transfer stuck, a sync stale, the inbox
backlogged, the circuit breaker open) is found by the periodic check, notifications.conditions.

A new kind: a `Kind` in KINDS (its code, words and audience), and either an entry of
AUDIT_ACTIONS or a check in notifications.conditions. The preferences page, the team
destinations' form and the list's words follow from KINDS.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.urls import reverse

from audit.models import AuditEvent
from core.access import Role

from .models import Choice


def holders(codename: str) -> QuerySet:
    """Active members holding a staff permission (through their role, or as superusers)."""
    users = get_user_model().objects.filter(is_active=True)
    return users.filter(
        Q(is_superuser=True)
        | Q(groups__permissions__codename=codename, groups__permissions__content_type__app_label="core")
    ).distinct()


def in_roles(*roles: str) -> QuerySet:
    """Active members of any of `roles` (core.access.Role)."""
    return get_user_model().objects.filter(is_active=True, groups__name__in=roles).distinct()


@dataclass(frozen=True)
class Kind:
    code: str
    # The preferences page's words, and the e-mail's subject line.
    label: str
    # Everyone who may receive it (the preferences page offers a kind to these members only).
    audience: Callable[[], QuerySet]
    default: str = Choice.APP
    # Told in the app only: no e-mail, no team destination (a failed delivery must not loop).
    app_only: bool = False


def _compliance() -> QuerySet:
    return in_roles(Role.COMPLIANCE, Role.COMPLIANCE_LEAD)


APPROVAL_WAITING = Kind("approval_waiting", "An approval request I may approve", lambda: holders_of_any_checker())
CASE_ASSIGNED = Kind("case_assigned", "A case assigned to me", lambda: holders("change_customers"))
CASE_ESCALATED = Kind("case_escalated", "A case escalated (compliance leads)", lambda: in_roles(Role.COMPLIANCE_LEAD))
CASE_PAST_SLA = Kind("case_past_sla", "A case past its SLA (its assignee, else compliance)", _compliance)
MONITORING_ALERT = Kind("monitoring_alert", "A monitoring alert (compliance)", _compliance)
TRANSFER_STUCK = Kind("transfer_stuck", "A transfer stuck (operations)", lambda: in_roles(Role.OPERATIONS))
SYNC_STALE = Kind("sync_stale", "A sync that has not succeeded (admins)", lambda: in_roles(Role.ADMIN))
INBOX_BACKLOG = Kind("inbox_backlog", "A webhook inbox backlog (admins)", lambda: in_roles(Role.ADMIN))
BREAKER_OPEN = Kind("breaker_open", "The Payments API's circuit breaker open (admins)", lambda: in_roles(Role.ADMIN))
DELIVERY_FAILED = Kind(
    "delivery_failed", "A delivery that failed every try (admins)", lambda: in_roles(Role.ADMIN), app_only=True
)

KINDS = {
    kind.code: kind
    for kind in (
        APPROVAL_WAITING,
        CASE_ASSIGNED,
        CASE_ESCALATED,
        CASE_PAST_SLA,
        MONITORING_ALERT,
        TRANSFER_STUCK,
        SYNC_STALE,
        INBOX_BACKLOG,
        BREAKER_OPEN,
        DELIVERY_FAILED,
    )
}
# What a team destination may receive.
TEAM_KINDS = [kind for kind in KINDS.values() if not kind.app_only]


def kind_label(code: str) -> str:
    kind = KINDS.get(code)
    return kind.label if kind else code


# --- Raised by staff actions (their audit events) ------------------------------------------------


@dataclass
class Raised:
    kind: Kind
    sentence: str
    link: str
    recipients: QuerySet


def holders_of_any_checker() -> QuerySet:
    from payments.services.approvals import PERMISSION_FOR

    users = get_user_model().objects.none()
    for codename in set(PERMISSION_FOR.values()):
        users = users | holders(codename)
    return users.distinct()


def _approval_requested(event: AuditEvent) -> Raised | None:
    """Those who may approve it: the permission its kind needs (never the maker: the actor)."""
    from payments.models import ApprovalRequest, ApprovalStatus
    from payments.services.approvals import PERMISSION_FOR

    approval = ApprovalRequest.objects.filter(pk=event.target_id, status=ApprovalStatus.PENDING).first()
    if approval is None:  # decided or withdrawn before the worker came to it
        return None
    return Raised(
        APPROVAL_WAITING,
        f"{event.actor_username} asks for your approval: {approval.summary}",
        reverse("payments-view-approval-request", args=[approval.pk]),
        holders(PERMISSION_FOR[approval.kind]),
    )


def _customer_words(customer_id: str) -> str:
    from customers.models import Customer

    name = Customer.objects.filter(customer_id=customer_id).values_list("name", flat=True).first()
    return name or customer_id


def _case_assigned(event: AuditEvent) -> Raised | None:
    """The assignee, unless they claimed it themselves (the actor is never told)."""
    assignee = (event.details or {}).get("assignee")
    if not assignee:
        return None
    return Raised(
        CASE_ASSIGNED,
        f"{event.actor_username} assigned you the case of {_customer_words(event.target_id)}",
        reverse("customers-view-customer", args=[event.target_id]),
        get_user_model().objects.filter(is_active=True, username=assignee),
    )


def _case_decided(event: AuditEvent) -> Raised | None:
    """An escalation that went through tells the compliance leads."""
    details = event.details or {}
    if event.outcome != AuditEvent.Outcome.SUCCESS or details.get("decision") != "escalated":
        return None
    return Raised(
        CASE_ESCALATED,
        f"{event.actor_username} escalated the case of {_customer_words(event.target_id)} "
        f"(level {details.get('escalation_level', 1)})",
        reverse("customers-view-customer", args=[event.target_id]),
        CASE_ESCALATED.audience(),
    )


AUDIT_ACTIONS: dict[str, Callable[[AuditEvent], Raised | None]] = {
    "approval.request": _approval_requested,
    "customer.assign": _case_assigned,
    "customer.decide": _case_decided,
}


def monitoring_alert(alert) -> Raised:
    """A monitoring alert (the monitoring app's Alert, once installed), for compliance."""
    link = ""
    if hasattr(alert, "get_absolute_url"):
        link = alert.get_absolute_url()
    else:
        from django.urls import NoReverseMatch

        try:
            link = reverse("monitoring-view-alert", args=[alert.pk])
        except NoReverseMatch:
            link = ""
    sentence = getattr(alert, "sentence", "") or str(alert)
    return Raised(MONITORING_ALERT, f"Monitoring alert: {sentence}", link, MONITORING_ALERT.audience())
