"""The one way views record what staff did."""

from django.db import transaction

from .middleware import current_request_id
from .models import AuditEvent

# What the audit log names in staff words (core's own actions; each app registers its own in
# core.labels, vocabulary ACTION).
ACTION_LABELS = {
    "auth.login": "Signed in",
    "auth.logout": "Signed out",
    "auth.mfa_added": "Added a second factor",
    "auth.mfa_removed": "Removed a second factor",
    "auth.locked_out": "Locked out after wrong guesses",
    "user.set_time_zone": "Chose a time zone",
    "staff.add": "Added a staff member",
    "staff.add_from_sso": "Staff member added by single sign-on",
    "staff.change_roles": "Changed the roles",
    "staff.roles_from_sso": "Roles set by single sign-on",
    "staff.deactivate": "Deactivated a staff member",
    "staff.reactivate": "Reactivated a staff member",
    "staff.reset_mfa": "Reset the second factor",
    "staff.lift_lockout": "Lifted a lockout",
    "staff.password_link": "Made a set-password link",
}


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
