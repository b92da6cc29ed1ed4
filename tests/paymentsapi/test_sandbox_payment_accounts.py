"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: payment accounts: bank accounts, wallets, balances,
lists."""

import uuid
from decimal import Decimal

import pytest

from paymentsapi import BadRequest, NotFound, PaymentAccountStatus, PaymentAccountType, ValidationFailed
from tests.paymentsapi.sandbox_data import WALLET_ADDRESS, active_customer, bank_account, crypto_wallet, new_customer


def test_external_crypto_wallet(sandbox_client):
    customer = new_customer(sandbox_client)

    wallet = crypto_wallet(sandbox_client, customer.customer_id)

    assert wallet.payment_account_id
    assert wallet.payment_account_type == PaymentAccountType.EXTERNAL_CRYPTO_WALLET
    assert wallet.payment_account_status == PaymentAccountStatus.ACTIVE
    assert wallet.external_crypto_wallet.address.address == WALLET_ADDRESS
    assert wallet.external_crypto_wallet.currency.label == "USDC"
    assert wallet.external_crypto_wallet.currency.chain == "BASE"
    assert wallet.customer_id == customer.customer_id
    read = sandbox_client.payment_accounts.get(payment_account_id=wallet.payment_account_id)
    assert read.external_crypto_wallet == wallet.external_crypto_wallet


def test_bank_account_with_numbers_is_active_and_masked(sandbox_client):
    customer = new_customer(sandbox_client)

    account = bank_account(sandbox_client, customer.customer_id)

    assert account.payment_account_status == PaymentAccountStatus.ACTIVE
    assert account.external_bank_account.bank_account_mask.endswith("6789")
    assert account.external_bank_account.bank_account_number is None  # never answered back
    assert account.external_bank_account.bank_account_currency.label == "USD"


def test_bank_account_without_numbers_is_pending_with_a_form_link(sandbox_client):
    customer = new_customer(sandbox_client)

    account = bank_account(sandbox_client, customer.customer_id, with_numbers=False)

    assert account.payment_account_status == PaymentAccountStatus.PENDING
    assert account.is_awaiting_form and account.payment_account_id == ""
    assert account.bank_account_form_link.startswith("http")
    assert account.created_at is None


def test_service_crypto_wallet_balance_after_funding(sandbox_client, helpers):
    customer = active_customer(sandbox_client, helpers)
    wallet = sandbox_client.payment_accounts.create(
        customer_id=customer.customer_id,
        payment_account_type=PaymentAccountType.SERVICE_CRYPTO_WALLET,
        service_crypto_wallet={"chain": "BASE"},
    )
    assert wallet.service_crypto_wallet.address.chain == "BASE"
    helpers.fund(wallet.payment_account_id, currency="USDC", chain="BASE", amount=Decimal("12.345678"))

    balance = sandbox_client.payment_accounts.get_balance(
        payment_account_id=wallet.payment_account_id, chain="BASE", currency="USDC"
    )

    assert balance.balance == Decimal("12.345678")
    assert isinstance(balance.usd_value, Decimal)
    assert balance.currency.label == "USDC" and balance.currency.currency_decimals == 6
    assert balance.payment_account_id == wallet.payment_account_id


def test_balance_with_a_wrong_chain_is_refused(sandbox_client, helpers):
    customer = active_customer(sandbox_client, helpers)
    wallet = sandbox_client.payment_accounts.create(
        customer_id=customer.customer_id,
        payment_account_type=PaymentAccountType.SERVICE_CRYPTO_WALLET,
        service_crypto_wallet={"chain": "BASE"},
    )

    with pytest.raises((ValidationFailed, BadRequest)):
        sandbox_client.payment_accounts.get_balance(payment_account_id=wallet.payment_account_id, chain="base")


def test_list_payment_accounts_by_customer(sandbox_client):
    one, other = new_customer(sandbox_client), new_customer(sandbox_client)
    mine = {crypto_wallet(sandbox_client, one.customer_id).payment_account_id for _ in range(3)}
    crypto_wallet(sandbox_client, other.customer_id)

    page = sandbox_client.payment_accounts.list(customer_id=one.customer_id, page_size=2)
    assert len(page.items) == 2 and page.next_page_token

    found = {
        a.payment_account_id for a in sandbox_client.payment_accounts.iter(customer_id=one.customer_id, page_size=2)
    }
    assert found == mine
    assert len(list(sandbox_client.payment_accounts.iter())) == 4


def test_payment_account_validation_error(sandbox_client):
    customer = new_customer(sandbox_client)

    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.payment_accounts.create(
            customer_id=customer.customer_id, payment_account_type=PaymentAccountType.EXTERNAL_CRYPTO_WALLET
        )

    assert ("externalCryptoWallet",) in [e.path for e in caught.value.field_errors]


def test_unknown_payment_account_is_not_found(sandbox_client):
    with pytest.raises(NotFound):
        sandbox_client.payment_accounts.get(payment_account_id=str(uuid.uuid4()))
