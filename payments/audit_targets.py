"""The audit log names quotes, transactions, rules, approval requests and accounts by a short
description, linking to their pages."""

from django.db.models import Q
from django.urls import reverse

from audit.targets import Target, int_ids

from .models import ApprovalRequest, AutomationRule, PaymentAccount, Quote, Transaction
from .templatetags.tx_display import amount


def _movement(source_amount, source_currency, destination_currency) -> str:
    """ "1,000.00 USD → USDC"-like words for a quote or a transfer (no amount when unknown)."""
    sent = f"{amount(source_amount)} {source_currency}".strip()
    return f"{sent} → {destination_currency}" if destination_currency else sent


TERMS = ("source_amount", "source_currency", "destination_currency")


def _terms(row: dict) -> tuple:
    return tuple(row[name] for name in TERMS)


def quote_rows(ids: set[str]):
    return Quote.objects.filter(quote_id__in=ids).values("quote_id", *TERMS)


def name_quotes(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    return {
        row["quote_id"]: Target(
            f"Quote of {_movement(*_terms(row))}", reverse("payments-view-quote", args=[row["quote_id"]])
        )
        for row in rows
    }


def transaction_rows(ids: set[str]):
    return Transaction.objects.filter(transaction_id__in=ids).values("transaction_id", *TERMS)


def name_transactions(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    return {
        row["transaction_id"]: Target(
            f"Transfer of {_movement(*_terms(row))}" if row["source_currency"] else "Transfer",
            reverse("payments-view-transaction", args=[row["transaction_id"]]),
        )
        for row in rows
    }


def rule_rows(ids: set[str]):
    return AutomationRule.objects.filter(rule_id__in=ids).values("rule_id", "pk", "name")


def name_rules(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    return {
        row["rule_id"]: Target(f"Rule “{row['name']}”", reverse("payments-view-automation-rule", args=[row["pk"]]))
        for row in rows
    }


def approval_rows(ids: set[str]):
    return ApprovalRequest.objects.filter(pk__in=int_ids(ids)).values("pk", "summary")


def name_approvals(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    return {
        str(row["pk"]): Target(
            row["summary"] or "Approval request", reverse("payments-view-approval-request", args=[row["pk"]])
        )
        for row in rows
    }


ACCOUNT_NAME_FIELDS = ("pk", "account_id", "nickname", "account_type", "details")


def account_rows(ids: set[str]):
    # An account the API has not numbered yet is named by its row ("pending:12").
    pending = int_ids(i.removeprefix("pending:") for i in ids if i.startswith("pending:"))
    return PaymentAccount.objects.filter(Q(account_id__in=ids) | Q(pk__in=pending)).values(*ACCOUNT_NAME_FIELDS)


def name_accounts(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    names = {}
    for row in rows:
        account = PaymentAccount(id=row["pk"], **{name: row[name] for name in ACCOUNT_NAME_FIELDS[1:]})
        target = Target(account.display_name, reverse("payments-view-payment-account", args=[account.pk]))
        names[account.account_id or f"pending:{account.pk}"] = target
        names[f"pending:{account.pk}"] = target
    return names
