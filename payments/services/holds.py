"""The back-office's own hold of a payment account.

The Payments API has no way to deactivate a payment account (its DEACTIVATED status cannot be
reached through it): that is the provider's to do. What the back-office can do is stop moving
money through the account itself. A hold, asked for with a reason and approved by a second
person (payments.services.approvals, kinds ACCOUNT_HOLD and ACCOUNT_RELEASE), marks the
mirrored account (PaymentAccount.held_at ...); while it stands, every quote and execute whose
source or destination is the account is refused before anything is sent, with the hold named
(and so is an automation rule asked for or approved with it: a rule moves money on its own).

One winner, decided in the database, between an execute and the approval of a hold:

- an execute takes its claim first (upstream.claims, `quote:<id>:execute`), then reads the
  accounts under their row locks (`refuse_held(lock=True)`, write_through's `Once.check`);
- the hold's write takes the account's row lock first, then looks for executes of the account
  in flight (their claims); with one in flight it does nothing and the request waits for its
  checker again (states.NotNow).

So an execute either was under way before the hold (and the hold waits for it to end) or sees
the hold and is refused; never an execute sent after the hold was set.
"""

import datetime as dt

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit.models import AuditEvent
from audit.records import audit_record
from upstream import claims

from ..models import ApprovalRequest, PaymentAccount, Quote
from ..terms import RuleTerms
from .approval_states import NotNow

# How much of a hold's reason a refusal quotes.
REASON_QUOTED = 200


class AccountHeld(Exception):
    """A quote, execute or automation rule from or to a held account: refused, nothing sent;
    the message names the hold (who, since when, why)."""


def held_words(account: PaymentAccount) -> str:
    """ "“Checking · …6789” is held in the back-office by ada since 2026-11-28 10:04 UTC (reason)"."""
    who = account.held_by.get_username() if account.held_by_id else "—"
    reason = (
        account.hold_reason if len(account.hold_reason) <= REASON_QUOTED else account.hold_reason[:REASON_QUOTED] + "…"
    )
    return (
        f"“{account.display_name}” is held in the back-office by {who} "
        f"since {account.held_at.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC ({reason})"
    )


def refuse_held(*, actor, moving, action: str, target_kind: str, target_id: str, lock: bool = False) -> None:
    """Raise AccountHeld when the source or destination account of `moving` (a quote, or a
    quote's or a rule's terms) is held, after a denied audit event of `action`. With `lock`, the
    accounts are read under their row locks (the decision an execute makes under its claim: a
    hold being set meanwhile is waited for and seen)."""
    ids = sorted({i for i in (moving.source_account_id, moving.destination_account_id) if i})
    if not ids:
        return
    rows = PaymentAccount.objects.filter(account_id__in=ids).order_by("pk")
    with transaction.atomic():
        # No join in the locking query: PostgreSQL re-reads a locked row after a wait, not the
        # rows joined to it (the holder is read after, for the message).
        held = [account for account in (rows.select_for_update() if lock else rows) if account.is_held]
    if not held:
        return
    audit_record(
        actor=actor,
        action=action,
        target_kind=target_kind,
        target_id=target_id,
        outcome=AuditEvent.Outcome.DENIED,
        details={"held": [account.account_id for account in held]},
    )
    raise AccountHeld(
        f"{'; '.join(held_words(account) for account in held)}: no quote, execute or automation rule of the "
        "back-office moves money from or to a held account. Nothing was sent."
    )


def refuse_held_execute(*, actor, quote: Quote, lock: bool = False) -> None:
    """refuse_held for the execute of `quote` (asked for approval, or sent: `lock`)."""
    refuse_held(
        actor=actor, moving=quote, action="quote.execute", target_kind="quote", target_id=quote.quote_id, lock=lock
    )


def refuse_held_rule(*, actor, template: dict, trigger: dict, action: str, target_kind: str, target_id: str) -> None:
    """refuse_held for an automation rule's accounts (its template and trigger as the API takes them)."""
    terms = RuleTerms.from_api(template, trigger)
    refuse_held(actor=actor, moving=terms, action=action, target_kind=target_kind, target_id=target_id)


def _executes_in_flight(account: PaymentAccount) -> list[str]:
    """The executes of quotes from or to `account` that a request is sending now."""
    recent = timezone.now() - claims.LEASE  # an execute in flight is of a quote alive at its start
    quote_ids = Quote.objects.filter(
        Q(source_account_id=account.account_id) | Q(destination_account_id=account.account_id),
        expires_at__gt=recent,
    ).values_list("quote_id", flat=True)
    return claims.in_flight(f"quote:{quote_id}:execute" for quote_id in quote_ids)


def _locked_account(approval: ApprovalRequest) -> PaymentAccount:
    return PaymentAccount.objects.select_for_update().get(pk=approval.account_id)


def _details(approval: ApprovalRequest, actor, account: PaymentAccount) -> dict:
    return {
        "paymentAccount": account.account_id,
        "approval": approval.pk,
        "maker": approval.maker.get_username(),
        "checker": actor.get_username(),
    }


def _save_hold(actor, account: PaymentAccount, action: str, details: dict) -> None:
    """The account's hold fields as set (or cleared) just now, saved and audited as `action`."""
    account.save(update_fields=["held_at", "held_by", "hold_reason", "hold_approval"])
    audit_record(
        actor=actor, action=action, target_kind="payment_account", target_id=account.account_id, details=details
    )


def account_hold_apply(*, actor, approval: ApprovalRequest) -> tuple[dict, dict]:
    """The write of an approved ACCOUNT_HOLD (registered with approval_writes): the account is
    held, in the request's move to executed, and audited once. Held already: nothing to do.
    An execute of the account in flight: NotNow, nothing done (see the module's docstring)."""
    account = _locked_account(approval)
    details = _details(approval, actor, account)
    if account.is_held:
        return details, {}
    if _executes_in_flight(account):
        raise NotNow(
            "A transfer from or to this account is being sent to the Payments API right now: the hold "
            "was not set. Approve again in a moment; the request waits for a checker again."
        )
    account.held_at, account.held_by = timezone.now(), approval.maker
    account.hold_reason, account.hold_approval = approval.payload["reason"], approval
    _save_hold(actor, account, "payment_account.hold", {**details, "reason": account.hold_reason})
    return details, {}


def account_release_apply(*, actor, approval: ApprovalRequest) -> tuple[dict, dict]:
    """The write of an approved ACCOUNT_RELEASE: the hold is lifted and audited once. Not held
    (released already): nothing to do."""
    account = _locked_account(approval)
    details = _details(approval, actor, account)
    if not account.is_held:
        return details, {}
    reason, held_since = approval.payload["reason"], account.held_at
    account.held_at, account.held_by, account.hold_reason, account.hold_approval = None, None, "", None
    _save_hold(
        actor, account, "payment_account.release", {**details, "reason": reason, "heldSince": held_since.isoformat()}
    )
    return details, {}
