"""Reads of the transactions workspace: what a quote may combine, list filters, stuck rules."""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Case, CharField, F, Max, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from audit.models import AuditEvent
from core import labels
from core.exports import Column, with_words
from core.live import CompiledQuery, version_of
from core.together import fetch_together
from customers.models import Customer

from .models import (
    ApprovalRequest,
    AutomationRule,
    PaymentAccount,
    PaymentAccountStatus,
    Transaction,
    TransactionStatus,
)
from .rails import CHAIN_TOKENS, CHAINS, RAIL_CURRENCY
from .terms import currency_label


@dataclass(frozen=True)
class AccountOptions:
    """What a quote may use with one account: its payment methods and currencies."""

    methods: list[str]
    currencies: list[str]
    is_crypto: bool


def account_options(account: PaymentAccount) -> AccountOptions:
    """The methods and currencies the API accepts for this account (sandbox-payments.md, Quotes)."""
    details = account.details or {}
    kind = account.account_type
    if kind == "EXTERNAL_BANK_ACCOUNT":
        method = details.get("bankAccountPaymentMethod") or "ACH"
        return AccountOptions([method], [currency_label(details.get("bankAccountCurrency")) or "USD"], False)
    if kind in ("EXTERNAL_CRYPTO_WALLET", "SERVICE_CRYPTO_WALLET"):
        chain = (details.get("address") or {}).get("chain") or details.get("chain") or ""
        if kind == "EXTERNAL_CRYPTO_WALLET":
            currencies = [currency_label(details.get("currency"))]
        else:
            currencies = CHAIN_TOKENS.get(chain, [])
        return AccountOptions([chain] if chain else [], [c for c in currencies if c], True)
    currency = currency_label(details.get("currency"))
    methods = details.get("supportedPaymentMethods") or [r for r, c in RAIL_CURRENCY.items() if c == currency]
    return AccountOptions(list(methods), [currency] if currency else [], False)


def accounts_by_id(*ids: str) -> dict[str, PaymentAccount]:
    """The mirrored accounts of these upstream ids, in one query (for names on a page)."""
    wanted = {i for i in ids if i}
    if not wanted:
        return {}
    return {a.account_id: a for a in PaymentAccount.objects.filter(account_id__in=wanted)}


def account_names(*ids: str) -> dict[str, str]:
    """The display names of these accounts by upstream id, in one query (account_name reads one)."""
    return {account_id: account.display_name for account_id, account in accounts_by_id(*ids).items()}


def account_name(names: dict[str, str], account_id: str) -> str:
    """An account's name from account_names; its id when the mirror does not hold it."""
    return names.get(account_id) or f"account {account_id}"


RULE_CORRELATION_PREFIX = "automation-rule:"


def rule_of_transaction(tx: Transaction) -> AutomationRule | None:
    """The mirrored rule that made a transaction (its correlation id names the rule)."""
    if not tx.correlation_id.startswith(RULE_CORRELATION_PREFIX):
        return None
    rule_id = tx.correlation_id.removeprefix(RULE_CORRELATION_PREFIX)
    return AutomationRule.objects.filter(rule_id=rule_id).first()


def direction_of(source_payment_method: str) -> str:
    """The API infers the kind from the methods: a fiat source is an onramp, a chain an offramp."""
    if not source_payment_method:
        return ""
    return "Offramp" if source_payment_method in CHAINS else "Onramp"


def quote_accounts(*, customer: Customer) -> tuple[list[PaymentAccount], list[PaymentAccount]]:
    """(sources, destinations): the customer's own ACTIVE accounts; destinations also the
    third-party accounts of the customer's organization (a payout to someone else)."""
    usable = PaymentAccount.objects.filter(
        status=PaymentAccountStatus.ACTIVE, account_id__isnull=False, missing_upstream=False
    ).order_by("nickname", "id")
    own = list(usable.filter(customer=customer))
    third_parties = usable.filter(is_third_party=True, customer__organization_id=customer.organization_id).exclude(
        customer=customer
    )
    sources = [a for a in own if not a.is_third_party]
    return sources, own + list(third_parties)


# --- The transactions list ----------------------------------------------------------------------


def transactions_listed() -> QuerySet[Transaction]:
    """The rows of the list pages, with what they show and no more."""
    return (
        Transaction.objects.select_related("customer")
        .only(
            "transaction_id",
            "status",
            "status_since",
            "source_payment_method",
            "source_currency",
            "source_amount",
            "destination_payment_method",
            "destination_currency",
            "destination_amount",
            "correlation_id",
            "expires_at",
            "created_upstream_at",
            "customer__name",
            "customer__email",
            "customer__customer_id",
        )
        .annotate(
            direction=Case(
                When(source_payment_method__in=CHAINS, then=Value("Offramp")),
                When(source_payment_method="", then=Value("")),
                default=Value("Onramp"),
                output_field=CharField(),
            )
        )
    )


EXPORT_COLUMNS = [
    Column("transaction_id", "transactionId"),
    *with_words("status", "status", labels.STATUS),
    Column("customer_upstream_id", "customerId"),
    Column("quote_id", "quoteId"),
    *with_words("source_payment_method", "sourcePaymentMethod", labels.METHOD),
    Column("source_currency", "sourceCurrency"),
    Column("source_amount", "sourceAmount"),
    *with_words("destination_payment_method", "destinationPaymentMethod", labels.METHOD),
    Column("destination_currency", "destinationCurrency"),
    Column("destination_amount", "destinationAmount"),
    Column("exchange_rate", "exchangeRate"),
    Column("correlation_id", "correlationId"),
    Column("created_upstream_at", "createdAt"),
    Column("status_since", "statusSince"),
]


ACCOUNT_EXPORT_COLUMNS = [
    Column("account_id", "accountId"),
    Column("customer_upstream_id", "customerId"),
    Column("customer__name", "customerName"),
    *with_words("account_type", "type", labels.ACCOUNT_TYPE),
    *with_words("status", "status", labels.STATUS),
    Column("nickname", "nickname"),
    Column("is_third_party", "isThirdParty"),
    Column("created_upstream_at", "createdAt"),
    Column("synced_at", "syncedAt"),
    Column("missing_upstream", "missingUpstream"),
]


# --- Stuck work ---------------------------------------------------------------------------------


class StuckRule:
    AWAITING_EXPIRED = "awaiting-expired"
    PROCESSING_LONG = "processing-long"
    CREATED_LONG = "created-long"


STUCK_RULE_LABELS = {
    StuckRule.AWAITING_EXPIRED: "Awaiting transfer past expiry",
    StuckRule.PROCESSING_LONG: "Processing too long",
    StuckRule.CREATED_LONG: "Created too long",
}


def transactions_stuck(
    *, rule: str, processing_hours: int | None = None, created_minutes: int | None = None, now=None
) -> tuple[QuerySet[Transaction], tuple[str, ...]]:
    """The transactions one stuck rule selects, and the keyset ordering (oldest first) that
    follows its index: (status, expires_at) or (status, status_since)."""
    now = now or timezone.now()
    rows = transactions_listed()
    if rule == StuckRule.PROCESSING_LONG:
        hours = processing_hours if processing_hours is not None else settings.STUCK_PROCESSING_HOURS
        since = now - dt.timedelta(hours=hours)
        return rows.filter(status=TransactionStatus.PROCESSING, status_since__lt=since), ("status_since", "id")
    if rule == StuckRule.CREATED_LONG:
        minutes = created_minutes if created_minutes is not None else settings.STUCK_CREATED_MINUTES
        since = now - dt.timedelta(minutes=minutes)
        return rows.filter(status=TransactionStatus.CREATED, status_since__lt=since), ("status_since", "id")
    return rows.filter(status=TransactionStatus.AWAITING_TRANSFER, expires_at__lt=now), ("expires_at", "id")


_TRANSACTION_VERSION = CompiledQuery(
    lambda transaction_id: Transaction.objects.filter(transaction_id=transaction_id).values_list(
        "synced_at", "upstream_updated_at", "status", "missing_upstream"
    )[:1],
    arity=1,
)


def transaction_version(transaction_id: str) -> str:
    """The transaction page changes only when a webhook, refresh or sync stamps `synced_at`."""
    return version_of(_TRANSACTION_VERSION.first_row(transaction_id))


def stuck_version() -> str:
    """What a stuck view's rows follow: the newest upstream change of any transaction, one
    probe of the `tx_upstream_updated` index however many rows the rule holds.

    A transaction enters or leaves a rule's rows through a change of its own (a new status),
    which moves this stamp; so does a change to any other transaction, which only costs an
    answer that was not needed. Counting the rule's rows instead read all of them on every
    poll (docs/benchmarks.md, "Where the figures in the code went"). A row that becomes stuck by time alone (its expiry
    passing) shows on the next change or reload.
    """
    newest = Transaction.objects.aggregate(newest=Max("upstream_updated_at"))["newest"]
    return version_of(newest)


SECTION_ROWS = 20


def customer_section_lists(pk, key="") -> dict[str, QuerySet]:
    """The customer page's section lists (payments.templatetags.payments_sections) of the
    customer whose primary key is `pk` (a value, or a reference to one in a query): the newest
    SECTION_ROWS of each, in the order of its (customer, ...) index."""
    return {
        "accounts": PaymentAccount.objects.filter(customer_id=pk).order_by("-first_seen_at", "-id")[:SECTION_ROWS],
        "transactions": Transaction.objects.filter(customer_id=pk).order_by("-created_upstream_at", "-id")[
            :SECTION_ROWS
        ],
        "rules": AutomationRule.objects.filter(customer_id=pk).order_by("-id")[:SECTION_ROWS],
    }


def customer_section_version() -> dict:
    """The section's columns of the customer page's version: of each list, the newest stamp
    among the rows shown. Every upsert (webhook, sync, refresh, staff write) stamps a row's
    `synced_at`, a sync that no longer sees it its `missing_since`; a new row comes in with a
    new stamp."""
    columns = {}
    for name, shown in customer_section_lists(OuterRef(OuterRef("pk"))).items():
        stamps = shown.model.objects.filter(pk__in=shown.values("pk")).annotate(
            stamp=Coalesce("missing_since", "synced_at")
        )
        newest = stamps.order_by(F("stamp").desc(nulls_last=True)).values("stamp")[:1]
        columns[f"payments_{name}"] = Subquery(newest)
    return columns


def transaction_page_lists(tx: Transaction) -> dict:
    """What the transaction page shows around the row, in one query (core.together): the
    accounts by name, the rule that made it, its history, and who moved the money (the maker
    and checker of its approved request, else the executor the audit log records)."""
    from django.contrib.auth import get_user_model

    approvals = ApprovalRequest.objects.filter(transaction_id=tx.transaction_id).order_by("id")[:1]
    rule_id = tx.correlation_id.removeprefix(RULE_CORRELATION_PREFIX)
    has_rule = tx.correlation_id.startswith(RULE_CORRELATION_PREFIX)
    accounts, rules, history, found, people, events = fetch_together(
        PaymentAccount.objects.filter(
            account_id__in={i for i in (tx.source_account_id, tx.destination_account_id) if i}
        ),
        AutomationRule.objects.filter(rule_id=rule_id if has_rule else None).order_by("id")[:1],
        tx.status_changes.order_by("-changed_at", "-id"),
        approvals,
        get_user_model().objects.filter(
            Q(pk__in=approvals.values("maker_id")) | Q(pk__in=approvals.values("checker_id"))
        ),
        AuditEvent.objects.filter(
            action="quote.execute",
            target_kind="transaction",
            target_id=tx.transaction_id,
            outcome=AuditEvent.Outcome.SUCCESS,
        ).order_by("-created_at", "-id")[:1],
    )
    lists = {"accounts": {a.account_id: a for a in accounts}, "rule": rules[0] if rules else None, "history": history}
    if found:
        approval, by_pk = found[0], {user.pk: user for user in people}
        for name in ("maker", "checker"):
            if getattr(approval, f"{name}_id") in by_pk:
                setattr(approval, name, by_pk[getattr(approval, f"{name}_id")])
        return {**lists, "approval": approval}
    return {**lists, "executor": events[0].actor_username if events else ""}
