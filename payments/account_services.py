"""Staff writes of payment accounts and automation rules.

Each one calls the API first. On success the answer enters the mirror (through the upserts of
payments.services) and an audit event is written, in one database transaction. On an API
error nothing local changes except a failure audit event, and the error is raised again for
the view to show.
"""

from django.db import transaction

from core.audit import audit_record
from core.models import AuditEvent
from core.upstream import get_client
from paymentsapi import PaymentsApiError
from paymentsapi import types as api

from .models import AutomationRule, PaymentAccount
from .services import automation_rules_upsert, is_completed_form_of, payment_accounts_upsert

# paymentAccountType -> the client's keyword for its request object.
DETAIL_ARGUMENT = {
    "EXTERNAL_BANK_ACCOUNT": "external_bank_account",
    "EXTERNAL_CRYPTO_WALLET": "external_crypto_wallet",
    "SERVICE_CRYPTO_WALLET": "service_crypto_wallet",
    "SERVICE_AUTO_FIAT_ACCOUNT": "service_auto_fiat_account",
}


def _audit_failure(*, actor, action: str, target_kind: str, target_id: str, error: PaymentsApiError) -> None:
    audit_record(
        actor=actor,
        action=action,
        target_kind=target_kind,
        target_id=target_id,
        outcome=AuditEvent.Outcome.FAILURE,
        details={"error": error.code or type(error).__name__},
    )


def _mirror_row(item: api.PaymentAccount) -> PaymentAccount:
    if item.payment_account_id:
        return PaymentAccount.objects.get(account_id=item.payment_account_id)
    return PaymentAccount.objects.get(form_link=item.bank_account_form_link)


def payment_account_create(
    *, actor, account_type: str, customer_id: str, nickname: str, is_third_party: bool | None, details: dict
) -> PaymentAccount:
    """Create an account of `account_type` with its request object `details` (API names).

    A bank account without numbers comes back PENDING with its hosted form link, and is
    mirrored under that link until the form completes.
    """
    try:
        item = get_client().payment_accounts.create(
            customer_id=customer_id,
            payment_account_type=account_type,
            nickname=nickname or None,
            is_third_party=is_third_party,
            **{DETAIL_ARGUMENT[account_type]: details},
        )
    except PaymentsApiError as error:
        _audit_failure(
            actor=actor, action="payment_account.create", target_kind="customer", target_id=customer_id, error=error
        )
        raise
    with transaction.atomic():
        payment_accounts_upsert(items=[item])
        row = _mirror_row(item)
        audit_record(
            actor=actor,
            action="payment_account.create",
            target_kind="payment_account",
            target_id=row.account_id or f"pending:{row.pk}",
            details={"type": account_type, "status": row.status},
        )
    return row


def _completed_form_account(row: PaymentAccount, items: list[api.PaymentAccount]) -> api.PaymentAccount | None:
    """The account a completed hosted form became, among the customer's accounts: the one
    the mirror does not know yet that matches (see is_completed_form_of); else None, and the
    full sync settles it."""
    known = set(PaymentAccount.objects.filter(account_id__isnull=False).values_list("account_id", flat=True))
    candidates = [
        item
        for item in items
        if item.payment_account_id
        and item.payment_account_id not in known
        and is_completed_form_of(
            row,
            account_type=str(item.payment_account_type),
            nickname=item.nickname or "",
            details=item.external_bank_account.model_dump(by_alias=True) if item.external_bank_account else {},
        )
    ]
    return candidates[0] if len(candidates) == 1 else None


def payment_account_refresh(*, actor, account: PaymentAccount) -> tuple[PaymentAccount, str]:
    """Re-read one account from the API into the mirror; -> (the row, what happened)."""
    client = get_client()
    try:
        if account.account_id:
            item = client.payment_accounts.get(payment_account_id=account.account_id)
        else:
            # A pending account has no id to read: find it (or what it became) in its customer's list.
            items = list(client.payment_accounts.iter(customer_id=account.customer_upstream_id))
            item = next((i for i in items if i.bank_account_form_link == account.form_link), None)
            if item is None:
                item = _completed_form_account(account, items)
                if item is None:
                    return (
                        account,
                        "The hosted form is no longer pending, and its account could not be told apart: the next sync will settle it.",
                    )
                # Carry our link so that the upsert gives this row the new id.
                item = item.model_copy(update={"bank_account_form_link": account.form_link})
    except PaymentsApiError as error:
        _audit_failure(
            actor=actor,
            action="payment_account.refresh",
            target_kind="payment_account",
            target_id=account.account_id or f"pending:{account.pk}",
            error=error,
        )
        raise
    old_status = account.status
    with transaction.atomic():
        payment_accounts_upsert(items=[item])
        account.refresh_from_db()
        audit_record(
            actor=actor,
            action="payment_account.refresh",
            target_kind="payment_account",
            target_id=account.account_id or f"pending:{account.pk}",
            details={"status": account.status},
        )
    if old_status != account.status:
        return account, f"Refreshed: the account is now {account.status.lower()}."
    return account, f"Refreshed: the account is still {account.status.lower()}."


def automation_rule_create(*, actor, name: str, customer_id: str, template: dict, trigger: dict) -> AutomationRule:
    try:
        item = get_client().automation_rules.create(
            name=name, customer_id=customer_id, transaction_template=template, trigger=trigger
        )
    except PaymentsApiError as error:
        _audit_failure(
            actor=actor, action="automation_rule.create", target_kind="customer", target_id=customer_id, error=error
        )
        raise
    with transaction.atomic():
        automation_rules_upsert(items=[item])
        audit_record(
            actor=actor,
            action="automation_rule.create",
            target_kind="automation_rule",
            target_id=item.id,
            details={"trigger": "cron" if "cronSchedule" in trigger else "threshold"},
        )
    return AutomationRule.objects.get(rule_id=item.id)


def automation_rule_update(*, actor, rule: AutomationRule, name: str, template: dict, trigger: dict) -> AutomationRule:
    """PUT the whole rule (name, template, trigger); its customer cannot change."""
    try:
        item = get_client().automation_rules.update(
            rule_id=rule.rule_id,
            name=name,
            customer_id=rule.customer_upstream_id,
            transaction_template=template,
            trigger=trigger,
        )
    except PaymentsApiError as error:
        _audit_failure(
            actor=actor,
            action="automation_rule.update",
            target_kind="automation_rule",
            target_id=rule.rule_id,
            error=error,
        )
        raise
    with transaction.atomic():
        automation_rules_upsert(items=[item])
        audit_record(
            actor=actor,
            action="automation_rule.update",
            target_kind="automation_rule",
            target_id=rule.rule_id,
            details={"trigger": "cron" if "cronSchedule" in trigger else "threshold"},
        )
    rule.refresh_from_db()
    return rule
