"""The write an approved request makes, and what its outcome does to the request.

An execute may need its quote made again (the maker's expired while the request waited); the
write then goes to the API once, under the request's idempotency key. Its outcome moves the
request from APPROVED exactly once: EXECUTED with what it made, FAILED with the API's reason,
back to PENDING when nothing was sent, or left APPROVED for the checker's retry when an
execute's answer was lost (payments.services.approvals asks and decides).
"""

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.api_errors import api_error_message, outcome_unknown
from core.audit import audit_record
from core.models import AuditEvent
from paymentsapi import ApiConnectionError, ApiUnavailable, PaymentsApiError, RateLimited, ValidationFailed

from ..models import ApprovalKind, ApprovalRequest, ApprovalStatus, AutomationRule, Quote
from .quotes import quote_create, quote_execute
from .rules import automation_rule_create, automation_rule_update

# A quote this close to its expiry is quoted again rather than risk it lapsing in flight.
QUOTE_MARGIN = dt.timedelta(seconds=30)
BPS = Decimal(10000)


class ApprovalWriteFailed(Exception):
    """The approved write did not go through; the message says what happened and what next."""


def audit_approval(
    *, actor, action: str, approval: ApprovalRequest, details: dict | None = None, outcome=AuditEvent.Outcome.SUCCESS
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


def carry_out(*, actor, approval: ApprovalRequest) -> None:
    """Make the write of an approved request (the approver is `actor`); raises
    ApprovalWriteFailed when it did not go through."""
    if approval.kind == ApprovalKind.EXECUTE_QUOTE:
        quote = _quote_to_execute(actor=actor, approval=approval)
        if quote is not None:
            _write(actor=actor, approval=approval, call=lambda: _execute(actor=actor, approval=approval, quote=quote))
    else:
        _write(actor=actor, approval=approval, call=lambda: _write_rule(actor=actor, approval=approval))


def _write(*, actor, approval: ApprovalRequest, call: Callable[[], tuple[dict, dict]]) -> None:
    """Send the write (`call` answers the audit details and the request's fields of what it
    made); the request becomes EXECUTED with them, or the failure is recorded and raised."""
    try:
        details, made = call()
    except PaymentsApiError as error:
        raise ApprovalWriteFailed(_write_failed(actor=actor, approval=approval, error=error)) from error
    _finish(
        actor=actor,
        approval=approval,
        status=ApprovalStatus.EXECUTED,
        action="approval.execute",
        details=details,
        **made,
    )


def _execute(*, actor, approval: ApprovalRequest, quote: Quote) -> tuple[dict, dict]:
    correlation_id = approval.payload.get("correlationId") or approval.quote.request.get("correlationId", "")
    tx = quote_execute(actor=actor, quote=quote, correlation_id=correlation_id, approval=approval)
    return {"transaction": tx.transaction_id}, {"transaction_id": tx.transaction_id}


def _write_rule(*, actor, approval: ApprovalRequest) -> tuple[dict, dict]:
    payload = approval.payload
    details = {"approval": approval.pk, "maker": approval.maker.get_username(), "checker": actor.get_username()}
    fields = {"name": payload["name"], "template": payload["template"], "trigger": payload["trigger"]}
    if approval.kind == ApprovalKind.CREATE_RULE:
        rule = automation_rule_create(actor=actor, customer_id=payload["customerId"], details=details, **fields)
    else:
        rule = automation_rule_update(
            actor=actor,
            rule=approval.rule or AutomationRule.objects.get(rule_id=approval.rule_upstream_id),
            details=details,
            **fields,
        )
    return {"rule": rule.rule_id}, {"rule": rule, "rule_upstream_id": rule.rule_id}


def _finish(*, actor, approval: ApprovalRequest, status: str, action: str, details: dict | None = None, **fields):
    """Record the outcome of an approved request (from APPROVED only: once) and audit it."""
    with transaction.atomic():
        done = ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.APPROVED).update(
            status=status, **fields
        )
        approval.refresh_from_db()
        if done:
            outcome = AuditEvent.Outcome.SUCCESS if status == ApprovalStatus.EXECUTED else AuditEvent.Outcome.FAILURE
            audit_approval(actor=actor, action=action, approval=approval, details=details, outcome=outcome)


def _back_to_pending(approval: ApprovalRequest) -> None:
    """Nothing was written: the request waits again, for this or another checker."""
    ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.APPROVED).update(
        status=ApprovalStatus.PENDING, checker=None, decided_at=None
    )


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
        body = {k: v for k, v in quote.request.items() if k != "correlationId"}
        try:
            quote = quote_create(actor=actor, customer=quote.customer, body=body)
        except PaymentsApiError as error:
            _back_to_pending(approval)  # asking for a quote changes nothing
            raise ApprovalWriteFailed(
                f"The quote had expired and a new one could not be made: "
                f"{api_error_message(error, write=True, repeatable=True)}"
            ) from error
        approved, now = approval.approved_destination_amount, quote.destination_amount
        if _moved_bps(approved, now) > settings.APPROVAL_PRICE_TOLERANCE_BPS:
            reason = (
                f"The price moved beyond {settings.APPROVAL_PRICE_TOLERANCE_BPS} bps: approved "
                f"{approved.normalize():f}, now {now.normalize():f} "
                f"{quote.request['destination']['destinationCurrency']}. Nothing was executed."
            )
            _finish(
                actor=actor,
                approval=approval,
                status=ApprovalStatus.RETURNED,
                action="approval.return",
                details={"approved": f"{approved.normalize():f}", "requoted": f"{now.normalize():f}"},
                reason=reason,
                requoted_destination_amount=now,
            )
            return None
        ApprovalRequest.objects.filter(pk=approval.pk).update(requoted_destination_amount=now)
    ApprovalRequest.objects.filter(pk=approval.pk).update(executed_quote_id=quote.quote_id)
    approval.executed_quote_id = quote.quote_id
    return quote


def _nothing_sent(error: PaymentsApiError) -> bool:
    """Not sent, or turned away unread: the API changed nothing."""
    return isinstance(error, ApiConnectionError | RateLimited) or (
        isinstance(error, ApiUnavailable) and error.status is None
    )


def _write_failed(*, actor, approval: ApprovalRequest, error: PaymentsApiError) -> str:
    """What a failed write does to the request, and the message saying so. A refusal fails the
    request (the maker reads why); a write that never left leaves it waiting for a checker
    again; a write that may have gone through stays approved for the checker's retry when it
    carries a key (an execute: the checker's retry sends the same write under the same key),
    else fails with a warning to check."""
    message = api_error_message(error, write=True, repeatable=approval.kind == ApprovalKind.EXECUTE_QUOTE)
    if isinstance(error, ValidationFailed):
        # No form to put them on: the maker reads each field's reason with the request.
        fields = [
            f"{field or 'request'}: {text}" for field, texts in error.messages_by_field().items() for text in texts
        ]
        message = f"{message} ({'; '.join(fields)})" if fields else message
    if _nothing_sent(error):
        _back_to_pending(approval)
        approval.refresh_from_db()
    elif not (outcome_unknown(error) and approval.kind == ApprovalKind.EXECUTE_QUOTE):
        _finish(
            actor=actor,
            approval=approval,
            status=ApprovalStatus.FAILED,
            action="approval.fail",
            details={"error": error.code or type(error).__name__},
            reason=message,
        )
    return message
