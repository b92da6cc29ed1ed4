"""The four-eyes state machine: every change of an ApprovalRequest's status, each written once.

    pending ─approve─▶ approved ─executed─▶ executed
       │                  ├──────failed───▶ failed    (the API refused the write)
       │                  ├────returned───▶ returned  (the price moved: back to the maker)
       │                  └──────reopen───▶ pending   (nothing was sent: a checker again)
       ├─reject───▶ rejected
       ├─withdraw─▶ withdrawn
       └─expire───▶ expired                           (past its expiry, by the periodic task)

Each move is one conditional UPDATE ... WHERE status = <from> (from pending, also on the right
side of the request's expiry): of two moves at once exactly one changes the row, and only that
one writes its audit event, in the same database transaction. Each function answers whether
this call made the move, and leaves `approval` as the database now holds it (whoever won).
Who may ask for a move, and what the write does, are payments.services.approvals and
payments.services.approval_writes.
"""

from dataclasses import dataclass

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from audit.models import AuditEvent
from audit.records import audit_record

from ..models import ApprovalRequest, ApprovalStatus

SUCCESS, FAILURE = AuditEvent.Outcome.SUCCESS, AuditEvent.Outcome.FAILURE


@dataclass(frozen=True)
class Move:
    source: str
    target: str
    action: str | None  # the audit event's action; None: not audited (nothing happened)
    outcome: str = SUCCESS
    # From pending, the side of its expiry the request must be on: open for a decision, past
    # it for the expiry.
    lapsed: bool = False


APPROVE = Move(ApprovalStatus.PENDING, ApprovalStatus.APPROVED, "approval.approve")
REJECT = Move(ApprovalStatus.PENDING, ApprovalStatus.REJECTED, "approval.reject")
WITHDRAW = Move(ApprovalStatus.PENDING, ApprovalStatus.WITHDRAWN, "approval.withdraw")
EXPIRE = Move(ApprovalStatus.PENDING, ApprovalStatus.EXPIRED, "approval.expire", lapsed=True)
EXECUTED = Move(ApprovalStatus.APPROVED, ApprovalStatus.EXECUTED, "approval.execute")
FAILED = Move(ApprovalStatus.APPROVED, ApprovalStatus.FAILED, "approval.fail", FAILURE)
RETURNED = Move(ApprovalStatus.APPROVED, ApprovalStatus.RETURNED, "approval.return", FAILURE)
REOPEN = Move(ApprovalStatus.APPROVED, ApprovalStatus.PENDING, None)
MOVES = (APPROVE, REJECT, WITHDRAW, EXPIRE, EXECUTED, FAILED, RETURNED, REOPEN)

# Sent, in the move's database transaction, when a request ends without being approved
# (rejected, withdrawn, expired), with `approval`: an app whose kind it is puts its record back.
request_closed = Signal()
CLOSING = (REJECT, WITHDRAW, EXPIRE)


class NotNow(Exception):
    """Raised by a registered write (approval_writes.register_write) that cannot be made at this
    moment and did nothing: the request waits for a checker again (reopen); the message says why."""


def audit_approval(
    *, actor, action: str, approval: ApprovalRequest, details: dict | None = None, outcome=SUCCESS
) -> None:
    """The audit event of a step of a request: its kind and maker, and `details`."""
    audit_record(
        actor=actor,
        action=action,
        target_kind="approval_request",
        target_id=str(approval.pk),
        outcome=outcome,
        details={"kind": approval.kind, "maker": approval.maker.get_username(), **(details or {})},
    )


def _move(approval: ApprovalRequest, move: Move, *, actor=None, details: dict | None = None, **fields) -> bool:
    now = timezone.now()
    rows = ApprovalRequest.objects.filter(pk=approval.pk, status=move.source)
    if move.source == ApprovalStatus.PENDING:
        rows = rows.filter(expires_at__lte=now) if move.lapsed else rows.filter(expires_at__gt=now)
    with transaction.atomic():
        won = rows.update(status=move.target, **fields)
        approval.refresh_from_db()
        if won and move.action:
            audit_approval(actor=actor, action=move.action, approval=approval, details=details, outcome=move.outcome)
        if won and move in CLOSING:
            request_closed.send(sender=ApprovalRequest, approval=approval)
    return bool(won)


def _decision(reason: str) -> dict:
    return {"reason": reason} if reason else {}


def approve(approval: ApprovalRequest, *, checker, note: str = "") -> bool:
    return _move(
        approval,
        APPROVE,
        actor=checker,
        details={"note": note} if note else {},
        checker=checker,
        decided_at=timezone.now(),
        reason="",
        note=note,
    )


def reject(approval: ApprovalRequest, *, checker, reason: str) -> bool:
    return _move(
        approval,
        REJECT,
        actor=checker,
        details=_decision(reason),
        checker=checker,
        decided_at=timezone.now(),
        reason=reason,
    )


def withdraw(approval: ApprovalRequest, *, maker) -> bool:
    return _move(approval, WITHDRAW, actor=maker, decided_at=timezone.now(), reason="")


def expire(approval: ApprovalRequest) -> bool:
    return _move(approval, EXPIRE, decided_at=timezone.now())


def executed(approval: ApprovalRequest, *, actor, details: dict, **made) -> bool:
    """The approved write went through: `made` holds what it made (transaction_id, or the rule)."""
    return _move(approval, EXECUTED, actor=actor, details=details, **made)


def failed(approval: ApprovalRequest, *, actor, reason: str, details: dict) -> bool:
    """The API refused the approved write; the maker reads `reason` with the request."""
    return _move(approval, FAILED, actor=actor, details=details, reason=reason)


def returned(approval: ApprovalRequest, *, actor, reason: str, details: dict, **figures) -> bool:
    """Nothing executed (the re-quote's price moved too far): the maker reads why."""
    return _move(approval, RETURNED, actor=actor, details=details, reason=reason, **figures)


def reopen(approval: ApprovalRequest) -> bool:
    """Nothing was written: the request waits again, for this or another checker."""
    return _move(approval, REOPEN, checker=None, decided_at=None)
