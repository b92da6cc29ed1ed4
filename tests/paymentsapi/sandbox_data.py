"""What the tests of the client against the sandbox create: customers (active ones through the
sandbox's review), payment accounts and quotes, with data the sandbox accepts."""

import uuid
from decimal import Decimal

from paymentsapi import CustomerStatus, PaymentAccountType
from paymentsapi.types import KycData, QuoteDestination, QuoteSource

ROUTING_NUMBER = "021000021"  # passes the ABA checksum
WALLET_ADDRESS = "0x" + "ab" * 20

KYC = KycData(
    legal_first_name="Ada",
    legal_last_name="Lovelace",
    phone_number="+12025550123",
    date_of_birth="1990-12-10",
    national_id_issuing_country="US",
    national_id_type="ssn",
    national_id_number="123-45-6789",
    nationality="US",
    employment_status="EMPLOYED",
    source_of_funds="SALARY",
    account_purpose="PERSONAL_EXPENSES",
    expected_monthly_payments_usd="BETWEEN_10000_49999",
    is_intermediary=False,
)


def new_customer(client, **options):
    fields = {"customer_type": "INDIVIDUAL", "email": f"{uuid.uuid4().hex[:8]}@example.com"}
    fields |= {"first_name": "Ada", "last_name": "Lovelace"}
    return client.customers.create(**(fields | options))


def active_customer(client, helpers):
    customer = new_customer(client, kyc_data=KYC)
    if client.customers.get(customer_id=customer.customer_id).customer_status == CustomerStatus.UNDER_REVIEW:
        helpers.review(customer.customer_id, "ACTIVE")
    customer = client.customers.get(customer_id=customer.customer_id)
    assert customer.customer_status == CustomerStatus.ACTIVE
    return customer


def bank_account(client, customer_id, *, with_numbers=True):
    sub = {
        "bankAccountType": "CHECKING",
        "bankAccountOwnerName": "Ada Lovelace",
        "bankName": "First Bank",
        "bankAccountCurrency": "USD",
        "bankAccountPaymentMethod": "ACH",
    }
    if with_numbers:
        sub |= {"bankAccountNumber": "000123456789", "bankRoutingNumber": ROUTING_NUMBER}
    return client.payment_accounts.create(
        customer_id=customer_id,
        payment_account_type=PaymentAccountType.EXTERNAL_BANK_ACCOUNT,
        nickname="Checking",
        external_bank_account=sub,
    )


def crypto_wallet(client, customer_id):
    return client.payment_accounts.create(
        customer_id=customer_id,
        payment_account_type=PaymentAccountType.EXTERNAL_CRYPTO_WALLET,
        nickname="Wallet",
        external_crypto_wallet={"currency": "USDC", "address": {"address": WALLET_ADDRESS, "chain": "BASE"}},
    )


def offramp_quote(client, customer_id, source_id, destination_id, amount=Decimal("100.00")):
    return client.quotes.create(
        customer_id=customer_id,
        source=QuoteSource(
            source_currency="USDC",
            source_payment_method="BASE",
            source_amount=amount,
            source_payment_account_id=source_id,
        ),
        destination=QuoteDestination(
            destination_payment_account_id=destination_id, destination_payment_method="ACH", destination_currency="USD"
        ),
    )
