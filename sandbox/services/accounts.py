"""Payment accounts and the balance ledger of the sandbox."""

import base64
import binascii
import datetime as dt
import json
import re
import secrets
import uuid
from decimal import Decimal

from django.db import transaction
from django.db.models import F, Q

from .. import clock, signals
from ..errors import ApiError, bad_request, detail, not_found, validation_error
from ..models import (
    ApiKey,
    AutomationRule,
    Balance,
    Customer,
    CustomerStatus,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
)
from ..rates import Currency, amount_str, table

T = PaymentAccountType
SERVICE_TYPES = {T.SERVICE_CRYPTO_WALLET, T.SERVICE_AUTO_FIAT_ACCOUNT, T.SERVICE_FIAT_ACCOUNT}
CRYPTO_TYPES = {T.SERVICE_CRYPTO_WALLET, T.EXTERNAL_CRYPTO_WALLET}
DETAILS_KEY = {
    T.EXTERNAL_BANK_ACCOUNT: "externalBankAccount",
    T.EXTERNAL_CRYPTO_WALLET: "externalCryptoWallet",
    T.SERVICE_CRYPTO_WALLET: "serviceCryptoWallet",
    T.SERVICE_AUTO_FIAT_ACCOUNT: "serviceAutoFiatAccount",
    T.SERVICE_FIAT_ACCOUNT: "serviceFiatAccount",
}
# Customers in these states can no longer be given accounts, rules or quotes.
CLOSED_CUSTOMER = {CustomerStatus.REJECTED, CustomerStatus.DEACTIVATED}
EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
SOLANA_ADDRESS = re.compile(rf"^[{BASE58}]{{32,44}}$")


# --- lookups shared by quotes, transactions and rules -------------------------------------------


def check_organization(api_key: ApiKey, organization_id) -> None:
    if str(organization_id) != str(api_key.organization_id):
        raise ApiError(403, "FORBIDDEN", "This record belongs to another organization")


def parse_id(value, kind: str) -> uuid.UUID:
    """A record id from a path or body; anything that is not a UUID names no record (404)."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise not_found(kind, value) from None


def customer_for_key(*, api_key: ApiKey, customer_id) -> Customer:
    customer = Customer.objects.filter(pk=parse_id(customer_id, "Customer")).first()
    if customer is None:
        raise not_found("Customer", customer_id)
    check_organization(api_key, customer.organization_id)
    return customer


def account_for_key(*, api_key: ApiKey, account_id, queryset=None) -> PaymentAccount:
    records = queryset if queryset is not None else PaymentAccount.objects
    account = records.filter(account_id=parse_id(account_id, "Payment account")).first()
    if account is None:
        raise not_found("Payment account", account_id)
    check_organization(api_key, account.organization_id)
    return account


# --- addresses ------------------------------------------------------------------------------------


def base58(data: bytes) -> str:
    number, text = int.from_bytes(data, "big"), ""
    while number:
        number, rest = divmod(number, 58)
        text = BASE58[rest] + text
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + text


def address_error(chain: str, address: str) -> str | None:
    if table().chains[chain] == "EVM":
        if not EVM_ADDRESS.match(address):
            return f"'{address}' is not an {chain} address: expected 0x followed by 40 hexadecimal digits"
    elif not SOLANA_ADDRESS.match(address):
        return f"'{address}' is not a SOLANA address: expected 32 to 44 base58 characters"
    return None


def new_address(chain: str) -> str:
    if table().chains[chain] == "EVM":
        return "0x" + secrets.token_hex(20)
    return base58(secrets.token_bytes(32))


# --- create -------------------------------------------------------------------------------------


def _bank_account_details(data: dict) -> dict:
    out = {
        "bankAccountType": data["bankAccountType"],
        "bankAccountOwnerName": data["bankAccountOwnerName"],
        "bankAccountOwnerEmail": data.get("bankAccountOwnerEmail", ""),
        "bankName": data.get("bankName", ""),
        "bankAccountCurrency": {"label": data["bankAccountCurrency"]},
        "bankAccountPaymentMethod": data["bankAccountPaymentMethod"],
    }
    if data.get("bankAccountNumber"):
        out["bankAccountMask"] = mask(data["bankAccountNumber"])
    return out


def mask(number: str) -> str:
    return "****" + number[-4:]


def _details(account_type: str, data: dict) -> dict:
    rates = table()
    if account_type == T.EXTERNAL_BANK_ACCOUNT:
        return _bank_account_details(data)
    if account_type == T.EXTERNAL_CRYPTO_WALLET:
        chain, address = data["address"]["chain"], data["address"]["address"]
        problem = address_error(chain, address)
        if problem:
            raise validation_error([detail(["externalCryptoWallet", "address", "address"], problem)])
        currency = rates.resolve(chain, data["currency"], ["externalCryptoWallet", "currency"])
        return {"currency": currency.as_object(), "address": {"address": address, "chain": chain}}
    if account_type == T.SERVICE_CRYPTO_WALLET:
        chain = data["chain"]
        family = rates.chains[chain]
        wallet_type = data.get("cryptoWalletType") or family
        if wallet_type != family:
            message = f"{chain} wallets are of type {family}, not {wallet_type}"
            raise validation_error([detail(["serviceCryptoWallet", "cryptoWalletType"], message)])
        return {"cryptoWalletType": wallet_type, "address": {"address": new_address(chain), "chain": chain}}
    if account_type == T.SERVICE_AUTO_FIAT_ACCOUNT:
        return {
            "currency": {"label": data["currency"]},
            "supportedDestinationCurrencies": [{"label": label} for label in data["supportedDestinationCurrencies"]],
        }
    return {"currency": {"label": data["currency"]}, "supportedPaymentMethods": rates.rails_for(data["currency"])}


@transaction.atomic
def payment_account_create(*, api_key: ApiKey, data: dict) -> PaymentAccount:
    """`data` is the validated create request. A bank account without its numbers stays PENDING
    (no paymentAccountId, no createdAt) until its hosted form is completed."""
    if data.get("organizationId") and str(data["organizationId"]) != str(api_key.organization_id):
        raise ApiError(403, "FORBIDDEN", "organizationId is not the organization of this API key")
    customer = customer_for_key(api_key=api_key, customer_id=data["customerId"])
    if customer.status in CLOSED_CUSTOMER:
        raise bad_request(f"Customer {customer.pk} is {customer.status}: payment accounts cannot be added")
    account_type = data["paymentAccountType"]
    details = _details(account_type, data[DETAILS_KEY[account_type]])
    now = clock.now()
    pending = account_type == T.EXTERNAL_BANK_ACCOUNT and "bankAccountMask" not in details
    return PaymentAccount.objects.create(
        account_id=None if pending else uuid.uuid4(),
        form_token=secrets.token_urlsafe(24) if pending else None,
        customer=customer,
        organization_id=customer.organization_id,
        account_type=account_type,
        status=PaymentAccountStatus.PENDING if pending else PaymentAccountStatus.ACTIVE,
        nickname=data.get("nickname", ""),
        is_third_party=data.get("isThirdParty", False),
        details=details,
        created_at=None if pending else now,
        listed_at=now,
    )


BANK_FORM_FIELDS = ["bankAccountType", "bankAccountOwnerName", "bankAccountOwnerEmail", "bankName"]


@transaction.atomic
def bank_account_form_complete(*, form_token: str, data: dict) -> PaymentAccount:
    """What the hosted bank-account form does on submit: the account becomes ACTIVE."""
    account = PaymentAccount.objects.select_for_update().filter(form_token=form_token).first()
    if account is None:
        raise not_found("Bank account form", form_token)
    if account.status != PaymentAccountStatus.PENDING:
        raise bad_request(f"Bank account form {form_token} was already completed")
    current = account.details
    merged = {key: data.get(key) or current.get(key, "") for key in BANK_FORM_FIELDS}
    merged["bankAccountCurrency"] = current["bankAccountCurrency"]["label"]
    merged["bankAccountPaymentMethod"] = current["bankAccountPaymentMethod"]
    merged["bankAccountNumber"] = data["bankAccountNumber"]
    account.details = _bank_account_details(merged)
    account.account_id = uuid.uuid4()
    account.status = PaymentAccountStatus.ACTIVE
    account.created_at = clock.now()
    account.save(update_fields=["details", "account_id", "status", "created_at"])
    return account


# --- list ---------------------------------------------------------------------------------------


def _encode_token(account: PaymentAccount) -> str:
    raw = json.dumps([account.listed_at.isoformat(), account.pk]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(token: str) -> tuple[dt.datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        listed_at, pk = json.loads(raw)
        return dt.datetime.fromisoformat(listed_at), int(pk)
    except (binascii.Error, ValueError, TypeError):
        raise validation_error([detail(["pageToken"], "Invalid page token", "query")]) from None


def payment_account_list(*, api_key: ApiKey, customer_id=None, page_size: int = 10, page_token: str | None = None):
    """One page in (listed_at, id) order by keyset, never OFFSET: -> (accounts, nextPageToken)."""
    accounts = PaymentAccount.objects.filter(organization_id=api_key.organization_id)
    if customer_id:
        accounts = accounts.filter(customer_id=customer_id)
    if page_token:
        listed_at, pk = _decode_token(page_token)
        # The plain bound lets PostgreSQL seek the index; the OR alone would make it scan from the start.
        accounts = accounts.filter(listed_at__gte=listed_at).filter(
            Q(listed_at__gt=listed_at) | Q(listed_at=listed_at, pk__gt=pk)
        )
    page = list(accounts.order_by("listed_at", "pk")[: page_size + 1])
    if len(page) > page_size:
        return page[:page_size], _encode_token(page[page_size - 1])
    return page, None


# --- ledger -------------------------------------------------------------------------------------


def ledger_place(account: PaymentAccount) -> tuple[str, str | None]:
    """(chain, default currency label) where an account keeps its balances; chain "" for fiat."""
    details = account.details
    if account.account_type == T.EXTERNAL_BANK_ACCOUNT:
        return "", details["bankAccountCurrency"]["label"]
    if account.account_type == T.EXTERNAL_CRYPTO_WALLET:
        return details["address"]["chain"], details["currency"]["label"]
    if account.account_type == T.SERVICE_CRYPTO_WALLET:
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
    _after_balance_change(account)


@transaction.atomic
def balance_debit(*, account: PaymentAccount, currency: Currency, amount: Decimal) -> bool:
    """Take `amount` if the balance covers it; False (and nothing taken) otherwise."""
    taken = Balance.objects.filter(
        account=account, chain=currency.chain, currency=currency.label, amount__gte=amount
    ).update(amount=F("amount") - amount)
    if taken:
        _after_balance_change(account)
    return bool(taken)


def _after_balance_change(account: PaymentAccount) -> None:
    """Threshold rules on this account are checked once the change commits: a credit may reach a
    threshold, a debit may re-arm one. Only accounts that are the source of a threshold rule."""
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
    balance_credit(account=account, currency=found, amount=amount)
    return balance_body(account=account, currency=found)


# --- output -------------------------------------------------------------------------------------


def payment_account_body(account: PaymentAccount, *, forms_base: str) -> dict:
    """The spec's payment account object. `forms_base` is the absolute {base_url}/forms/ of this request."""
    body = {
        "paymentAccountId": str(account.account_id) if account.account_id else "",
        "paymentAccountType": account.account_type,
        "paymentAccountStatus": account.status,
        "nickname": account.nickname,
        "customerId": str(account.customer_id),
        "isThirdParty": account.is_third_party,
    }
    if account.created_at:
        body["createdAt"] = iso(account.created_at)
    if account.status == PaymentAccountStatus.PENDING and account.form_token:
        body["bankAccountFormLink"] = f"{forms_base}bank-accounts/{account.form_token}"
    body[DETAILS_KEY[account.account_type]] = account.details
    return body


def iso(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
