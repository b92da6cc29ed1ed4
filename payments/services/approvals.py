"""Four-eyes on money: requests that a second staff member approves before they reach the API.

A maker asks (an execute at or above APPROVAL_THRESHOLD_USD, any automation rule create or
change, a hold or release of a payment account in the back-office); a checker, another person
holding the permission the action needs, approves or rejects with a reason; the maker may
withdraw; a request lapses after APPROVAL_TTL_HOURS.

Approval is one conditional UPDATE ... WHERE status = 'pending' (payments.services.approval_states
holds every change of a request's status): of two checkers at once, or one pressing twice,
exactly one wins. Its write is then claimed (upstream.claims): one request
makes it, under the request's own idempotency key, and writes the request's final state; the
checker's other requests wait for that outcome and report it. The write runs with no database
transaction open, as every staff write does.
"""

import datetime as dt
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from ..models import (
    ApprovalKind,
    ApprovalRequest,
    ApprovalStatus,
    AutomationRule,
    PaymentAccount,
    Quote,
    Transaction,
)
from ..selectors import account_name, account_names
from ..terms import RuleTerms
from . import approval_states as states
from .approval_states import audit_approval
from .approval_writes import carry_out_once, registered_writes
from .holds import held_words, refuse_held_execute, refuse_held_rule
from .quotes import quote_execute, quote_needs_approval

# The permission a checker needs for each kind (the maker needed the same one to ask).
PERMISSION_FOR = {
    ApprovalKind.EXECUTE_QUOTE: "move_money",
    ApprovalKind.CREATE_RULE: "manage_rules",
    ApprovalKind.CHANGE_RULE: "manage_rules",
    ApprovalKind.MONITORING_RULE: "manage_monitoring",
    ApprovalKind.ACCOUNT_HOLD: "hold_accounts",
    ApprovalKind.ACCOUNT_RELEASE: "hold_accounts",
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


def approval_request_registered(*, actor, kind: str, summary: str, payload: dict) -> ApprovalRequest:
    """Ask a checker to approve what an app above payments carries out (a kind whose write is
    registered, approval_writes.register_write). `payload` holds what the write needs and what
    the request's page shows: "facts" ([label, value] pairs) and "link" ({"url", "text"})."""
    if kind not in registered_writes():
        raise ValueError(f"No write is registered for approval requests of kind {kind!r}.")
    return _new_request(actor=actor, kind=kind, summary=summary, payload=payload)


def approval_request_execute(*, actor, quote: Quote, correlation_id: str = "") -> ApprovalRequest:
    """Ask for a checker to execute `quote`. A request already waiting for it is returned as is."""
    waiting = ApprovalRequest.objects.filter(
        quote=quote, status=ApprovalStatus.PENDING, expires_at__gt=timezone.now()
    ).first()
    if waiting is not None:
        return waiting
    names = account_names(quote.source_account_id, quote.destination_account_id)
    customer = quote.customer.name or quote.customer.customer_id
    summary = (
        f"Execute {quote.source_amount.normalize():f} {quote.source_currency} → "
        f"{quote.destination_amount.normalize():f} {quote.destination_currency} for {customer}, "
        f"from {account_name(names, quote.source_account_id)} "
        f"to {account_name(names, quote.destination_account_id)}"
    )
    return _new_request(
        actor=actor,
        kind=ApprovalKind.EXECUTE_QUOTE,
        summary=summary,
        payload={"quoteId": quote.quote_id, "correlationId": correlation_id},
        quote=quote,
        approved_destination_amount=quote.destination_amount,
    )


@dataclass(frozen=True)
class Executed:
    """The quote was executed: the transaction it made (or had made already)."""

    transaction: Transaction


@dataclass(frozen=True)
class WaitingForApproval:
    """The quote needs a second person: the request that waits for one."""

    approval: ApprovalRequest


def execute_or_request_approval(*, actor, quote: Quote, correlation_id: str = "") -> Executed | WaitingForApproval:
    """Execute `quote` below APPROVAL_THRESHOLD_USD (quote_execute: once, under the quote's
    key); at or above it, or when its value is unknown, ask a checker instead. An error of the
    API's on the execute goes up as PaymentsApiError, as from quote_execute."""
    if quote_needs_approval(quote):
        # Asked now, checked again when carried out (quote_execute, under its claim).
        refuse_held_execute(actor=actor, quote=quote)
        return WaitingForApproval(approval_request_execute(actor=actor, quote=quote, correlation_id=correlation_id))
    return Executed(quote_execute(actor=actor, quote=quote, correlation_id=correlation_id))


def _rule_summary(verb: str, payload: dict) -> str:
    terms = RuleTerms.from_api(payload["template"], payload["trigger"])
    names = account_names(terms.source_account_id, terms.destination_account_id)
    when = (
        f"on “{terms.cron_schedule}”" if terms.cron_schedule else f"when the balance reaches {terms.threshold_amount}"
    )
    return (
        f"{verb} rule “{payload['name']}”: {terms.amount} {terms.source_currency} "
        f"from {account_name(names, terms.source_account_id)} to "
        f"{account_name(names, terms.destination_account_id)} "
        f"as {terms.destination_currency}, {when}"
    )


def approval_request_rule_create(
    *, actor, name: str, customer_id: str, template: dict, trigger: dict
) -> ApprovalRequest:
    refuse_held_rule(
        actor=actor,
        template=template,
        trigger=trigger,
        action="automation_rule.create",
        target_kind="customer",
        target_id=customer_id,
    )
    payload = {"name": name, "customerId": customer_id, "template": template, "trigger": trigger}
    return _new_request(
        actor=actor, kind=ApprovalKind.CREATE_RULE, summary=_rule_summary("Create", payload), payload=payload
    )


def approval_request_rule_change(
    *, actor, rule: AutomationRule, name: str, template: dict, trigger: dict
) -> ApprovalRequest:
    refuse_held_rule(
        actor=actor,
        template=template,
        trigger=trigger,
        action="automation_rule.update",
        target_kind="automation_rule",
        target_id=rule.rule_id,
    )
    payload = {"name": name, "customerId": rule.customer_upstream_id, "template": template, "trigger": trigger}
    return _new_request(
        actor=actor,
        kind=ApprovalKind.CHANGE_RULE,
        summary=_rule_summary("Change", payload),
        payload=payload,
        rule=rule,
        rule_upstream_id=rule.rule_id,
    )


# --- holding a payment account in the back-office (payments.services.holds) ----------------------


def accounts_waiting(accounts) -> dict[int, ApprovalRequest]:
    """The hold or release waiting for a checker of each of `accounts` that has one, by pk."""
    waiting = ApprovalRequest.objects.filter(
        account__in=accounts,
        kind__in=[ApprovalKind.ACCOUNT_HOLD, ApprovalKind.ACCOUNT_RELEASE],
        status=ApprovalStatus.PENDING,
        expires_at__gt=timezone.now(),
    ).select_related("maker")
    return {approval.account_id: approval for approval in waiting}


def account_waiting(account: PaymentAccount) -> ApprovalRequest | None:
    """The hold or release of `account` that waits for a checker."""
    return accounts_waiting([account]).get(account.pk)


def _account_request(
    *, actor, account: PaymentAccount, kind: str, reason: str, origin: dict | None, facts: list
) -> ApprovalRequest:
    """Ask for a hold or release of `account`. Under the account's row lock: of two asked at once
    (a double click, two admins) one is made, the other refused with the request that waits."""
    reason = reason.strip()
    if not reason:
        raise ApprovalRefused("Give a reason: the checker reads it, and the account's page shows it.")
    with transaction.atomic():
        # Its customer read after the lock, not joined to it (a locked row is re-read after a wait,
        # the rows joined to it are not).
        account = PaymentAccount.objects.select_for_update().get(pk=account.pk)
        if not account.account_id:
            raise ApprovalRefused("This account has no id yet (its hosted form is pending): nothing moves through it.")
        waiting = account_waiting(account)
        if waiting is not None:
            raise ApprovalRefused(
                f"A {waiting.get_kind_display().lower()} request of this account waits for approval already "
                f"(request {waiting.pk})."
            )
        if kind == ApprovalKind.ACCOUNT_HOLD and account.is_held:
            raise ApprovalRefused(f"{held_words(account)} already.")
        if kind == ApprovalKind.ACCOUNT_RELEASE and not account.is_held:
            raise ApprovalRefused("This account is not held.")
        owner = account.customer.name if account.customer else account.customer_upstream_id
        verb = "Hold" if kind == ApprovalKind.ACCOUNT_HOLD else "Release the hold of"
        links = [
            {
                "url": reverse("payments-view-payment-account", args=[account.pk]),
                "text": "The payment account",
                "permission": "view_payments",
            }
        ]
        payload = {
            "accountId": account.account_id,
            "reason": reason,
            "facts": [
                ["Account", account.display_name],
                ["Account id", account.account_id],
                ["Owner", owner or "—"],
                ["Reason", reason],
                *facts,
            ],
            "links": [*links, origin] if origin else links,
            "origin": origin,
        }
        return _new_request(
            actor=actor,
            kind=kind,
            summary=f"{verb} {account.display_name} of {owner} in the back-office: {reason}",
            payload=payload,
            account=account,
        )


def approval_request_account_hold(
    *, actor, account: PaymentAccount, reason: str, origin: dict | None = None, facts: list | None = None
) -> ApprovalRequest:
    """Ask a second person to hold `account` in the back-office (no quote, execute or automation
    rule from or to it while held: payments.services.holds). `origin` is where it was asked from ({"url", "text", "permission"}: a
    screening alert), shown with the request and on the held account; `facts` add to its words."""
    return _account_request(
        actor=actor, account=account, kind=ApprovalKind.ACCOUNT_HOLD, reason=reason, origin=origin, facts=facts or []
    )


def approval_request_account_release(*, actor, account: PaymentAccount, reason: str) -> ApprovalRequest:
    """Ask a second person to lift the hold of `account`."""
    return _account_request(
        actor=actor, account=account, kind=ApprovalKind.ACCOUNT_RELEASE, reason=reason, origin=None, facts=[]
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


def _sent_again(approval: ApprovalRequest, *, status: str, actor) -> bool:
    """Whether the request already holds this person's own decision `status` (a double click,
    a resend): it stands as decided, and nothing is done or audited again."""
    who = approval.maker_id if status == ApprovalStatus.WITHDRAWN else approval.checker_id
    return approval.status == status and who == actor.pk


def approval_reject(*, actor, approval: ApprovalRequest, reason: str) -> ApprovalRequest:
    _check_checker(actor, approval)
    decided = states.reject(approval, checker=actor, reason=reason)
    if not (decided or _sent_again(approval, status=ApprovalStatus.REJECTED, actor=actor)):
        raise ApprovalRefused(_why_not(approval))
    return approval


def approval_withdraw(*, actor, approval: ApprovalRequest) -> ApprovalRequest:
    if approval.maker_id != actor.pk:
        raise ApprovalRefused("Only the maker of a request may withdraw it.")
    decided = states.withdraw(approval, maker=actor)
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


def approval_approve(*, actor, approval: ApprovalRequest, note: str = "") -> ApprovalRequest:
    """Approve and carry out. Of approves sent at once (a double click, two checkers) one
    wins the decision and one request of its checker carries out the write
    (approval_writes.carry_out_once); the checker's other requests answer with its outcome.
    The checker whose approval was interrupted (the API's answer lost) may press again: the
    same write is sent under the same key and replays the first answer."""
    try:
        _check_checker(actor, approval)
    except ApprovalRefused as refused:
        if approval.maker_id == actor.pk:  # the maker's own approval: refused, and on the record
            audit_approval(
                actor=actor,
                action="approval.approve",
                approval=approval,
                details={"why": "maker"},
                outcome=states.AuditEvent.Outcome.DENIED,
            )
        raise refused
    states.approve(approval, checker=actor, note=note)
    if not (approval.status in APPROVED_BY_CHECKER and approval.checker_id == actor.pk):
        raise ApprovalRefused(_why_not(approval))
    carry_out_once(actor=actor, approval=approval)
    return approval


def approvals_expire() -> int:
    """Mark the pending requests past their expiry as expired, one audit event each."""
    past = ApprovalRequest.objects.filter(status=ApprovalStatus.PENDING, expires_at__lte=timezone.now())
    return sum(states.expire(ApprovalRequest(pk=pk)) for pk in past.values_list("pk", flat=True))
