"""The client against the real sandbox (in-process WSGI): every operation, end to end.

These tests check the client and the sandbox together: the paths and query names of
ARCHITECTURE.md's decisions, the typed answers, and each error class the spec names.
"""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest

from paymentsapi import (
    BadRequest,
    CryptoTransferInstructions,
    CustomerStatus,
    CustomerType,
    FiatTransferInstructions,
    Forbidden,
    NotFound,
    PaymentAccountStatus,
    PaymentAccountType,
    TransactionStatus,
    Unauthorized,
    ValidationFailed,
)
from paymentsapi.types import (
    DeveloperFee,
    KycData,
    QuoteDestination,
    QuoteSource,
    RuleAmount,
    TemplateDestination,
    TemplateSource,
    TransactionTemplate,
    Trigger,
)

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


@pytest.fixture
def funded(sandbox_client, helpers):
    """An ACTIVE customer with a USDC wallet on BASE (source) and a USD ACH bank account."""
    customer = active_customer(sandbox_client, helpers)
    wallet = crypto_wallet(sandbox_client, customer.customer_id)
    bank = bank_account(sandbox_client, customer.customer_id)
    return customer, wallet, bank


# --- Authentication ----------------------------------------------------------------------------


def test_unknown_key_is_unauthorized(make_sandbox_client):
    client = make_sandbox_client("sbx_nothere_" + "x" * 32)

    with pytest.raises(Unauthorized) as caught:
        client.customers.list()

    assert caught.value.status == 401 and caught.value.code == "UNAUTHORIZED"


def test_no_key_is_unauthorized(make_sandbox_client):
    with pytest.raises(Unauthorized):
        make_sandbox_client("").customers.list()


def test_read_only_key_cannot_write(make_sandbox_client):
    with pytest.raises(Forbidden):
        new_customer(make_sandbox_client(read_only=True))


def test_another_organizations_customer_is_forbidden(sandbox_client, make_sandbox_client):
    customer = new_customer(sandbox_client)

    with pytest.raises(Forbidden):
        make_sandbox_client().customers.get(customer_id=customer.customer_id)


# --- Customers ---------------------------------------------------------------------------------


def test_create_and_read_a_customer(sandbox_client):
    created = new_customer(sandbox_client, first_name="Grace", last_name="Hopper")

    assert created.customer_status == CustomerStatus.CREATED
    assert created.customer_type == CustomerType.INDIVIDUAL
    assert created.name == "Grace Hopper"
    assert created.verification_link.startswith("http")
    assert created.updated_at.tzinfo is not None

    read = sandbox_client.customers.get(customer_id=created.customer_id)
    assert read.customer_id == created.customer_id
    assert read.organization_id == created.organization_id
    assert read.available_payment_methods is None  # only with includePaymentMethods=true

    with_methods = sandbox_client.customers.get(customer_id=created.customer_id, include_payment_methods=True)
    assert with_methods.available_payment_methods == []  # not ACTIVE yet


def test_active_customer_has_payment_methods(sandbox_client, helpers):
    customer = active_customer(sandbox_client, helpers)

    read = sandbox_client.customers.get(customer_id=customer.customer_id, include_payment_methods=True)

    assert {"ACH", "WIRE", "BASE", "ETHEREUM"} <= set(read.available_payment_methods)


def test_create_business_customer(sandbox_client):
    customer = sandbox_client.customers.create(
        customer_type=CustomerType.BUSINESS, email="ops@acme.example", business_name="Acme Ltd"
    )

    assert customer.customer_type == CustomerType.BUSINESS and customer.name == "Acme Ltd"


def test_create_customer_validation_error_names_the_field(sandbox_client):
    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.create(customer_type="BUSINESS", email="ops@acme.example")

    assert ("businessName",) in [error.path for error in caught.value.field_errors]


def test_kyc_without_the_national_id_triple_is_rejected(sandbox_client):
    partial = KYC.model_copy(update={"national_id_number": None, "national_id_issuing_country": None})

    with pytest.raises(ValidationFailed) as caught:
        new_customer(sandbox_client, kyc_data=partial)

    fields = caught.value.messages_by_field()
    assert "kycData.nationalIdNumber" in fields
    assert "kycData.nationalIdIssuingCountry" in fields


def test_update_customer_kyc_starts_the_review(sandbox_client):
    customer = new_customer(sandbox_client)

    updated = sandbox_client.customers.update(customer_id=customer.customer_id, kyc_data=KYC)

    assert updated.customer_id == customer.customer_id
    assert updated.customer_status == CustomerStatus.UNDER_REVIEW


def test_review_issues_are_read_as_verification_issues(sandbox_client, helpers):
    customer = new_customer(sandbox_client, kyc_data=KYC)
    helpers.review(
        customer.customer_id,
        "NEEDS_ADDITIONAL_INFORMATION",
        [{"code": "DOCUMENT_MISSING_BACK", "message": "Upload the back of the ID"}],
    )

    read = sandbox_client.customers.get(customer_id=customer.customer_id)

    assert read.customer_status == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION
    assert [issue.code for issue in read.verification_issues] == ["DOCUMENT_MISSING_BACK"]
    assert read.verification_issues[0].timestamp is not None


def test_update_customer_validation_error(sandbox_client):
    customer = new_customer(sandbox_client)

    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.update(customer_id=customer.customer_id, kyc_data={"nationalIdType": "ssn"})

    assert "kycData.nationalIdNumber" in caught.value.messages_by_field()


def test_unknown_customer_is_not_found(sandbox_client):
    missing = str(uuid.uuid4())

    with pytest.raises(NotFound) as caught:
        sandbox_client.customers.get(customer_id=missing)

    assert missing in caught.value.message


def test_list_and_iterate_customers(sandbox_client):
    ids = {new_customer(sandbox_client).customer_id for _ in range(5)}

    first = sandbox_client.customers.list(page_size=2)
    assert len(first.items) == 2 and first.next_page_token
    assert all(c.available_payment_methods is not None for c in first.items)  # present in list items

    assert {c.customer_id for c in sandbox_client.customers.iter(page_size=2)} == ids
    organization = first.items[0].organization_id
    assert {c.customer_id for c in sandbox_client.customers.iter(organization_id=organization)} == ids


def test_last_page_has_no_token(sandbox_client):
    new_customer(sandbox_client)

    page = sandbox_client.customers.list(page_size=100)

    assert len(page.items) == 1 and page.next_page_token is None


@pytest.mark.parametrize("size", [0, 101])
def test_page_size_out_of_range_is_a_validation_error(sandbox_client, size):
    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.list(page_size=size)

    assert caught.value.field_errors[0].path == ("pageSize",)
    assert caught.value.field_errors[0].location == "query"


# --- Payment accounts --------------------------------------------------------------------------


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


# --- Exchange rates and quotes -----------------------------------------------------------------


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


# --- Transactions ------------------------------------------------------------------------------


def test_offramp_transaction_with_crypto_instructions(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)

    transaction = sandbox_client.transactions.create(quote_id=quote.quote_id, correlation_id="order-1")

    assert transaction.transaction_status == TransactionStatus.AWAITING_TRANSFER
    assert transaction.quote_id == quote.quote_id
    assert transaction.correlation_id == "order-1"
    assert transaction.expires_at is not None
    assert transaction.source.source_amount == Decimal("100.00")
    assert transaction.source.source_currency.label == "USDC"
    assert transaction.destination.destination_amount == quote.destination_amount
    instructions = transaction.transfer_instructions
    assert isinstance(instructions, CryptoTransferInstructions)
    assert instructions.deposit_address and instructions.chain == "BASE"
    assert instructions.amount == Decimal("100.00")
    read = sandbox_client.transactions.get(transaction_id=transaction.transaction_id)
    assert read.transaction_id == transaction.transaction_id


def test_onramp_transaction_with_fiat_instructions(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = sandbox_client.quotes.create(
        customer_id=customer.customer_id,
        source=QuoteSource(
            source_currency="USD",
            source_payment_method="ACH",
            source_amount=Decimal("500.00"),
            source_payment_account_id=bank.payment_account_id,
        ),
        destination=QuoteDestination(
            destination_payment_account_id=wallet.payment_account_id,
            destination_payment_method="BASE",
            destination_currency="USDC",
        ),
    )

    transaction = sandbox_client.transactions.create(quote_id=quote.quote_id)

    instructions = transaction.transfer_instructions
    assert isinstance(instructions, FiatTransferInstructions)
    assert instructions.transfer_payment_method == "ACH"
    assert instructions.transfer_routing_number and instructions.transfer_bank_account_number
    assert instructions.transfer_message


def test_same_idempotency_key_replays_the_first_answer(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)

    first = sandbox_client.transactions.create(quote_id=quote.quote_id, idempotency_key="key-1")
    again = sandbox_client.transactions.create(quote_id=quote.quote_id, idempotency_key="key-1")

    assert again.transaction_id == first.transaction_id


def test_same_idempotency_key_with_another_body_is_refused(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    sandbox_client.transactions.create(quote_id=quote.quote_id, idempotency_key="key-2")

    with pytest.raises(BadRequest):
        sandbox_client.transactions.create(quote_id=quote.quote_id, correlation_id="other", idempotency_key="key-2")


def test_a_used_quote_is_refused(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    sandbox_client.transactions.create(quote_id=quote.quote_id)

    with pytest.raises(BadRequest, match="already been used"):
        sandbox_client.transactions.create(quote_id=quote.quote_id)


def test_an_expired_quote_is_refused(sandbox_client, helpers, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    helpers.advance_clock(301)

    with pytest.raises(BadRequest, match="expired"):
        sandbox_client.transactions.create(quote_id=quote.quote_id)


def test_cancel_a_transaction(sandbox_client, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    transaction = sandbox_client.transactions.create(quote_id=quote.quote_id)

    result = sandbox_client.transactions.cancel(transaction_id=transaction.transaction_id)

    assert transaction.transaction_id in result.message
    read = sandbox_client.transactions.get(transaction_id=transaction.transaction_id)
    assert read.transaction_status == TransactionStatus.CANCELLED
    with pytest.raises(BadRequest, match="CANCELLED"):
        sandbox_client.transactions.cancel(transaction_id=transaction.transaction_id)


def test_a_processing_transaction_cannot_be_cancelled(sandbox_client, helpers, funded):
    customer, wallet, bank = funded
    quote = offramp_quote(sandbox_client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    transaction = sandbox_client.transactions.create(quote_id=quote.quote_id)
    helpers.advance_transaction(transaction.transaction_id, "PROCESSING")

    with pytest.raises(BadRequest, match="PROCESSING"):
        sandbox_client.transactions.cancel(transaction_id=transaction.transaction_id)
    read = sandbox_client.transactions.get(transaction_id=transaction.transaction_id)
    assert read.transaction_status == TransactionStatus.PROCESSING
    assert read.expires_at is None
    assert read.source.source_reference_id


def test_unknown_transaction_is_not_found(sandbox_client):
    with pytest.raises(NotFound):
        sandbox_client.transactions.get(transaction_id=str(uuid.uuid4()))


# --- Automation rules --------------------------------------------------------------------------


def rule_template(wallet_id, bank_id, amount="25.00"):
    return TransactionTemplate(
        source=TemplateSource(
            source_payment_account_id=wallet_id, source_payment_method="BASE", source_currency="USDC"
        ),
        destination=TemplateDestination(
            destination_payment_account_id=bank_id, destination_payment_method="ACH", destination_currency="USD"
        ),
        amount=RuleAmount(value=Decimal(amount)),
    )


def test_automation_rule_create_read_list_update(sandbox_client, funded):
    customer, wallet, bank = funded
    template = rule_template(wallet.payment_account_id, bank.payment_account_id)

    rule = sandbox_client.automation_rules.create(
        name="Weekly sweep",
        customer_id=customer.customer_id,
        transaction_template=template,
        trigger=Trigger(cron_schedule="0 9 * * 1"),
    )

    assert rule.id and rule.name == "Weekly sweep" and rule.customer_id == customer.customer_id
    assert rule.transaction_template.amount.value == Decimal("25.00")
    assert rule.transaction_template.source.source_currency.label == "USDC"  # an object in answers
    assert rule.trigger.cron_schedule == "0 9 * * 1"
    assert rule.created_at is not None

    assert sandbox_client.automation_rules.get(rule_id=rule.id).id == rule.id
    by_customer = sandbox_client.automation_rules.list(customer_id=customer.customer_id)
    assert [r.id for r in by_customer.items] == [rule.id]
    by_source = list(sandbox_client.automation_rules.iter(source_payment_account_id=wallet.payment_account_id))
    assert [r.id for r in by_source] == [rule.id]
    assert list(sandbox_client.automation_rules.iter(source_payment_account_id=bank.payment_account_id)) == []

    updated = sandbox_client.automation_rules.update(
        rule_id=rule.id,
        name="Monday sweep",
        customer_id=customer.customer_id,
        transaction_template=rule_template(wallet.payment_account_id, bank.payment_account_id, "30.00"),
        trigger=Trigger(cron_schedule="0 10 * * 1"),
    )
    assert updated.id == rule.id and updated.name == "Monday sweep"
    assert updated.trigger.cron_schedule == "0 10 * * 1"
    assert updated.transaction_template.amount.value == Decimal("30.00")
    assert sandbox_client.automation_rules.get(rule_id=rule.id).name == "Monday sweep"


def test_automation_rule_validation_error(sandbox_client, funded):
    customer, wallet, bank = funded

    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.automation_rules.create(
            name="",
            customer_id=customer.customer_id,
            transaction_template=rule_template(wallet.payment_account_id, bank.payment_account_id),
            trigger=Trigger(cron_schedule="not a cron"),
        )

    fields = caught.value.messages_by_field()
    assert "name" in fields and "trigger.cronSchedule" in fields


def test_unknown_automation_rule_is_not_found(sandbox_client):
    with pytest.raises(NotFound):
        sandbox_client.automation_rules.get(rule_id=str(uuid.uuid4()))


# --- Webhook endpoints -------------------------------------------------------------------------


def test_webhook_endpoint_lifecycle(sandbox_client):
    created = sandbox_client.webhooks.create(url="https://hooks.example/payments", events=["customer.update"])

    assert created.webhook_id
    assert created.secret is not None and created.secret.get_secret_value()
    assert created.events == ["customer.update"]
    assert created.created_at is not None

    read = sandbox_client.webhooks.get(webhook_id=created.webhook_id)
    assert read.url == "https://hooks.example/payments"
    assert read.secret is None  # shown once
    assert [e.webhook_id for e in sandbox_client.webhooks.iter()] == [created.webhook_id]
    assert sandbox_client.webhooks.list_deliveries(webhook_id=created.webhook_id).items == []

    sandbox_client.webhooks.delete(webhook_id=created.webhook_id)
    with pytest.raises(NotFound):
        sandbox_client.webhooks.get(webhook_id=created.webhook_id)


def test_webhook_deliveries_after_a_customer_change(sandbox_client, helpers):
    endpoint = sandbox_client.webhooks.create(url="https://hooks.example/p", events=["customer.update"])
    customer = new_customer(sandbox_client, kyc_data=KYC)
    helpers.review(customer.customer_id, "ACTIVE")

    deliveries = list(sandbox_client.webhooks.iter_deliveries(webhook_id=endpoint.webhook_id))

    assert deliveries
    assert {d.event_type for d in deliveries} == {"customer.update"}
    assert all(d.webhook_id == endpoint.webhook_id and d.event_id for d in deliveries)
    assert all(d.status in {"PENDING", "RETRYING", "SUCCEEDED", "FAILED"} for d in deliveries)
    assert all(isinstance(d.attempts, int) and d.created_at for d in deliveries)


def test_create_transaction_retried_after_a_lost_answer_creates_exactly_one(funded, sandbox_transport, sandbox_key):
    """The sandbox makes the transaction, the answer is lost (a read timeout), the client tries
    again with the same idempotency key and gets the first answer: one transaction."""
    import httpx

    from paymentsapi import PaymentsApiClient
    from sandbox.models import Transaction as SandboxTransaction

    customer, wallet, bank = funded
    seen = []

    def lossy(request: httpx.Request) -> httpx.Response:
        response = sandbox_transport.handle_request(request)
        if request.method == "POST" and request.url.path.endswith("/transactions"):
            seen.append(request.headers["x-idempotency-key"])
            if len(seen) == 1:
                response.read()
                raise httpx.ReadTimeout("the answer was lost", request=request)
        return response

    client = PaymentsApiClient(
        api_key=sandbox_key,
        base_url="http://testserver/sandbox",
        transport=httpx.MockTransport(lossy),
        max_retries=2,
        sleep=lambda _: None,
    )
    quote = offramp_quote(client, customer.customer_id, wallet.payment_account_id, bank.payment_account_id)
    transaction = client.transactions.create(quote_id=quote.quote_id)
    assert len(seen) == 2 and seen[0] == seen[1]
    assert SandboxTransaction.objects.filter(quote_id=quote.quote_id).count() == 1
    assert str(SandboxTransaction.objects.get(quote_id=quote.quote_id).pk) == transaction.transaction_id
