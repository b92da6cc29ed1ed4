"""The balance ledger: what a payment account holds per chain and currency, and the money that
arrives on it or leaves it."""

from decimal import Decimal

from django.db import transaction
from django.db.models import F

from .. import signals
from ..errors import bad_request, detail, validation_error
from ..models import AutomationRule, Balance, PaymentAccount, PaymentAccountStatus, PaymentAccountType
from ..rates import MAX_WHOLE_DIGITS, Currency, amount_str, table


def ledger_place(account: PaymentAccount) -> tuple[str, str | None]:
    """(chain, default currency label) where an account keeps its balances; chain "" for fiat."""
    details = account.details
    if account.account_type == PaymentAccountType.EXTERNAL_BANK_ACCOUNT:
        return "", details["bankAccountCurrency"]["label"]
    if account.account_type == PaymentAccountType.EXTERNAL_CRYPTO_WALLET:
        return details["address"]["chain"], details["currency"]["label"]
    if account.account_type == PaymentAccountType.SERVICE_CRYPTO_WALLET:
        return details["address"]["chain"], None
    return "", details["currency"]["label"]


def balance_currency(*, account: PaymentAccount, chain: str | None, currency: str | None, location="query") -> Currency:
    """The currency a balance question is about; chain and currency default from the account."""
    rates = table()
    own_chain, own_currency = ledger_place(account)
    if chain is not None:
        if chain not in rates.chains:
            message = f"Unknown chain '{chain}'. Allowed: {', '.join(rates.chains)}"
            raise validation_error([detail(["chain"], message, location)])
        if chain != own_chain:
            held = f"on {own_chain}" if own_chain else "in fiat (give no chain)"
            raise validation_error([detail(["chain"], f"This account holds funds {held}", location)])
    currency = currency or own_currency
    if not currency:
        labels = ", ".join(rates.allowed_currencies(own_chain))
        raise validation_error([detail(["currency"], f"Give the currency to report, one of: {labels}", location)])
    if own_chain:
        return rates.resolve(own_chain, currency, ["currency"], location=location)
    if currency.upper() != own_currency:
        raise validation_error([detail(["currency"], f"This account holds {own_currency} only", location)])
    return rates.fiat[own_currency]


def balance_get(*, account: PaymentAccount, currency: Currency) -> Decimal:
    row = Balance.objects.filter(account=account, chain=currency.chain, currency=currency.label).first()
    return row.amount if row else Decimal(0)


def balance_body(*, account: PaymentAccount, currency: Currency) -> dict:
    amount = currency.quantize(balance_get(account=account, currency=currency))
    return {
        "paymentAccountId": str(account.account_id or ""),
        "currency": currency.as_object(decimals_as_string=True),
        "balance": amount_str(amount),
        "usdValue": amount_str(currency.to_usd(amount)),
    }


@transaction.atomic
def balance_credit(*, account: PaymentAccount, currency: Currency, amount: Decimal) -> None:
    row, _ = Balance.objects.get_or_create(account=account, chain=currency.chain, currency=currency.label)
    Balance.objects.filter(pk=row.pk).update(amount=F("amount") + amount)
    _announce_if_watched(account)


@transaction.atomic
def balance_debit(*, account: PaymentAccount, currency: Currency, amount: Decimal) -> bool:
    """Take `amount` if the balance covers it; False (and nothing taken) otherwise."""
    taken = Balance.objects.filter(
        account=account, chain=currency.chain, currency=currency.label, amount__gte=amount
    ).update(amount=F("amount") - amount)
    if taken:
        _announce_if_watched(account)
    return bool(taken)


def _announce_if_watched(account: PaymentAccount) -> None:
    """Threshold rules on this account are checked once the change commits (sandbox/tasks.py):
    a credit may reach a threshold, a debit may re-arm one. Only accounts that are the source of
    a threshold rule."""
    if account.account_id is None:
        return
    watched = AutomationRule.objects.filter(source_account_id=account.account_id, trigger__has_key="thresholdAmount")
    if watched.exists():
        signals.watched_balance_changed.send(sender=PaymentAccount, account_id=str(account.account_id))


@transaction.atomic
def payment_account_fund(*, account: PaymentAccount, chain, currency, amount: Decimal) -> dict:
    """Test helper: money arrives on the account."""
    if account.status != PaymentAccountStatus.ACTIVE:
        raise bad_request(f"Payment account {account.account_id} is {account.status}")
    found = balance_currency(account=account, chain=chain, currency=currency, location="body")
    table().check_places(found, amount, ["amount"])
    if balance_get(account=account, currency=found) + amount >= Decimal(10) ** MAX_WHOLE_DIGITS:
        message = f"Too large: the balance would be more than {MAX_WHOLE_DIGITS} digits of {found.label}"
        raise validation_error([detail(["amount"], message)])
    balance_credit(account=account, currency=found, amount=amount)
    return balance_body(account=account, currency=found)
