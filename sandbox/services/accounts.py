"""Payment accounts: create, complete a pending bank account, list, read. Their balances are in
ledger.py."""

import secrets
import uuid

from django.db import transaction
from django.urls import reverse

from .. import clock
from ..auth import check_organization
from ..errors import ApiError, bad_request, detail, not_found, validation_error
from ..models import (
    ACCOUNT_DETAILS_KEYS,
    ApiKey,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
)
from ..pagination import PageToken, keyset_page
from ..rates import table
from .addresses import address_error, new_address
from .customers import CLOSED_CUSTOMER, customer_for_key
from .records import record_for_key
from .verification import sandbox_origin
from .webhooks import emit

# What the hosted bank-account form may fill in; the currency stays as created, the rail too
# unless the hosted form chose another (the test helper cannot).
BANK_FORM_FIELDS = ["bankAccountType", "bankAccountOwnerName", "bankAccountOwnerEmail", "bankName"]


def account_for_key(*, api_key: ApiKey, account_id, queryset=None) -> PaymentAccount:
    records = queryset if queryset is not None else PaymentAccount.objects
    return record_for_key(records, api_key=api_key, kind="Payment account", record_id=account_id, id_field="account_id")


def pending_account_for_key(*, api_key: ApiKey, form_token: str) -> PaymentAccount:
    """The bank account behind a bankAccountFormLink, for a key of its organization."""
    pending = PaymentAccount.objects.filter(form_token=form_token).first()
    if pending is None:
        raise not_found("Bank account form", form_token)
    check_organization(api_key, pending.organization_id)
    return pending


# --- create -------------------------------------------------------------------------------------


def bank_account_details(data: dict) -> dict:
    details = {
        "bankAccountType": data["bankAccountType"],
        "bankAccountOwnerName": data["bankAccountOwnerName"],
        "bankAccountOwnerEmail": data.get("bankAccountOwnerEmail", ""),
        "bankName": data.get("bankName", ""),
        "bankAccountCurrency": {"label": data["bankAccountCurrency"]},
        "bankAccountPaymentMethod": data["bankAccountPaymentMethod"],
    }
    if data.get("bankAccountNumber"):
        details["bankAccountMask"] = mask(data["bankAccountNumber"])
    return details


def mask(number: str) -> str:
    return "****" + number[-4:]


def account_details(account_type: str, data: dict) -> dict:
    """The type-specific object of a new account, from the request's sub-object."""
    rates = table()
    if account_type == PaymentAccountType.EXTERNAL_BANK_ACCOUNT:
        return bank_account_details(data)
    if account_type == PaymentAccountType.EXTERNAL_CRYPTO_WALLET:
        chain, address = data["address"]["chain"], data["address"]["address"]
        problem = address_error(chain, address)
        if problem:
            raise validation_error([detail(["externalCryptoWallet", "address", "address"], problem)])
        currency = rates.resolve(chain, data["currency"], ["externalCryptoWallet", "currency"])
        return {"currency": currency.as_object(), "address": {"address": address, "chain": chain}}
    if account_type == PaymentAccountType.SERVICE_CRYPTO_WALLET:
        chain = data["chain"]
        family = rates.chains[chain]
        wallet_type = data.get("cryptoWalletType") or family
        if wallet_type != family:
            message = f"{chain} wallets are of type {family}, not {wallet_type}"
            raise validation_error([detail(["serviceCryptoWallet", "cryptoWalletType"], message)])
        return {"cryptoWalletType": wallet_type, "address": {"address": new_address(chain), "chain": chain}}
    if account_type == PaymentAccountType.SERVICE_AUTO_FIAT_ACCOUNT:
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
    details = account_details(account_type, data[ACCOUNT_DETAILS_KEYS[account_type]])
    now = clock.now()
    pending = account_type == PaymentAccountType.EXTERNAL_BANK_ACCOUNT and "bankAccountMask" not in details
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
    merged["bankAccountPaymentMethod"] = data.get("bankAccountPaymentMethod") or current["bankAccountPaymentMethod"]
    merged["bankAccountNumber"] = data["bankAccountNumber"]
    account.details = bank_account_details(merged)
    account.account_id = uuid.uuid4()
    account.status = PaymentAccountStatus.ACTIVE
    account.created_at = clock.now()
    account.save(update_fields=["details", "account_id", "status", "created_at"])
    # The account has an id now: integrators that listed payment_account.update re-read it.
    forms_base = f"{sandbox_origin()}{reverse('sandbox-index').lstrip('/')}forms/"
    emit(
        organization_id=account.organization_id,
        event_type="payment_account.update",
        data=payment_account_body(account, forms_base=forms_base),
    )
    return account


# --- read ---------------------------------------------------------------------------------------


def payment_account_list(
    *, api_key: ApiKey, customer_id=None, size: int, token: PageToken | None
) -> tuple[list[PaymentAccount], str | None]:
    """One page in listing order, pending accounts included: (accounts, nextPageToken)."""
    accounts = PaymentAccount.objects.filter(organization_id=api_key.organization_id)
    if customer_id:
        accounts = accounts.filter(customer_id=customer_id)
    return keyset_page(accounts, order="listed_at", token=token, size=size)


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
        body["createdAt"] = clock.iso(account.created_at)
    if account.status == PaymentAccountStatus.PENDING and account.form_token:
        body["bankAccountFormLink"] = f"{forms_base}bank-accounts/{account.form_token}"
    body[ACCOUNT_DETAILS_KEYS[account.account_type]] = account.details
    return body
