"""The one way a staff action writes through the Payments API: call the API, then change the
mirror and record the audit event together; on an API error, record the failure and nothing else.

    customer = write_through_api(
        actor=request.user,
        action="customer.refresh",
        target=AuditTarget("customer", customer.customer_id),
        call=lambda: get_client().customers.get(customer_id=customer.customer_id),
        store=store_customer,
    )
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from django.db import transaction

from paymentsapi import PaymentsApiError

from .audit import audit_record
from .models import AuditEvent

Answer = TypeVar("Answer")
Result = TypeVar("Result")


@dataclass(frozen=True)
class AuditTarget:
    """What an audit event names: the kind and id of the record, and details without personal
    data (names of the sections sent, a status, a reason given by staff)."""

    kind: str
    id: str
    details: dict = field(default_factory=dict)


def write_through_api(
    *,
    actor,
    action: str,
    target: AuditTarget,
    call: Callable[[], Answer],
    store: Callable[[Answer], Result],
    stored: Callable[[Result], AuditTarget] | None = None,
) -> Result:
    """Run `call()` (the API request), then `store(answer)` (the mirror) and a success audit
    event of `action` in one database transaction; return what `store` returned.

    `call` runs with no database transaction of ours open: a slow API must not hold row locks.
    If it raises a PaymentsApiError, a failure event names `target` with the error's code under
    "error", the mirror is left as it was, and the error goes up to the view. The success event
    names `target` too, or what `stored(result)` says (a record that only now has an id).
    """
    try:
        answer = call()
    except PaymentsApiError as error:
        audit_record(
            actor=actor,
            action=action,
            target_kind=target.kind,
            target_id=target.id,
            outcome=AuditEvent.Outcome.FAILURE,
            details={**target.details, "error": error.code or type(error).__name__},
        )
        raise
    with transaction.atomic():
        result = store(answer)
        done = stored(result) if stored is not None else target
        audit_record(actor=actor, action=action, target_kind=done.kind, target_id=done.id, details=done.details)
    return result
