"""Writes of API data into the payments mirror: the *_upsert functions are the only way in,
whether the data comes from a sync, a webhook or a staff action."""

from django.db import transaction
from django.utils import timezone

from customers.models import Customer
from paymentsapi import types as api
from upstream.mirrored import Source, announce_changes
from upstream.upsert import UpsertCounts, is_stale

from .models import AutomationRule, AutomationRuleChange, PaymentAccount, Transaction, TransactionStatusChange
from .terms import currency_label
from .usd import transaction_usd_value

_ACCOUNT_DETAIL_FIELDS = (
    "external_bank_account",
    "service_auto_fiat_account",
    "service_fiat_account",
    "external_crypto_wallet",
    "service_crypto_wallet",
)


def _dump(model) -> dict | None:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True) if model is not None else None


def _customer_pks(upstream_ids) -> dict[str, int]:
    return dict(Customer.objects.filter(customer_id__in=set(upstream_ids)).values_list("customer_id", "pk"))


def without_bank_numbers(item: api.PaymentAccount) -> api.PaymentAccount:
    """The mirror keeps the mask only: full bank numbers the API might echo are dropped."""
    bank = item.external_bank_account
    if bank is None or not (bank.bank_account_number or bank.bank_routing_number):
        return item
    clean = bank.model_copy(update={"bank_account_number": None, "bank_routing_number": None})
    return item.model_copy(update={"external_bank_account": clean})


def is_completed_form_of(pending: PaymentAccount, *, account_type: str, nickname: str, details: dict) -> bool:
    """Whether an account could be what a pending hosted bank form became.

    The API drops the form link when the form is completed and gives the account a new id;
    the same customer's bank account with the same nickname and routing method is the best
    match there is. Callers accept it only when exactly one account matches.
    """
    method = (pending.details or {}).get("bankAccountPaymentMethod")
    return (
        account_type == "EXTERNAL_BANK_ACCOUNT"
        and nickname == pending.nickname
        and (not method or (details or {}).get("bankAccountPaymentMethod") in (None, method))
    )


@transaction.atomic
def payment_accounts_merge_completed_forms(*, not_seen_since) -> int:
    """After a complete sync: a pending row the sync no longer saw takes the id of the one
    new bank account of its customer that the sync found (the form was completed)."""
    merged = 0
    pending_rows = PaymentAccount.objects.filter(account_id__isnull=True, synced_at__lt=not_seen_since)
    for pending in pending_rows.exclude(form_link__isnull=True):
        candidates = [
            row
            for row in PaymentAccount.objects.filter(
                customer_upstream_id=pending.customer_upstream_id,
                account_id__isnull=False,
                first_seen_at__gte=not_seen_since,
            )
            if is_completed_form_of(pending, account_type=row.account_type, nickname=row.nickname, details=row.details)
        ]
        if len(candidates) != 1:
            continue
        (new,) = candidates
        fields = ["account_id", "status", "details", "created_upstream_at", "synced_at", "upstream_updated_at"]
        if new.is_held:  # held since the sync saw it: the hold moves with the id
            fields += ["held_at", "held_by", "hold_reason", "hold_approval"]
        values = {f: getattr(new, f) for f in fields}
        new.approvals.update(account=pending)
        new.delete()
        for f, v in values.items():
            setattr(pending, f, v)
        pending.save(update_fields=fields)
        merged += 1
    return merged


def _completed_form_row(item: api.PaymentAccount) -> PaymentAccount | None:
    """The pending row whose hosted form became `item`, when exactly one of its customer's
    pending bank accounts could be it (see is_completed_form_of); else None."""
    pending = PaymentAccount.objects.filter(
        customer_upstream_id=item.customer_id, account_id__isnull=True, form_link__isnull=False
    )
    details = _dump(item.external_bank_account) or {}
    candidates = [
        row
        for row in pending
        if is_completed_form_of(
            row, account_type=str(item.payment_account_type), nickname=item.nickname or "", details=details
        )
    ]
    return candidates[0] if len(candidates) == 1 else None


@transaction.atomic
def payment_accounts_upsert(*, items: list[api.PaymentAccount], seen_by: Source) -> UpsertCounts:
    """Upsert accounts. A pending bank account (empty id) is keyed by its form link; when an
    account with an id arrives for a link we hold, that row takes the id (the form completed).
    A webhook's account names its new id only: an id the mirror does not know takes the row
    of the one pending form it can be (a sync leaves that to payment_accounts_merge_completed_forms,
    which sees whether the form is still pending upstream)."""
    now = timezone.now()
    counts = UpsertCounts()
    items = [without_bank_numbers(a) for a in items]
    customers = _customer_pks(a.customer_id for a in items if a.customer_id)
    ids = [a.payment_account_id for a in items if a.payment_account_id]
    links = [a.bank_account_form_link for a in items if a.bank_account_form_link]
    by_id = {a.account_id: a for a in PaymentAccount.objects.filter(account_id__in=ids)}
    by_link = {a.form_link: a for a in PaymentAccount.objects.filter(form_link__in=links)}
    touched = []
    for item in items:
        row = by_id.get(item.payment_account_id) if item.payment_account_id else None
        if row is None and item.bank_account_form_link:
            row = by_link.get(item.bank_account_form_link)
        if row is None and seen_by == Source.WEBHOOK and item.payment_account_id:
            row = _completed_form_row(item)
        details = next((_dump(getattr(item, f)) for f in _ACCOUNT_DETAIL_FIELDS if getattr(item, f)), {})
        values = {
            "account_id": item.payment_account_id or None,
            "form_link": item.bank_account_form_link or (row.form_link if row else None),
            "customer_id": customers.get(item.customer_id),
            "customer_upstream_id": item.customer_id or "",
            "account_type": str(item.payment_account_type),
            "status": str(item.payment_account_status or ""),
            "nickname": item.nickname or "",
            "is_third_party": item.is_third_party,
            "details": details or {},
            "created_upstream_at": item.created_at,
        }
        if row is None:
            touched.append(PaymentAccount.objects.create(synced_at=now, **values).pk)
            counts.created += 1
            continue
        changed = any(getattr(row, f) != v for f, v in values.items())
        for f, v in values.items():
            setattr(row, f, v)
        row.synced_at, row.missing_upstream, row.missing_since = now, False, None
        # The API's fields only: a hold set meanwhile (the back-office's own) is never written over.
        row.save(update_fields=[*values, "synced_at", "missing_upstream", "missing_since"])
        if changed:
            touched.append(row.pk)
        counts.updated += changed
        counts.unchanged += not changed
    announce_changes(PaymentAccount, touched, seen_by)
    return counts


def payment_accounts_mark_missing(*, not_seen_since) -> int:
    return PaymentAccount.objects.filter(missing_upstream=False, synced_at__lt=not_seen_since).update(
        missing_upstream=True, missing_since=timezone.now()
    )


def _transaction_values(item: api.Transaction, customers: dict) -> dict:
    source = item.source or api.TransactionSource()
    destination = item.destination or api.TransactionDestination()
    return {
        "quote_id": item.quote_id or "",
        "customer_id": customers.get(item.customer_id),
        "customer_upstream_id": item.customer_id or "",
        "status": str(item.transaction_status),
        "source_account_id": source.source_payment_account_id or "",
        "source_payment_method": source.source_payment_method or "",
        "source_currency": currency_label(source.source_currency),
        "source_amount": source.source_amount,
        "source_reference_id": source.source_reference_id or "",
        "destination_account_id": destination.destination_payment_account_id or "",
        "destination_payment_method": destination.destination_payment_method or "",
        "destination_currency": currency_label(destination.destination_currency),
        "destination_amount": destination.destination_amount,
        "destination_reference_id": destination.destination_reference_id or "",
        "exchange_rate": destination.exchange_rate,
        "fees": _dump(item.fees) or {},
        "correlation_id": item.correlation_id or "",
        "transfer_instructions": _dump(item.transfer_instructions),
        "expires_at": item.expires_at,
        "created_upstream_at": item.created_at or timezone.now(),
        "upstream_updated_at": item.updated_at,
        "usd_value": transaction_usd_value(
            source_amount=source.source_amount,
            source_currency=currency_label(source.source_currency),
            destination_amount=destination.destination_amount,
            destination_currency=currency_label(destination.destination_currency),
        ),
    }


@transaction.atomic
def transactions_upsert(*, items: list[api.Transaction], seen_by: Source) -> UpsertCounts:
    """Upsert transactions and record their status changes; older copies are skipped."""
    now = timezone.now()
    counts = UpsertCounts()
    customers = _customer_pks(t.customer_id for t in items if t.customer_id)
    ids = [i.transaction_id for i in items]
    # Two workers may meet a new transaction at once (its webhook and a refresh): an empty row
    # is made first, ignoring conflicts, so both then lock the same row and the second one
    # updates what the first wrote instead of failing on the unique id.
    Transaction.objects.bulk_create(
        [
            Transaction(transaction_id=i, status="", status_since=now, created_upstream_at=now, customer_upstream_id="")
            for i in ids
        ],
        ignore_conflicts=True,
    )
    existing = {t.transaction_id: t for t in Transaction.objects.select_for_update().filter(transaction_id__in=ids)}
    touched = []
    for item in items:
        row = existing[item.transaction_id]
        if is_stale(item.updated_at, row.upstream_updated_at):
            counts.unchanged += 1
            continue
        values = _transaction_values(item, customers)
        old_status = row.status
        changed = not old_status or any(getattr(row, f) != v for f, v in values.items())
        if not old_status:
            counts.created += 1
        else:
            counts.updated += changed
            counts.unchanged += not changed
        for f, v in values.items():
            setattr(row, f, v)
        if old_status != row.status:
            row.status_since = now
        row.synced_at, row.missing_upstream, row.missing_since = now, False, None
        if changed:
            touched.append(row.pk)
            # This change's own mark, taken under the row lock: monitoring clears exactly it.
            row.evaluation_due_at = timezone.now()
        row.save()
        if old_status != row.status:
            counts.changed_ids.append(row.transaction_id)
            TransactionStatusChange.objects.create(
                transaction=row,
                old_status=old_status,
                new_status=row.status,
                changed_at=item.updated_at or now,
                seen_by=seen_by,
            )
    announce_changes(Transaction, touched, seen_by)
    return counts


# The fields of a rule whose changes make its history.
_RULE_TRACKED = ("name", "transaction_template", "trigger")


@transaction.atomic
def automation_rules_upsert(*, items: list[api.AutomationRule], seen_by: Source = Source.STAFF) -> UpsertCounts:
    """Upsert rules and record each creation and change of name, template or trigger (the
    API gives rules no updatedAt: what it answers now is what the rule is)."""
    now = timezone.now()
    counts = UpsertCounts()
    customers = _customer_pks(r.customer_id for r in items if r.customer_id)
    existing = {
        r.rule_id: r for r in AutomationRule.objects.select_for_update().filter(rule_id__in=[i.id for i in items])
    }
    changes = []
    for item in items:
        template = _dump(item.transaction_template) or {}
        values = {
            "customer_id": customers.get(item.customer_id),
            "customer_upstream_id": item.customer_id or "",
            "name": item.name or "",
            "source_account_id": template.get("source", {}).get("sourcePaymentAccountId", ""),
            "transaction_template": template,
            "trigger": _dump(item.trigger) or {},
            "created_upstream_at": item.created_at,
        }
        row = existing.get(item.id)
        if row is None:
            row = AutomationRule.objects.create(rule_id=item.id, synced_at=now, **values)
            changes.append(AutomationRuleChange(rule=row, fields=["created"], after=_tracked(row), seen_by=seen_by))
            counts.created += 1
            continue
        before = _tracked(row)
        returned = row.missing_upstream
        changed = returned or any(getattr(row, f) != v for f, v in values.items())
        for f, v in values.items():
            setattr(row, f, v)
        row.synced_at, row.missing_upstream, row.missing_since = now, False, None
        row.save()
        moved = [f for f in _RULE_TRACKED if before[f] != getattr(row, f)] + (["returned"] if returned else [])
        if moved:
            changes.append(
                AutomationRuleChange(rule=row, fields=moved, before=before, after=_tracked(row), seen_by=seen_by)
            )
        counts.updated += changed
        counts.unchanged += not changed
    AutomationRuleChange.objects.bulk_create(changes)
    return counts


def _tracked(rule: AutomationRule) -> dict:
    return {f: getattr(rule, f) for f in _RULE_TRACKED}


@transaction.atomic
def automation_rules_mark_missing(*, not_seen_since) -> int:
    """After a complete sync: the rules it did not see vanished upstream (kept, marked)."""
    gone = list(AutomationRule.objects.filter(missing_upstream=False, synced_at__lt=not_seen_since))
    AutomationRule.objects.filter(pk__in=[r.pk for r in gone]).update(
        missing_upstream=True, missing_since=timezone.now()
    )
    AutomationRuleChange.objects.bulk_create(
        AutomationRuleChange(rule=r, fields=["vanished"], before=_tracked(r), seen_by=Source.SYNC) for r in gone
    )
    return len(gone)
