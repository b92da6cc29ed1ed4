"""Payment accounts at the API: create one, refresh one, read its balances."""

from paymentsapi import BadRequest, PaymentsApiError, ValidationFailed
from paymentsapi import types as api
from upstream import claims
from upstream.api_errors import api_error_message
from upstream.client import get_client, lookup_client
from upstream.mirrored import Source
from upstream.write_through import AuditTarget, CannotTell, Once, write_through_api

from ..models import PaymentAccount
from ..rails import CHAIN_TOKENS, TOKENS
from ..upserts import is_completed_form_of, payment_accounts_upsert

# paymentAccountType -> the client's keyword for its request object.
DETAIL_ARGUMENT = {
    "EXTERNAL_BANK_ACCOUNT": "external_bank_account",
    "EXTERNAL_CRYPTO_WALLET": "external_crypto_wallet",
    "SERVICE_CRYPTO_WALLET": "service_crypto_wallet",
    "SERVICE_AUTO_FIAT_ACCOUNT": "service_auto_fiat_account",
}
BALANCE_TIMEOUT = 3.0
NOT_TOLD_APART = (
    "The hosted form is no longer pending, and its account could not be told apart: the next sync will settle it."
)


def _audit_id(account: PaymentAccount) -> str:
    """A pending account has no id yet: the audit names its row."""
    return account.account_id or f"pending:{account.pk}"


def _mirror_row(item: api.PaymentAccount) -> PaymentAccount:
    if item.payment_account_id:
        return PaymentAccount.objects.get(account_id=item.payment_account_id)
    return PaymentAccount.objects.get(form_link=item.bank_account_form_link)


def _created_account(*, key: str, customer_id: str, account_type: str, nickname: str) -> api.PaymentAccount | None:
    """After a create whose answer was lost: the customer's account of this type and nickname
    that the mirror did not know before the first try (None: none; CannotTell: several)."""
    since = claims.first_tried(key)
    mirror = PaymentAccount.objects.filter(customer_upstream_id=customer_id)
    mirror = mirror.filter(first_seen_at__lt=since) if since else mirror
    known = {ref for row in mirror.values_list("account_id", "form_link") for ref in row if ref}
    found = [
        item
        for item in lookup_client().payment_accounts.iter(customer_id=customer_id)
        if str(item.payment_account_type) == account_type
        and (item.nickname or "") == nickname
        and not ({item.payment_account_id, item.bank_account_form_link} & known)
    ]
    if len(found) > 1:
        raise CannotTell(f"{len(found)} new accounts of that type and nickname")
    return found[0] if found else None


def payment_account_create(
    *,
    actor,
    submission: str,
    account_type: str,
    customer_id: str,
    nickname: str,
    is_third_party: bool | None,
    details: dict,
) -> PaymentAccount:
    """Create an account of `account_type` with its request object `details` (API names),
    once for the form's one-time mark `submission` (a resend answers with the account the
    first made; after a lost answer the customer's accounts are read back first).

    A bank account without numbers comes back PENDING with its hosted form link, and is
    mirrored under that link until the form completes.
    """
    key = f"payment_account.create:{actor.pk}:{submission}"

    def store(item: api.PaymentAccount) -> PaymentAccount:
        payment_accounts_upsert(items=[item], seen_by=Source.STAFF)
        return _mirror_row(item)

    return write_through_api(
        actor=actor,
        action="payment_account.create",
        target=AuditTarget("customer", customer_id),
        call=lambda: get_client().payment_accounts.create(
            customer_id=customer_id,
            payment_account_type=account_type,
            nickname=nickname or None,
            is_third_party=is_third_party,
            **{DETAIL_ARGUMENT[account_type]: details},
        ),
        store=store,
        stored=lambda row: AuditTarget("payment_account", _audit_id(row), {"type": account_type, "status": row.status}),
        reconcile=lambda: _created_account(
            key=key, customer_id=customer_id, account_type=account_type, nickname=nickname or ""
        ),
        once=Once(key, remember=lambda row: str(row.pk), replay=lambda pk: PaymentAccount.objects.get(pk=pk)),
    )


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


def _read_account(account: PaymentAccount) -> api.PaymentAccount | None:
    """The account as the API has it; None when a completed form's account cannot be told apart."""
    client = get_client()
    if account.account_id:
        return client.payment_accounts.get(payment_account_id=account.account_id)
    # A pending account has no id to read: find it (or what it became) in its customer's list.
    items = list(client.payment_accounts.iter(customer_id=account.customer_upstream_id))
    item = next((i for i in items if i.bank_account_form_link == account.form_link), None)
    if item is None:
        item = _completed_form_account(account, items)
        if item is None:
            return None
        # Carry our link so that the upsert gives this row the new id.
        item = item.model_copy(update={"bank_account_form_link": account.form_link})
    return item


def payment_account_refresh(*, actor, account: PaymentAccount) -> tuple[PaymentAccount, str]:
    """Re-read one account from the API into the mirror; -> (the row, what happened)."""
    old_status = account.status

    def store(item: api.PaymentAccount | None) -> tuple[PaymentAccount, str]:
        if item is None:
            return account, NOT_TOLD_APART
        payment_accounts_upsert(items=[item], seen_by=Source.STAFF)
        account.refresh_from_db()
        if old_status != account.status:
            return account, f"Refreshed: the account is now {account.status.lower()}."
        return account, f"Refreshed: the account is still {account.status.lower()}."

    return write_through_api(
        actor=actor,
        action="payment_account.refresh",
        target=AuditTarget("payment_account", _audit_id(account)),
        call=lambda: _read_account(account),
        store=store,
        stored=lambda done: AuditTarget("payment_account", _audit_id(done[0]), {"status": done[0].status}),
    )


def _balance_queries(account: PaymentAccount) -> list[tuple[str | None, str | None]]:
    """(chain, currency) pairs to ask the balance of; None lets the API use the account's own."""
    details = account.details or {}
    chain = (details.get("address") or {}).get("chain")
    if account.account_type == "SERVICE_CRYPTO_WALLET" and chain:
        # A service wallet can hold any token of its chain; the API needs to be told which.
        return [(chain, token) for token in CHAIN_TOKENS.get(chain, TOKENS)]
    if account.account_type == "EXTERNAL_CRYPTO_WALLET":
        currency = details.get("currency") or {}
        return [(chain, currency.get("contractAddress") or currency.get("label"))]
    return [(None, None)]


def payment_account_balances(account: PaymentAccount) -> tuple[list[dict], str]:
    """The account's balances as rows, asked from the API (a read: nothing is stored), and the
    staff message of the error that stopped the asking, or ""."""
    rows: list[dict] = []
    # A balance is a nice-to-have on a page already shown: fail fast, never retry.
    client = get_client().with_options(timeout=BALANCE_TIMEOUT, max_retries=0)
    for chain, currency in _balance_queries(account):
        try:
            balance = client.payment_accounts.get_balance(
                payment_account_id=account.account_id, chain=chain, currency=currency
            )
        except (BadRequest, ValidationFailed):
            # This token is not held on this chain (or the account has no such balance).
            rows.append({"chain": chain, "label": currency, "unavailable": True})
        except PaymentsApiError as error:
            return rows, api_error_message(error, write=False)
        else:
            label = (balance.currency.label if balance.currency else None) or currency or ""
            rows.append(
                {
                    "chain": (balance.currency.chain if balance.currency else None) or chain,
                    "label": label,
                    "balance": balance.balance,
                    "usd_value": balance.usd_value,
                }
            )
    return rows, ""
