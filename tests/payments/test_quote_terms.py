"""A quote's typed terms: what the builder sends is the one body built from them, and quotes
stored before the terms had columns get them from the body they were asked with."""

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from payments.models import Quote
from payments.terms import QuoteTerms
from tests.factories import QuoteFactory

BEFORE = [("payments", "0007_stuck_version_index")]
AFTER = [("payments", "0008_quote_terms")]

OLD_BODY = {
    "customerId": "cus-1",
    "source": {
        "sourceCurrency": "USD",
        "sourcePaymentMethod": "ACH",
        "sourceAmount": "250.00",
        "sourcePaymentAccountId": "acc-source",
    },
    "destination": {
        "destinationPaymentAccountId": "acc-destination",
        "destinationPaymentMethod": "BASE",
        "destinationCurrency": "USDC",
    },
    "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "1.50"},
    "guaranteeQuote": True,
    "correlationId": "order-7",
}


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _old_quote(apps, quote_id: str, body: dict):
    Customer = apps.get_model("customers", "Customer")
    now = timezone.now()
    customer, _ = Customer.objects.get_or_create(
        customer_id="cus-1",
        defaults={"name": "Ada", "status_since": now},
    )
    return apps.get_model("payments", "Quote").objects.create(
        quote_id=quote_id,
        idempotency_key=uuid.uuid4(),
        customer=customer,
        request=body,
        source_amount=Decimal("250.00"),
        exchange_rate=Decimal("1"),
        destination_amount=Decimal("249"),
        expires_at=timezone.now() + dt.timedelta(minutes=5),
    )


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_terms_from_an_old_body_and_gives_it_back():
    old = _migrate(BEFORE)
    _old_quote(old, "q-old", OLD_BODY)
    _old_quote(old, "q-unbound", {k: v for k, v in OLD_BODY.items() if k not in ("correlationId", "developerFee")})
    try:
        _migrate(AFTER)
        quote = Quote.objects.get(quote_id="q-old")
        assert (quote.source_account_id, quote.source_payment_method, quote.source_currency) == (
            "acc-source",
            "ACH",
            "USD",
        )
        assert (quote.destination_account_id, quote.destination_payment_method, quote.destination_currency) == (
            "acc-destination",
            "BASE",
            "USDC",
        )
        assert quote.developer_fee == Decimal("1.50") and quote.guaranteed is True
        assert quote.correlation_id == "order-7" and quote.correlation_bound
        assert quote.request == {k: v for k, v in OLD_BODY.items() if k != "correlationId"}
        unbound = Quote.objects.get(quote_id="q-unbound")
        assert (unbound.correlation_id, unbound.developer_fee) == (None, None) and not unbound.correlation_bound
        # Back: the body holds the fixed correlation id again, as it did.
        back = _migrate(BEFORE)
        assert back.get_model("payments", "Quote").objects.get(quote_id="q-old").request == OLD_BODY
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_terms_make_the_body_the_api_reads():
    terms = QuoteTerms(
        customer_id="cus-1",
        source_account_id="acc-source",
        source_payment_method="ACH",
        source_currency="USD",
        source_amount=Decimal("0.000000001"),
        destination_account_id="acc-destination",
        destination_payment_method="BASE",
        destination_currency="USDC",
        developer_fee=Decimal("1.50"),
        guaranteed=True,
    )
    # The body of before, less the execute's correlation id; the amount never as "1E-9".
    expected = {k: v for k, v in OLD_BODY.items() if k != "correlationId"}
    expected["source"] = {**OLD_BODY["source"], "sourceAmount": "0.000000001"}
    assert terms.api_body() == expected
    plain = QuoteTerms(**{**terms.__dict__, "developer_fee": None, "guaranteed": False}).api_body()
    assert "developerFee" not in plain and "guaranteeQuote" not in plain


@pytest.mark.django_db
def test_a_stored_quote_gives_its_terms_back():
    quote = QuoteFactory(developer_fee=Decimal("2"), guaranteed=True)
    terms = quote.terms
    assert terms.customer_id == quote.customer.customer_id
    assert terms.quote_fields() == {
        "source_account_id": quote.source_account_id,
        "source_payment_method": "ACH",
        "source_currency": "USD",
        "source_amount": quote.source_amount,
        "destination_account_id": quote.destination_account_id,
        "destination_payment_method": "BASE",
        "destination_currency": "USDC",
        "developer_fee": Decimal("2"),
        "guaranteed": True,
    }


def test_a_rules_terms_read_the_apis_template_and_trigger_as_typed_fields():
    """A rule's page reads these fields, never the camelCase JSON it is mirrored as; the mirror
    holds currencies as the API's objects, a request as their codes."""
    from payments.terms import RuleTerms

    template = {
        "source": {"sourcePaymentAccountId": "acc-1", "sourcePaymentMethod": "ACH", "sourceCurrency": {"label": "USD"}},
        "destination": {
            "destinationPaymentAccountId": "acc-2",
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": {"contractAddress": "0xabc"},
        },
        "amount": {"value": "25.50"},
        "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "1.00"},
    }
    terms = RuleTerms.from_api(template, {"thresholdAmount": "100"})
    assert terms == RuleTerms(
        source_account_id="acc-1",
        source_payment_method="ACH",
        source_currency="USD",
        destination_account_id="acc-2",
        destination_payment_method="BASE",
        destination_currency="0xabc",
        amount=Decimal("25.50"),
        developer_fee=Decimal("1.00"),
        threshold_amount=Decimal("100"),
    )
    assert RuleTerms.from_api({}, None) == RuleTerms()
    assert (
        RuleTerms.from_api({"source": {"sourceCurrency": "USDC"}}, {"cronSchedule": "0 9 * * *"}).source_currency
        == "USDC"
    )


def test_a_currency_reads_the_same_from_json_from_the_clients_type_and_from_a_code():
    from payments.terms import currency_label
    from paymentsapi import types as api

    token = {"contractAddress": "0xabc", "chain": "BASE"}
    assert currency_label({"label": "USDC", "contractAddress": "0xabc"}) == "USDC"
    assert currency_label(token) == "0xabc"
    assert currency_label(api.Currency.model_validate({"label": "USDC"})) == "USDC"
    assert currency_label(api.Currency.model_validate(token)) == "0xabc"
    assert currency_label("USD") == "USD"
    assert currency_label(None) == ""
