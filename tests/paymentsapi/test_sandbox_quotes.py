"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: exchange rates and quotes."""

from datetime import timedelta
from decimal import Decimal

import pytest

from paymentsapi import BadRequest, ValidationFailed
from paymentsapi.types import DeveloperFee
from tests.paymentsapi.sandbox_data import bank_account, crypto_wallet, new_customer, offramp_quote


def test_exchange_rate_without_and_with_amount(sandbox_client):
    query = {
        "source_currency": "USDC",
        "source_payment_method": "BASE",
        "destination_payment_method": "ACH",
        "destination_currency": "USD",
    }

    bare = sandbox_client.exchange_rates.get(**query)
    priced = sandbox_client.exchange_rates.get(**query, source_amount=Decimal("250.00"))

    assert isinstance(bare.exchange_rate, Decimal) and bare.exchange_rate > 0
    assert bare.destination_amount is None and bare.fees is None
    assert isinstance(priced.destination_amount, Decimal)
    assert Decimal(0) < priced.destination_amount < Decimal("250.00") * priced.exchange_rate
    assert priced.fees.service_fee.fee_amount > 0
    assert priced.fees.fee_currency.label == "USDC"  # fees in the source currency
    assert all(isinstance(c.fee_amount, Decimal) for c in priced.fee_components)


def test_exchange_rate_with_an_unknown_method_is_refused(sandbox_client):
    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.exchange_rates.get(
            source_currency="USDC",
            source_payment_method="NOT_A_RAIL",
            destination_payment_method="ACH",
            destination_currency="USD",
        )

    assert caught.value.field_errors[0].location == "query"


def test_create_quote(sandbox_client, funded):
    customer, wallet, bank = funded

    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)

    assert quote.quote_id
    assert isinstance(quote.estimated_exchange_rate, Decimal)
    assert Decimal(0) < quote.destination_amount < Decimal(100)
    assert quote.fees.service_fee.fee_amount > 0
    assert quote.fees.developer_fee.fee_amount == 0
    lifetime = quote.expires_at - sandbox_client.customers.get(customer_id=customer.customer_id).updated_at
    assert timedelta(minutes=4) < lifetime <= timedelta(minutes=6)


def test_quote_with_a_developer_fee(sandbox_client, funded):
    customer, wallet, bank = funded

    quote = sandbox_client.quotes.create(
        customer_id=customer.customer_id,
        source={
            "sourceCurrency": "USDC",
            "sourcePaymentMethod": "BASE",
            "sourceAmount": Decimal("100.00"),
            "sourcePaymentAccountId": wallet.payment_account_id,
        },
        destination={
            "destinationPaymentAccountId": bank.payment_account_id,
            "destinationPaymentMethod": "ACH",
            "destinationCurrency": "USD",
        },
        developer_fee=DeveloperFee(developer_fee_amount=Decimal("1.50")),
    )

    assert quote.fees.developer_fee.fee_usd_amount == Decimal("1.50")


def test_quote_for_a_customer_not_active_is_refused(sandbox_client):
    customer = new_customer(sandbox_client)
    wallet = crypto_wallet(sandbox_client, customer.customer_id)
    bank = bank_account(sandbox_client, customer.customer_id)

    with pytest.raises(BadRequest, match="ACTIVE"):
        offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
