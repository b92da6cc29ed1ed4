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

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.db import transaction

from audit.models import AuditEvent
from audit.records import audit_record
from paymentsapi import PaymentsApiError

from . import claims
from .api_errors import NotDone, StillUnknown, outcome_unknown

log = logging.getLogger(__name__)

Answer = TypeVar("Answer")
Result = TypeVar("Result")


@dataclass(frozen=True)
class AuditTarget:
    """What an audit event names: the kind and id of the record, and details without personal
    data (names of the sections sent, a status, a reason given by staff)."""

    kind: str
    id: str
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Once:
    """The write happens once, however many requests send it (upstream.claims): `key` names what
    it carries out; `remember(result)` is the id the winner records, `replay(id)` rebuilds the
    result from it for the requests that lost."""

    key: str
    remember: Callable[[Any], str]
    replay: Callable[[str], Any]
    # A last check of the service's, run once the claim is held and before anything is sent
    # (a hold on a payment account): raising refuses the write, and the claim goes back to
    # the state it was found in.
    check: Callable[[], None] | None = None


def write_through_api(
    *,
    actor,
    action: str,
    target: AuditTarget,
    call: Callable[[], Answer],
    store: Callable[[Answer], Result],
    stored: Callable[[Result], AuditTarget] | None = None,
    reconcile: Callable[[], Answer | None] | None = None,
    once: Once | None = None,
) -> Result:
    """Run `call()` (the API request), then `store(answer)` (the mirror) and a success audit
    event of `action` in one database transaction; return what `store` returned.

    `call` runs with no database transaction of ours open: a slow API must not hold row locks.
    If it raises a PaymentsApiError, a failure event names `target` with the error's code under
    "error", the mirror is left as it was, and the error goes up to the view. The success event
    names `target` too, or what `stored(result)` says (a record that only now has an id).

    An error after which the write may have been done all the same (its answer was lost:
    `api_errors.outcome_unknown`) is reconciled when `reconcile` is given: `reconcile()` looks
    the record up upstream and returns it as `call` would have (then it is stored and audited
    as a success, with "reconciled" in the details), None when it is certainly not there (the
    error goes up as NotDone: trying again is safe), or raises (PaymentsApiError, CannotTell)
    when it cannot tell: the original error goes up, "this may have gone through".

    With `once`, only the request that claims `once.key` first calls the API (upstream.claims);
    the others wait and return the winner's result, audited by the winner alone. A holder
    whose predecessor's outcome is unknown calls `reconcile()` before writing again, and the
    success of an answer the API replayed is audited once, marked "replayed". `once.check()`
    runs under the claim before any call: what it raises goes up, nothing sent.
    """
    if once is None:
        return _write(actor, action, target, call, store, stored, reconcile)
    held = claims.claim(once.key, actor=actor)
    if isinstance(held, claims.Outcome):
        return once.replay(held.result)
    if once.check is not None:
        try:
            once.check()
        except Exception:
            # Refused before anything was sent: an earlier try's unknown outcome stays unknown.
            if held.recheck:
                claims.unknown(held)
            else:
                claims.release(held)
            raise
    try:
        if held.recheck and reconcile is not None:
            call, earlier = _read_back_first(actor, action, target, held, call, reconcile)
        else:
            earlier = None
        return _write(actor, action, target, call, store, stored, reconcile, (held, once), earlier)
    except Exception as error:
        if isinstance(error, PaymentsApiError) and not outcome_unknown(error):
            claims.release(held)
        else:
            claims.unknown(held)
        raise


def _read_back_first(actor, action, target, held, call, reconcile) -> tuple[Callable[[], Any], str | None]:
    """Before writing again after a try whose outcome is unknown: what that try made, as the
    answer to store (with "reconciled" noted), or `call` when it certainly made nothing;
    StillUnknown (nothing sent) when the API cannot tell."""
    found, checked = _look_up(reconcile)
    if found is not None:
        return (lambda: found), "earlier try"
    if checked == "unknown":
        _audit_failure(actor, action, target, "StillUnknown", "unknown")
        raise StillUnknown(held.key)
    return call, None


def _write(actor, action, target, call, store, stored, reconcile, holding=None, reconciled=None) -> Result:
    try:
        answer = call()
    except PaymentsApiError as error:
        code = error.code or type(error).__name__
        found, checked = None, "no"
        if reconcile is not None and outcome_unknown(error):
            found, checked = _look_up(reconcile)
        if found is None:
            _audit_failure(actor, action, target, code, checked)
            if checked == "not done":
                raise NotDone(error) from error
            raise
        answer, reconciled = found, code
    with transaction.atomic():
        result = store(answer)
        done = stored(result) if stored is not None else target
        details = {**done.details, "reconciled": reconciled} if reconciled else done.details
        if getattr(answer, "replayed", False):
            details = {**details, "replayed": True}
        # A claim taken over meanwhile (this request outlived its lease): the new holder audits.
        if holding is None or claims.done(holding[0], result=holding[1].remember(result)):
            audit_record(actor=actor, action=action, target_kind=done.kind, target_id=done.id, details=details)
    return result


def _audit_failure(actor, action: str, target: AuditTarget, code: str, checked: str) -> None:
    details = {**target.details, "error": code}
    if checked != "no":
        details["checked"] = checked
    audit_record(
        actor=actor,
        action=action,
        target_kind=target.kind,
        target_id=target.id,
        outcome=AuditEvent.Outcome.FAILURE,
        details=details,
    )


class CannotTell(Exception):
    """Raised by a `reconcile` that could not look far enough to say the record is not there."""


def _look_up(reconcile: Callable[[], Answer | None]) -> tuple[Answer | None, str]:
    """(what reconcile found, "found" | "not done" | "unknown")."""
    try:
        found = reconcile()
    except (PaymentsApiError, CannotTell) as exc:
        log.warning("Could not tell whether a write was done: %s", exc)
        return None, "unknown"
    return found, "found" if found is not None else "not done"
