"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: transactions: create, idempotency, cancel, a retry after a
lost answer."""

import uuid
from decimal import Decimal

import pytest

from paymentsapi import BadRequest, CryptoTransferInstructions, FiatTransferInstructions, NotFound, TransactionStatus
from paymentsapi.types import QuoteDestination, QuoteSource
from tests.paymentsapi.sandbox_data import offramp_quote


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
