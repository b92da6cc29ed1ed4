"""Four-eyes on money: requests that a second staff member approves before they reach the API.

A maker asks (an execute at or above APPROVAL_THRESHOLD_USD, any automation rule create or
change); a checker, another person holding the permission the action needs, approves or
rejects with a reason; the maker may withdraw; a request lapses after APPROVAL_TTL_HOURS.

Approval is one conditional UPDATE ... WHERE status = 'pending': of two checkers at once, or
one pressing twice, exactly one wins. Its write is then claimed (upstream.claims): one request
makes it, under the request's own idempotency key, and writes the request's final state; the
checker's other requests wait for that outcome and report it. The write runs with no database
transaction open, as every staff write does.
"""

import datetime as dt
import uuid

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import ApprovalKind, ApprovalRequest, ApprovalStatus, AutomationRule, PaymentAccount, Quote
from .approval_writes import audit_approval, carry_out_once

# The permission a checker needs for each kind (the maker needed the same one to ask).
PERMISSION_FOR = {
    ApprovalKind.EXECUTE_QUOTE: "move_money",
    ApprovalKind.CREATE_RULE: "manage_rules",
    ApprovalKind.CHANGE_RULE: "manage_rules",
}


class ApprovalRefused(Exception):
    """The request cannot be decided by this person now; the message says why, in staff words."""


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
        audit_approval(actor=actor, action="approval.request", approval=approval)
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
            audit_approval(
                actor=actor, action=action, approval=approval, details={"reason": reason} if reason else None
            )
    return bool(won)


def _sent_again(approval: ApprovalRequest, *, status: str, actor) -> bool:
    """Whether the request already holds this person's own decision `status` (a double click,
    a resend): it stands as decided, and nothing is done or audited again."""
    who = approval.maker_id if status == ApprovalStatus.WITHDRAWN else approval.checker_id
    return approval.status == status and who == actor.pk


def approval_reject(*, actor, approval: ApprovalRequest, reason: str) -> ApprovalRequest:
    _check_checker(actor, approval)
    decided = _decide(
        actor=actor,
        approval=approval,
        status=ApprovalStatus.REJECTED,
        action="approval.reject",
        reason=reason,
        checker=actor,
    )
    if not (decided or _sent_again(approval, status=ApprovalStatus.REJECTED, actor=actor)):
        raise ApprovalRefused(_why_not(approval))
    return approval


def approval_withdraw(*, actor, approval: ApprovalRequest) -> ApprovalRequest:
    if approval.maker_id != actor.pk:
        raise ApprovalRefused("Only the maker of a request may withdraw it.")
    decided = _decide(actor=actor, approval=approval, status=ApprovalStatus.WITHDRAWN, action="approval.withdraw")
    if not (decided or _sent_again(approval, status=ApprovalStatus.WITHDRAWN, actor=actor)):
        raise ApprovalRefused(_why_not(approval))
    return approval


# What follows an approval: a request in one of these was approved by its checker.
APPROVED_BY_CHECKER = (
    ApprovalStatus.APPROVED,
    ApprovalStatus.EXECUTED,
    ApprovalStatus.FAILED,
    ApprovalStatus.RETURNED,
)


def approval_approve(*, actor, approval: ApprovalRequest) -> ApprovalRequest:
    """Approve and carry out. Of approves sent at once (a double click, two checkers) one
    wins the decision and one request of its checker carries out the write
    (approval_writes.carry_out_once); the checker's other requests answer with its outcome.
    The checker whose approval was interrupted (the API's answer lost) may press again: the
    same write is sent under the same key and replays the first answer."""
    _check_checker(actor, approval)
    _decide(actor=actor, approval=approval, status=ApprovalStatus.APPROVED, action="approval.approve", checker=actor)
    if not (approval.status in APPROVED_BY_CHECKER and approval.checker_id == actor.pk):
        raise ApprovalRefused(_why_not(approval))
    carry_out_once(actor=actor, approval=approval)
    return approval


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
                audit_approval(actor=None, action="approval.expire", approval=approval)
                expired += 1
    return expired
