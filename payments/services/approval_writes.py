"""The write an approved request makes, and what its outcome does to the request.

One request carries it out (carry_out_once: a claim on the request, upstream.claims); the
checker's other requests sent meanwhile wait and report its outcome, so that neither a second
write nor a second outcome can follow. An execute may need its quote made again (the maker's
expired while the request waited); the write then goes to the API once, under the request's
idempotency key. Its outcome moves the request from APPROVED exactly once (the moves are
payments.services.approval_states): EXECUTED with what it made, FAILED with the API's reason,
RETURNED when the re-quote's price moved too far, back to PENDING when nothing was sent, or left
APPROVED for the checker's retry when the answer was lost (an execute replays under its key, a
rule write reads the API back first). payments.services.approvals asks and decides.
"""

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from paymentsapi import ApiConnectionError, ApiUnavailable, PaymentsApiError, RateLimited, ValidationFailed
from upstream import claims
from upstream.api_errors import api_error_message, outcome_unknown

from ..models import ApprovalKind, ApprovalRequest, ApprovalStatus, AutomationRule, Quote
from . import approval_states as states
from .holds import AccountHeld, refuse_held_rule
from .quotes import quote_again, quote_execute
from .rules import automation_rule_create, automation_rule_update

# A quote this close to its expiry is quoted again rather than risk it lapsing in flight.
QUOTE_MARGIN = dt.timedelta(seconds=30)
BPS = Decimal(10000)


# The writes of the kinds that make no call upstream (a monitoring rule going live, a payment
# account held in the back-office): kind -> write(actor=, approval=) answering (audit details,
# the request's fields it made).
_REGISTERED: dict[str, Callable[..., tuple[dict, dict]]] = {}


def register_write(kind: str, write: Callable[..., tuple[dict, dict]]) -> None:
    """What approving a request of `kind` carries out, registered by the app that owns it (in
    its AppConfig.ready): payments knows the request, the app knows what it approves. The write
    runs in the transaction that marks the request executed; raising states.NotNow puts the
    request back to waiting, with nothing done."""
    _REGISTERED[kind] = write


def registered_writes() -> dict[str, Callable[..., tuple[dict, dict]]]:
    return dict(_REGISTERED)


class ApprovalWriteFailed(Exception):
    """The approved write did not go through; the message says what happened and what next."""


def carry_out_once(*, actor, approval: ApprovalRequest) -> None:
    """carry_out by one request of the checker's: the one that claims the request first. The
    others wait for its outcome and report it (ApprovalWriteFailed for anything but executed
    or returned; InFlight when it takes too long); only the claimant writes the final state."""
    held = claims.claim(f"approval:{approval.pk}", actor=actor)
    if isinstance(held, claims.Claim):
        approval.refresh_from_db()
        if approval.status == ApprovalStatus.APPROVED:
            try:
                carry_out(actor=actor, approval=approval)
            finally:
                _end_claim(held, approval)
            return
        _end_claim(held, approval)
    approval.refresh_from_db()
    _report(approval)


FINAL = (ApprovalStatus.EXECUTED, ApprovalStatus.FAILED, ApprovalStatus.RETURNED)


def _end_claim(held: claims.Claim, approval: ApprovalRequest) -> None:
    approval.refresh_from_db()
    if approval.status in FINAL:
        claims.done(held, result=approval.status)
    else:
        # Waiting again, or approved with its answer lost: the next approve carries it out.
        claims.release(held)


def _report(approval: ApprovalRequest) -> None:
    """The outcome another request of the checker's reached, as this one would have told it."""
    if approval.status in (ApprovalStatus.EXECUTED, ApprovalStatus.RETURNED):
        return
    if approval.status == ApprovalStatus.FAILED:
        raise ApprovalWriteFailed(approval.reason)
    if approval.status == ApprovalStatus.PENDING:
        raise ApprovalWriteFailed(
            "The write could not be sent to the Payments API; nothing was changed. "
            "The request waits for a checker again."
        )
    raise ApprovalWriteFailed(
        "The Payments API's answer was lost, so this may have gone through; approving again is safe: "
        "the same write is sent under the same key."
    )


def carry_out(*, actor, approval: ApprovalRequest) -> None:
    """Make the write of an approved request (the approver is `actor`); raises
    ApprovalWriteFailed when it did not go through."""
    try:
        if approval.kind == ApprovalKind.EXECUTE_QUOTE:
            quote = _quote_to_execute(actor=actor, approval=approval)
            if quote is not None:
                _write(
                    actor=actor, approval=approval, call=lambda: _execute(actor=actor, approval=approval, quote=quote)
                )
        elif approval.kind in _REGISTERED:
            _write_registered(actor=actor, approval=approval)
        else:
            _write(actor=actor, approval=approval, call=lambda: _write_rule(actor=actor, approval=approval))
    except AccountHeld as held:
        # An account of the write was held since the request was made: nothing was sent, and
        # the maker reads why with the request.
        states.failed(approval, actor=actor, reason=str(held), details={"error": "AccountHeld"})
        raise ApprovalWriteFailed(str(held)) from held


def _write_registered(*, actor, approval: ApprovalRequest) -> None:
    """No call upstream: the app's write and the request's EXECUTED are one transaction."""
    try:
        with transaction.atomic():
            _write(
                actor=actor, approval=approval, call=lambda: _REGISTERED[approval.kind](actor=actor, approval=approval)
            )
    except states.NotNow as not_now:
        states.reopen(approval)
        raise ApprovalWriteFailed(str(not_now)) from not_now


def _write(*, actor, approval: ApprovalRequest, call: Callable[[], tuple[dict, dict]]) -> None:
    """Send the write (`call` answers the audit details and the request's fields of what it
    made); the request becomes EXECUTED with them, or the failure is recorded and raised."""
    try:
        details, made = call()
    except PaymentsApiError as error:
        raise ApprovalWriteFailed(_write_failed(actor=actor, approval=approval, error=error)) from error
    states.executed(approval, actor=actor, details=details, **made)


def _execute(*, actor, approval: ApprovalRequest, quote: Quote) -> tuple[dict, dict]:
    correlation_id = approval.payload.get("correlationId") or approval.quote.correlation_id or ""
    tx = quote_execute(actor=actor, quote=quote, correlation_id=correlation_id, approval=approval)
    return {"transaction": tx.transaction_id}, {"transaction_id": tx.transaction_id}


def _write_rule(*, actor, approval: ApprovalRequest) -> tuple[dict, dict]:
    payload = approval.payload
    details = {"approval": approval.pk, "maker": approval.maker.get_username(), "checker": actor.get_username()}
    fields = {"name": payload["name"], "template": payload["template"], "trigger": payload["trigger"]}
    claim_key = f"approval:{approval.pk}:write"
    # An account held since the request was made: refused (carry_out fails the request).
    refuse_held_rule(
        actor=actor,
        template=payload["template"],
        trigger=payload["trigger"],
        action=f"automation_rule.{'create' if approval.kind == ApprovalKind.CREATE_RULE else 'update'}",
        target_kind="approval_request",
        target_id=str(approval.pk),
    )
    if approval.kind == ApprovalKind.CREATE_RULE:
        rule = automation_rule_create(
            actor=actor, claim_key=claim_key, customer_id=payload["customerId"], details=details, **fields
        )
    else:
        rule = automation_rule_update(
            actor=actor,
            claim_key=claim_key,
            rule=approval.rule or AutomationRule.objects.get(rule_id=approval.rule_upstream_id),
            details=details,
            **fields,
        )
    return {"rule": rule.rule_id}, {"rule": rule, "rule_upstream_id": rule.rule_id}


def _moved_bps(approved: Decimal, now: Decimal) -> Decimal:
    return abs(now - approved) / approved * BPS if approved else BPS


def _quote_to_execute(*, actor, approval: ApprovalRequest) -> Quote | None:
    """The maker's quote while it lives; else a new quote of the same request, if its
    destination amount is within APPROVAL_PRICE_TOLERANCE_BPS of the approved one (None and
    the request returned to the maker otherwise)."""
    if approval.executed_quote_id:
        return Quote.objects.get(quote_id=approval.executed_quote_id)
    quote = approval.quote
    if quote.expires_at <= timezone.now() + QUOTE_MARGIN:
        try:
            quote = quote_again(actor=actor, quote=quote)
        except PaymentsApiError as error:
            states.reopen(approval)  # asking for a quote changes nothing
            raise ApprovalWriteFailed(
                f"The quote had expired and a new one could not be made: "
                f"{api_error_message(error, write=True, repeatable=True)}"
            ) from error
        approved, now = approval.approved_destination_amount, quote.destination_amount
        if _moved_bps(approved, now) > settings.APPROVAL_PRICE_TOLERANCE_BPS:
            reason = (
                f"The price moved beyond {settings.APPROVAL_PRICE_TOLERANCE_BPS} bps: approved "
                f"{approved.normalize():f}, now {now.normalize():f} "
                f"{quote.destination_currency}. Nothing was executed."
            )
            states.returned(
                approval,
                actor=actor,
                reason=reason,
                details={"approved": f"{approved.normalize():f}", "requoted": f"{now.normalize():f}"},
                requoted_destination_amount=now,
            )
            return None
        ApprovalRequest.objects.filter(pk=approval.pk).update(requoted_destination_amount=now)
    # Fixed once: every later try sends this quote under the request's key.
    ApprovalRequest.objects.filter(pk=approval.pk, executed_quote_id="").update(executed_quote_id=quote.quote_id)
    approval.refresh_from_db(fields=["executed_quote_id"])
    return Quote.objects.get(quote_id=approval.executed_quote_id)


def _nothing_sent(error: PaymentsApiError) -> bool:
    """Not sent, or turned away unread: the API changed nothing."""
    return isinstance(error, ApiConnectionError | RateLimited) or (
        isinstance(error, ApiUnavailable) and error.status is None
    )


def _write_failed(*, actor, approval: ApprovalRequest, error: PaymentsApiError) -> str:
    """What a failed write does to the request, and the message saying so. A refusal fails the
    request (the maker reads why); a write that never left leaves it waiting for a checker
    again; a write that may have gone through stays approved for the checker's retry, which is
    safe: an execute is sent again under the same key, a rule write reads the API back first."""
    message = api_error_message(error, write=True, repeatable=True)
    if isinstance(error, ValidationFailed):
        # No form to put them on: the maker reads each field's reason with the request.
        fields = [
            f"{field or 'request'}: {text}" for field, texts in error.messages_by_field().items() for text in texts
        ]
        message = f"{message} ({'; '.join(fields)})" if fields else message
    if _nothing_sent(error):
        states.reopen(approval)
    elif not outcome_unknown(error):
        states.failed(approval, actor=actor, reason=message, details={"error": error.code or type(error).__name__})
    return message
