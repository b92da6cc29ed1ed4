"""The one way views record what staff did."""

from django.db import transaction

from core.middleware import current_request_id

from .models import AuditEvent


def audit_record(
    *,
    actor,
    action: str,
    target_kind: str = "",
    target_id: str = "",
    outcome: str = AuditEvent.Outcome.SUCCESS,
    details: dict | None = None,
) -> AuditEvent:
    """Write one audit event.

    Call it inside the database transaction of the change it records: if the change rolls
    back, so does the event. `details` must hold no personal data values (names of changed
    sections, not their contents).
    """
    if not transaction.get_connection().in_atomic_block and outcome == AuditEvent.Outcome.SUCCESS:
        # A success event outside a transaction could outlive a change that failed.
        raise RuntimeError("audit_record for a success must run inside transaction.atomic()")
    user = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEvent.objects.create(
        actor=user,
        actor_username=user.get_username() if user else "",
        action=action,
        target_kind=target_kind,
        target_id=str(target_id),
        outcome=outcome,
        request_id=current_request_id(),
        details=details or {},
    )
