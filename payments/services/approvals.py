"""Four-eyes on money: requests that a second staff member approves before they reach the API.

A maker asks (an execute at or above APPROVAL_THRESHOLD_USD, any automation rule create or
change); a checker, another person holding the permission the action needs, approves or
rejects with a reason; the maker may withdraw; a request lapses after APPROVAL_TTL_HOURS.

Approval is one conditional UPDATE ... WHERE status = 'pending': of two checkers at once, or
one pressing twice, exactly one wins and makes the write, under the request's own idempotency
key. The write runs with no database transaction open, as every staff write does.
"""

import datetime as dt
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.api_errors import api_error_message
from core.audit import audit_record
from core.models import AuditEvent
from paymentsapi import (
    ApiConnectionError,
    ApiUnavailable,
    PaymentsApiError,
    RateLimited,
    ServerError,
    TransportError,
    UnexpectedResponse,
    ValidationFailed,
)

from ..models import (
    ApprovalKind,
    ApprovalRequest,
    ApprovalStatus,
    AutomationRule,
    PaymentAccount,
    Quote,
    Transaction,
)
from .quotes import quote_create, quote_execute
from .rules import automation_rule_create, automation_rule_update

# The permission a checker needs for each kind (the maker needed the same one to ask).
PERMISSION_FOR = {
    ApprovalKind.EXECUTE_QUOTE: "move_money",
    ApprovalKind.CREATE_RULE: "manage_rules",
    ApprovalKind.CHANGE_RULE: "manage_rules",
}
# A quote this close to its expiry is quoted again rather than risk it lapsing in flight.
QUOTE_MARGIN = dt.timedelta(seconds=30)
BPS = Decimal(10000)


class ApprovalRefused(Exception):
    """The request cannot be decided by this person now; the message says why, in staff words."""


class ApprovalWriteFailed(Exception):
    """The approved write did not go through; the message says what happened and what next."""


def _audit(*, actor, action: str, approval: ApprovalRequest, details: dict | None = None) -> None:
    audit_record(
        actor=actor,
        action=action,
        target_kind="approval_request",
        target_id=str(approval.pk),
        details={"kind": approval.kind, "maker": approval.maker.get_username(), **(details or {})},
    )


def _new_request(*, actor, kind: str, summary: str, payload: dict, **links) -> ApprovalRequest:
    with transaction.atomic():
        approval = ApprovalRequest.objects.create(
            kind=kind,
            summary=summary[:300],
            payload=payload,
            maker=actor,
            idempotency_key=uuid.uuid4(),
            expires_at=timezone.now() + dt.timedelta(hours=settings.APPROVAL_TTL_HOURS),
            **links,
        )
        _audit(actor=actor, action="approval.request", approval=approval)
    return approval


def account_names(*account_ids: str) -> dict[str, str]:
    accounts = PaymentAccount.objects.filter(account_id__in=[a for a in account_ids if a])
    return {a.account_id: a.display_name for a in accounts}


def account_name(names: dict[str, str], account_id: str) -> str:
    return names.get(account_id) or f"account {account_id}"


def approval_request_execute(*, actor, quote: Quote, correlation_id: str = "") -> ApprovalRequest:
    """Ask for a checker to execute `quote`. A request already waiting for it is returned as is."""
    waiting = ApprovalRequest.objects.filter(
        quote=quote, status=ApprovalStatus.PENDING, expires_at__gt=timezone.now()
    ).first()
    if waiting is not None:
        return waiting
    source, destination = quote.request["source"], quote.request["destination"]
    names = account_names(source["sourcePaymentAccountId"], destination["destinationPaymentAccountId"])
    customer = quote.customer.name or quote.customer.customer_id
    summary = (
        f"Execute {quote.source_amount.normalize():f} {source['sourceCurrency']} → "
        f"{quote.destination_amount.normalize():f} {destination['destinationCurrency']} for {customer}, "
        f"from {account_name(names, source['sourcePaymentAccountId'])} "
        f"to {account_name(names, destination['destinationPaymentAccountId'])}"
    )
    return _new_request(
        actor=actor,
        kind=ApprovalKind.EXECUTE_QUOTE,
        summary=summary,
        payload={"quoteId": quote.quote_id, "correlationId": correlation_id},
        quote=quote,
        approved_destination_amount=quote.destination_amount,
    )


def _rule_summary(verb: str, payload: dict) -> str:
    template = payload["template"]
    source, destination = template["source"], template["destination"]
    names = account_names(source["sourcePaymentAccountId"], destination["destinationPaymentAccountId"])
    trigger = payload["trigger"]
    when = (
        f"on “{trigger['cronSchedule']}”"
        if trigger.get("cronSchedule")
        else f"when the balance reaches {trigger.get('thresholdAmount')}"
    )
    return (
        f"{verb} rule “{payload['name']}”: {template['amount']['value']} {source['sourceCurrency']} "
        f"from {account_name(names, source['sourcePaymentAccountId'])} to "
        f"{account_name(names, destination['destinationPaymentAccountId'])} "
        f"as {destination['destinationCurrency']}, {when}"
    )


def approval_request_rule_create(
    *, actor, name: str, customer_id: str, template: dict, trigger: dict
) -> ApprovalRequest:
    payload = {"name": name, "customerId": customer_id, "template": template, "trigger": trigger}
    return _new_request(
        actor=actor, kind=ApprovalKind.CREATE_RULE, summary=_rule_summary("Create", payload), payload=payload
    )


def approval_request_rule_change(
    *, actor, rule: AutomationRule, name: str, template: dict, trigger: dict
) -> ApprovalRequest:
    payload = {"name": name, "customerId": rule.customer_upstream_id, "template": template, "trigger": trigger}
    return _new_request(
        actor=actor,
        kind=ApprovalKind.CHANGE_RULE,
        summary=_rule_summary("Change", payload),
        payload=payload,
        rule=rule,
        rule_upstream_id=rule.rule_id,
    )


# --- deciding ------------------------------------------------------------------------------------


def _why_not(approval: ApprovalRequest) -> str:
    if approval.status == ApprovalStatus.PENDING:
        return "This request has expired: the maker must ask again."
    return f"This request is no longer waiting: it is {approval.get_status_display().lower()}."


def _check_checker(actor, approval: ApprovalRequest) -> None:
    if approval.maker_id == actor.pk:
        raise ApprovalRefused("You made this request: another person must approve or reject it.")
    if not actor.has_perm(f"core.{PERMISSION_FOR[approval.kind]}"):
        raise ApprovalRefused("Your role cannot approve this kind of request.")


def _decide(*, actor, approval: ApprovalRequest, status: str, action: str, reason: str = "", **extra) -> bool:
    """Move a pending, unexpired request to `status` if nobody else did first; audit it."""
    now = timezone.now()
    with transaction.atomic():
        won = ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.PENDING, expires_at__gt=now).update(
            status=status, decided_at=now, reason=reason, **extra
        )
        approval.refresh_from_db()
        if won:
            _audit(actor=actor, action=action, approval=approval, details={"reason": reason} if reason else None)
    return bool(won)


def approval_reject(*, actor, approval: ApprovalRequest, reason: str) -> ApprovalRequest:
    _check_checker(actor, approval)
    if not _decide(
        actor=actor, approval=approval, status=ApprovalStatus.REJECTED, action="approval.reject", reason=reason
    ):
        raise ApprovalRefused(_why_not(approval))
    return approval


def approval_withdraw(*, actor, approval: ApprovalRequest) -> ApprovalRequest:
    if approval.maker_id != actor.pk:
        raise ApprovalRefused("Only the maker of a request may withdraw it.")
    if not _decide(actor=actor, approval=approval, status=ApprovalStatus.WITHDRAWN, action="approval.withdraw"):
        raise ApprovalRefused(_why_not(approval))
    return approval


def approval_approve(*, actor, approval: ApprovalRequest) -> ApprovalRequest:
    """Approve and carry out. The checker whose approval was interrupted (the API's answer lost)
    may press again: the same write is sent under the same key and replays the first answer."""
    _check_checker(actor, approval)
    won = _decide(
        actor=actor, approval=approval, status=ApprovalStatus.APPROVED, action="approval.approve", checker=actor
    )
    resuming = approval.status == ApprovalStatus.APPROVED and approval.checker_id == actor.pk
    if not (won or resuming):
        raise ApprovalRefused(_why_not(approval))
    if approval.kind == ApprovalKind.EXECUTE_QUOTE:
        _carry_out_execute(actor=actor, approval=approval)
    else:
        _carry_out_rule(actor=actor, approval=approval)
    return approval


def _finish(*, actor, approval: ApprovalRequest, status: str, action: str, details: dict | None = None, **fields):
    """Record the outcome of an approved request (from APPROVED only: once) and audit it."""
    with transaction.atomic():
        done = ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.APPROVED).update(
            status=status, **fields
        )
        approval.refresh_from_db()
        if done:
            outcome = AuditEvent.Outcome.SUCCESS if status == ApprovalStatus.EXECUTED else AuditEvent.Outcome.FAILURE
            audit_record(
                actor=actor,
                action=action,
                target_kind="approval_request",
                target_id=str(approval.pk),
                outcome=outcome,
                details={"kind": approval.kind, "maker": approval.maker.get_username(), **(details or {})},
            )


def _uncertain(error: PaymentsApiError) -> bool:
    """The write may have gone through (no answer, a 5xx, garbled): keep the request approved
    so that the checker's retry sends the same write under the same key."""
    return isinstance(error, TransportError | ServerError | RateLimited | UnexpectedResponse)


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
            # Asking for a quote changes nothing: back to pending, for this or another checker.
            ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.APPROVED).update(
                status=ApprovalStatus.PENDING, checker=None, decided_at=None
            )
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


def _carry_out_execute(*, actor, approval: ApprovalRequest) -> None:
    quote = _quote_to_execute(actor=actor, approval=approval)
    if quote is None:
        return
    correlation_id = approval.payload.get("correlationId") or approval.quote.request.get("correlationId", "")
    try:
        tx: Transaction = quote_execute(actor=actor, quote=quote, correlation_id=correlation_id, approval=approval)
    except PaymentsApiError as error:
        _write_failed(actor=actor, approval=approval, error=error)
    _finish(
        actor=actor,
        approval=approval,
        status=ApprovalStatus.EXECUTED,
        action="approval.execute",
        details={"transaction": tx.transaction_id},
        transaction_id=tx.transaction_id,
    )


def _nothing_sent(error: PaymentsApiError) -> bool:
    """Not sent, or turned away unread: the API changed nothing."""
    return isinstance(error, ApiConnectionError | RateLimited) or (
        isinstance(error, ApiUnavailable) and error.status is None
    )


def _write_failed(*, actor, approval: ApprovalRequest, error: PaymentsApiError):
    """A refusal fails the request (the maker reads why); a write that never left leaves it
    waiting for a checker again; a write that may have gone through stays approved for the
    checker's retry when it carries a key (an execute), else fails with a warning to check."""
    message = api_error_message(error, write=True, repeatable=approval.kind == ApprovalKind.EXECUTE_QUOTE)
    if isinstance(error, ValidationFailed):
        # No form to put them on: the maker reads each field's reason with the request.
        fields = [
            f"{field or 'request'}: {text}" for field, texts in error.messages_by_field().items() for text in texts
        ]
        message = f"{message} ({'; '.join(fields)})" if fields else message
    if _nothing_sent(error):
        ApprovalRequest.objects.filter(pk=approval.pk, status=ApprovalStatus.APPROVED).update(
            status=ApprovalStatus.PENDING, checker=None, decided_at=None
        )
        approval.refresh_from_db()
    elif not (_uncertain(error) and approval.kind == ApprovalKind.EXECUTE_QUOTE):
        _finish(
            actor=actor,
            approval=approval,
            status=ApprovalStatus.FAILED,
            action="approval.fail",
            details={"error": error.code or type(error).__name__},
            reason=message,
        )
    raise ApprovalWriteFailed(message) from error


def _carry_out_rule(*, actor, approval: ApprovalRequest) -> None:
    payload = approval.payload
    details = {"approval": approval.pk, "maker": approval.maker.get_username(), "checker": actor.get_username()}
    try:
        if approval.kind == ApprovalKind.CREATE_RULE:
            rule = automation_rule_create(
                actor=actor,
                name=payload["name"],
                customer_id=payload["customerId"],
                template=payload["template"],
                trigger=payload["trigger"],
                details=details,
            )
        else:
            rule = automation_rule_update(
                actor=actor,
                rule=approval.rule or AutomationRule.objects.get(rule_id=approval.rule_upstream_id),
                name=payload["name"],
                template=payload["template"],
                trigger=payload["trigger"],
                details=details,
            )
    except PaymentsApiError as error:
        _write_failed(actor=actor, approval=approval, error=error)
    _finish(
        actor=actor,
        approval=approval,
        status=ApprovalStatus.EXECUTED,
        action="approval.execute",
        details={"rule": rule.rule_id},
        rule=rule,
        rule_upstream_id=rule.rule_id,
    )


def approvals_expire() -> int:
    """Mark the pending requests past their expiry as expired, one audit event each."""
    expired = 0
    now = timezone.now()
    for pk in ApprovalRequest.objects.filter(status=ApprovalStatus.PENDING, expires_at__lte=now).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            if ApprovalRequest.objects.filter(pk=pk, status=ApprovalStatus.PENDING).update(
                status=ApprovalStatus.EXPIRED, decided_at=now
            ):
                approval = ApprovalRequest.objects.select_related("maker").get(pk=pk)
                _audit(actor=None, action="approval.expire", approval=approval)
                expired += 1
    return expired
