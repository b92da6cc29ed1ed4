"""The audit log names quotes, transactions, rules, approval requests and accounts by a short
description, linking to their pages."""

from django.urls import reverse

from audit.targets import Target, int_ids

from .models import ApprovalRequest, AutomationRule, PaymentAccount, Quote, Transaction
from .templatetags.tx_display import amount


def _movement(source_amount, source_currency, destination_currency) -> str:
    """ "1,000.00 USD → USDC"-like words for a quote or a transfer (no amount when unknown)."""
    sent = f"{amount(source_amount)} {source_currency}".strip()
    return f"{sent} → {destination_currency}" if destination_currency else sent


def name_quotes(ids: set[str]) -> dict[str, Target]:
    rows = Quote.objects.filter(quote_id__in=ids).values_list(
        "quote_id", "source_amount", "source_currency", "destination_currency"
    )
    return {
        quote_id: Target(f"Quote of {_movement(*terms)}", reverse("payments-view-quote", args=[quote_id]))
        for quote_id, *terms in rows
    }


def name_transactions(ids: set[str]) -> dict[str, Target]:
    rows = Transaction.objects.filter(transaction_id__in=ids).values_list(
        "transaction_id", "source_amount", "source_currency", "destination_currency"
    )
    return {
        tx_id: Target(
            f"Transfer of {_movement(*terms)}" if terms[1] else "Transfer",
            reverse("payments-view-transaction", args=[tx_id]),
        )
        for tx_id, *terms in rows
    }


def name_rules(ids: set[str]) -> dict[str, Target]:
    rows = AutomationRule.objects.filter(rule_id__in=ids).values_list("rule_id", "pk", "name")
    return {
        rule_id: Target(f"Rule “{name}”", reverse("payments-view-automation-rule", args=[pk]))
        for rule_id, pk, name in rows
    }


def name_approvals(ids: set[str]) -> dict[str, Target]:
    rows = ApprovalRequest.objects.filter(pk__in=int_ids(ids)).values_list("pk", "summary")
    return {
        str(pk): Target(summary or "Approval request", reverse("payments-view-approval-request", args=[pk]))
        for pk, summary in rows
    }


def name_accounts(ids: set[str]) -> dict[str, Target]:
    # An account the API has not numbered yet is named by its row ("pending:12").
    pending = int_ids(i.removeprefix("pending:") for i in ids if i.startswith("pending:"))
    accounts = PaymentAccount.objects.filter(account_id__in=ids) | PaymentAccount.objects.filter(pk__in=pending)
    names = {}
    for account in accounts.only("pk", "account_id", "nickname", "account_type", "details"):
        target = Target(account.display_name, reverse("payments-view-payment-account", args=[account.pk]))
        names[account.account_id or f"pending:{account.pk}"] = target
        names[f"pending:{account.pk}"] = target
    return names
