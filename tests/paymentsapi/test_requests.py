"""What the client sends (paths, query names, bodies) and how it reads answers (types, pages)."""

import json
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from paymentsapi import (
    AutomationRule,
    CryptoTransferInstructions,
    CustomerStatus,
    FiatTransferInstructions,
    PaymentAccountType,
    TransactionStatus,
    UnexpectedResponse,
    to_wire,
)
from paymentsapi.types import (
    AssociatedPerson,
    DeveloperFee,
    KybData,
    KycData,
    QuoteDestination,
    QuoteSource,
    RuleAmount,
    TemplateDestination,
    TemplateSource,
    TransactionTemplate,
    TransferInstructions,
    Trigger,
)

from .conftest import customer_body, ok, transaction_body


def sent_json(request: httpx.Request):
    return json.loads(request.content)


def no_floats(value) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(no_floats(v) for v in value.values())
    if isinstance(value, list):
        return all(no_floats(v) for v in value)
    return True


# --- Decimals ---------------------------------------------------------------------------------


def test_amounts_and_rates_are_decimals(make_client):
    client, _ = make_client(ok(transaction_body()))

    transaction = client.transactions.get(transaction_id="t-1")

    assert transaction.source.source_amount == Decimal("100.10")
    assert transaction.destination.exchange_rate == Decimal("0.9990")
    assert transaction.destination.destination_amount == Decimal("99.000001")
    assert transaction.fees.service_fee.fee_usd_amount == Decimal("1.00")
    assert transaction.fees.developer_fee.fee_amount == Decimal("0.10")
    assert transaction.destination.destination_currency.currency_decimals == 6
    assert transaction.created_at == datetime(2025, 11, 20, 10, tzinfo=UTC)


def test_json_numbers_in_answers_are_read_as_decimals_without_float_rounding(make_client):
    # 0.1 + 0.2 as floats is 0.30000000000000004; 18 decimals would not survive a float at all.
    raw = b'{"exchangeRate": 1.123456789012345678, "destinationAmount": 0.1, "feeComponents": []}'
    client, _ = make_client(httpx.Response(200, content=raw, headers={"Content-Type": "application/json"}))

    rate = client.exchange_rates.get(
        source_currency="USDC",
        source_payment_method="BASE",
        destination_payment_method="ACH",
        destination_currency="USD",
    )

    assert rate.exchange_rate == Decimal("1.123456789012345678")
    assert rate.destination_amount + Decimal("0.2") == Decimal("0.3")


def test_balance_reads_string_decimals_and_currency_decimals_as_string(make_client):
    body = {
        "paymentAccountId": "pa-1",
        "currency": {"label": "USDC", "chain": "BASE", "contractAddress": "0xabc", "currencyDecimals": "6"},
        "balance": "1234.567891",
        "usdValue": "1234.56",
    }
    client, upstream = make_client(ok(body))

    balance = client.payment_accounts.get_balance(payment_account_id="pa-1", chain="BASE", currency="USDC")

    assert balance.balance == Decimal("1234.567891")
    assert balance.usd_value == Decimal("1234.56")
    assert balance.currency.currency_decimals == 6
    request = upstream.requests[0]
    assert request.url.path == "/v1/payment-accounts/pa-1/balance"
    assert dict(request.url.params) == {"chain": "BASE", "currency": "USDC"}


def test_decimals_are_sent_as_strings_never_floats(make_client):
    quote = {
        "quoteId": "q-1",
        "expiresAt": "2025-11-20T10:05:00Z",
        "estimatedExchangeRate": "0.999",
        "destinationAmount": "99.9",
        "fees": {},
    }
    client, upstream = make_client(ok(quote))

    result = client.quotes.create(
        customer_id="c-1",
        source=QuoteSource(
            source_currency="USD",
            source_payment_method="ACH",
            source_amount=Decimal("100.10"),
            source_payment_account_id="pa-1",
        ),
        destination=QuoteDestination(
            destination_payment_account_id="pa-2", destination_payment_method="BASE", destination_currency="USDC"
        ),
        developer_fee=DeveloperFee(developer_fee_amount=Decimal("1E+1")),
        guarantee_quote=True,
    )

    body = sent_json(upstream.requests[0])
    assert body == {
        "customerId": "c-1",
        "source": {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": "100.10",
            "sourcePaymentAccountId": "pa-1",
        },
        "destination": {
            "destinationPaymentAccountId": "pa-2",
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
        "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "10"},
        "guaranteeQuote": True,
    }
    assert no_floats(json.loads(upstream.requests[0].content, parse_float=float))
    assert result.estimated_exchange_rate == Decimal("0.999")


def test_floats_are_refused_before_anything_is_sent(make_client):
    client, upstream = make_client(ok({}))

    with pytest.raises(TypeError, match="Decimal"):
        client.quotes.create(customer_id="c-1", source={"sourceAmount": 100.1}, destination={})

    assert upstream.requests == []


def test_exchange_rate_query_names_and_decimal_amount(make_client):
    client, upstream = make_client(ok({"exchangeRate": "1.0", "feeComponents": []}))

    client.exchange_rates.get(
        source_currency="USD",
        source_payment_method="ACH",
        source_amount=Decimal("250.00"),
        destination_payment_method="BASE",
        destination_currency="0xcontract",
    )

    assert dict(upstream.requests[0].url.params) == {
        "sourceCurrency": "USD",
        "sourcePaymentMethod": "ACH",
        "sourceAmount": "250.00",
        "destinationPaymentMethod": "BASE",
        "destinationCurrency": "0xcontract",
    }


def test_exchange_rate_without_amount_sends_no_amount(make_client):
    client, upstream = make_client(ok({"exchangeRate": "1.0"}))

    rate = client.exchange_rates.get(
        source_currency="USD",
        source_payment_method="ACH",
        destination_payment_method="BASE",
        destination_currency="USDC",
    )

    assert "sourceAmount" not in upstream.requests[0].url.params
    assert rate.destination_amount is None and rate.fee_components == []


def test_ownership_percentage_is_a_json_number_without_float_drift():
    kyb = KybData(associated_persons=[AssociatedPerson(ownership_percentage=Decimal("0.25"))])

    assert json.dumps(to_wire(kyb)) == '{"associatedPersons": [{"ownershipPercentage": 0.25}]}'
    with pytest.raises(ValueError):
        to_wire(AssociatedPerson(ownership_percentage=Decimal("0.1234567890123456789")))


# --- Open enums and extra fields ----------------------------------------------------------------


def test_unknown_enum_values_are_kept(make_client):
    body = customer_body(customerStatus="ON_HOLD", customerType="TRUST_ENTITY", riskScore=7)
    client, _ = make_client(ok(body))

    customer = client.customers.get(customer_id=body["customerId"])

    assert customer.customer_status == "ON_HOLD"
    assert isinstance(customer.customer_status, CustomerStatus)
    assert not customer.customer_status.is_known
    assert CustomerStatus.ACTIVE.is_known
    assert customer.customer_type == "TRUST_ENTITY"
    assert customer.model_extra == {"riskScore": 7}


def test_unknown_transaction_status_and_account_type_are_kept(make_client):
    account = {
        "paymentAccountId": "pa-1",
        "paymentAccountType": "SERVICE_CARD",
        "paymentAccountStatus": "FROZEN",
        "customerId": "c-1",
        "serviceCard": {"last4": "4242"},
    }
    client, _ = make_client(ok(transaction_body(transactionStatus="ON_HOLD")), ok(account))

    transaction = client.transactions.get(transaction_id="t-1")
    payment_account = client.payment_accounts.get(payment_account_id="pa-1")

    assert transaction.transaction_status == "ON_HOLD"
    assert isinstance(transaction.transaction_status, TransactionStatus)
    assert not transaction.transaction_status.is_terminal
    assert TransactionStatus.COMPLETED.is_terminal
    assert payment_account.payment_account_type == "SERVICE_CARD"
    assert not payment_account.payment_account_type.is_known
    assert payment_account.payment_account_status == "FROZEN"
    assert payment_account.model_extra == {"serviceCard": {"last4": "4242"}}
    assert PaymentAccountType("EXTERNAL_BANK_ACCOUNT") is PaymentAccountType.EXTERNAL_BANK_ACCOUNT


def test_transfer_instructions_variants(make_client):
    fiat = transaction_body()
    crypto = transaction_body(
        transferInstructions={
            "type": "crypto",
            "depositAddress": "0xdead",
            "chain": "BASE",
            "amount": "5.5",
            "memo": "m",
        }
    )
    other = transaction_body(transferInstructions={"type": "card", "cardLink": "https://pay.example"})
    client, _ = make_client(ok(fiat), ok(crypto), ok(other))

    first, second, third = (client.transactions.get(transaction_id=f"t-{n}").transfer_instructions for n in range(3))

    assert isinstance(first, FiatTransferInstructions)
    assert first.transfer_routing_number == "021000021" and first.transfer_iban is None
    assert isinstance(second, CryptoTransferInstructions)
    assert (second.deposit_address, second.chain, second.amount) == ("0xdead", "BASE", Decimal("5.5"))
    assert second.model_extra == {"memo": "m"}
    assert type(third) is TransferInstructions
    assert third.type == "card" and third.model_extra == {"cardLink": "https://pay.example"}


def test_payment_account_pending_bank_account(make_client):
    body = {
        "paymentAccountId": "",
        "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
        "paymentAccountStatus": "PENDING",
        "customerId": "c-1",
        "bankAccountFormLink": "https://forms.example/bank/tok",
    }
    client, upstream = make_client(ok(body, 201))

    account = client.payment_accounts.create(
        customer_id="c-1",
        payment_account_type=PaymentAccountType.EXTERNAL_BANK_ACCOUNT,
        nickname="Main",
        external_bank_account={"bankAccountType": "CHECKING", "bankAccountCurrency": "USD"},
    )

    assert account.is_awaiting_form
    assert account.created_at is None
    assert account.bank_account_form_link == "https://forms.example/bank/tok"
    assert sent_json(upstream.requests[0]) == {
        "customerId": "c-1",
        "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
        "nickname": "Main",
        "externalBankAccount": {"bankAccountType": "CHECKING", "bankAccountCurrency": "USD"},
    }


def test_webhook_secret_is_kept_out_of_reprs(make_client):
    body = {"webhookId": "w-1", "url": "https://x.io/h", "events": ["customer.update"], "secret": "whsec_abc"}
    client, upstream = make_client(ok(body, 201))

    endpoint = client.webhooks.create(url="https://x.io/h", events=["customer.update"])

    assert endpoint.secret.get_secret_value() == "whsec_abc"
    assert "whsec_abc" not in repr(endpoint)
    assert sent_json(upstream.requests[0]) == {"url": "https://x.io/h", "events": ["customer.update"]}


# --- Paths, methods, query names ----------------------------------------------------------------


def test_customer_operations_use_the_spec_paths(make_client):
    client, upstream = make_client(ok(customer_body()))

    client.customers.create(customer_type="INDIVIDUAL", email="a@example.com", first_name="Ada", last_name="L")
    client.customers.get(customer_id="c-1", include_payment_methods=True)
    client.customers.get(customer_id="c-1")
    client.customers.update(
        customer_id="c-1",
        kyc_data=KycData(national_id_type="ssn", national_id_number="1", national_id_issuing_country="US"),
    )

    create, read_with, read_without, patch = upstream.requests
    assert (create.method, create.url.path) == ("POST", "/v1/customers")
    assert sent_json(create) == {
        "customerType": "INDIVIDUAL",
        "email": "a@example.com",
        "firstName": "Ada",
        "lastName": "L",
    }
    assert (read_with.method, read_with.url.path, str(read_with.url.query, "ascii")) == (
        "GET",
        "/v1/customer/c-1",
        "includePaymentMethods=true",
    )
    assert read_without.url.query == b""
    assert (patch.method, patch.url.path) == ("PATCH", "/v1/customers/c-1")
    assert sent_json(patch) == {
        "kycData": {"nationalIdType": "ssn", "nationalIdNumber": "1", "nationalIdIssuingCountry": "US"}
    }


def test_automation_rule_operations(make_client):
    rule = {
        "id": "r-1",
        "name": "Sweep",
        "customerId": "c-1",
        "transactionTemplate": {
            "source": {
                "sourcePaymentAccountId": "pa-1",
                "sourcePaymentMethod": "BASE",
                "sourceCurrency": {"label": "USDC"},
            },
            "destination": {
                "destinationPaymentAccountId": "pa-2",
                "destinationPaymentMethod": "ACH",
                "destinationCurrency": {"label": "USD"},
            },
            "amount": {"value": "25.00", "type": "FLAT"},
            "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "0.50"},
        },
        "trigger": {"cronSchedule": "0 9 * * 1", "thresholdAmount": "100.00", "type": "THRESHOLD_BASED"},
        "createdAt": "2025-11-20T10:00:00Z",
    }
    client, upstream = make_client(ok(rule), ok(rule), ok(rule), ok({"automationRules": [rule], "nextPageToken": None}))
    template = TransactionTemplate(
        source=TemplateSource(source_payment_account_id="pa-1", source_payment_method="BASE", source_currency="USDC"),
        destination=TemplateDestination(
            destination_payment_account_id="pa-2", destination_payment_method="ACH", destination_currency="USD"
        ),
        amount=RuleAmount(value=Decimal("25.00")),
    )

    created = client.automation_rules.create(
        name="Sweep", customer_id="c-1", transaction_template=template, trigger=Trigger(cron_schedule="0 9 * * 1")
    )
    client.automation_rules.update(
        rule_id="r-1",
        name="Sweep 2",
        customer_id="c-1",
        transaction_template=template,
        trigger={"cronSchedule": "0 9 * * 2"},
    )
    client.automation_rules.get(rule_id="r-1")
    page = client.automation_rules.list(customer_id="c-1", source_payment_account_id="pa-1")

    assert isinstance(created, AutomationRule)
    assert created.transaction_template.amount.value == Decimal("25.00")
    assert created.transaction_template.source.source_currency.label == "USDC"
    assert created.trigger.threshold_amount == Decimal("100.00")
    create, put, get, listing = upstream.requests
    assert (create.method, create.url.path) == ("POST", "/v1/automation-rules")
    assert sent_json(create)["transactionTemplate"] == {
        "source": {"sourcePaymentAccountId": "pa-1", "sourcePaymentMethod": "BASE", "sourceCurrency": "USDC"},
        "destination": {
            "destinationPaymentAccountId": "pa-2",
            "destinationPaymentMethod": "ACH",
            "destinationCurrency": "USD",
        },
        "amount": {"value": "25.00"},
    }
    assert (put.method, put.url.path) == ("PUT", "/v1/automation-rules/r-1")
    assert sent_json(put)["id"] == "r-1" and sent_json(put)["name"] == "Sweep 2"
    assert (get.method, get.url.path) == ("GET", "/v1/automation-rules/r-1")
    assert dict(listing.url.params) == {"customerId": "c-1", "sourcePaymentAccountId": "pa-1"}
    assert [r.id for r in page.items] == ["r-1"] and page.next_page_token is None


def test_transaction_and_webhook_paths(make_client):
    client, upstream = make_client(
        ok(transaction_body()),
        ok({"message": "cancelled"}),
        ok({"webhooks": [{"webhookId": "w-1", "url": "https://x.io", "events": []}], "nextPageToken": None}),
        ok({"webhookId": "w-1"}),
        httpx.Response(204),
        ok({"deliveries": [{"deliveryId": "d-1", "eventType": "customer.update", "responseStatus": 500}]}),
    )

    client.transactions.get(transaction_id="t-1")
    client.transactions.cancel(transaction_id="t-1")
    endpoints = client.webhooks.list()
    client.webhooks.get(webhook_id="w-1")
    assert client.webhooks.delete(webhook_id="w-1") is None
    deliveries = client.webhooks.list_deliveries(webhook_id="w-1", page_size=5)

    assert [(r.method, r.url.path) for r in upstream.requests] == [
        ("GET", "/v1/transactions/t-1"),
        ("DELETE", "/v1/transactions/t-1"),
        ("GET", "/v1/webhooks"),
        ("GET", "/v1/webhooks/w-1"),
        ("DELETE", "/v1/webhooks/w-1"),
        ("GET", "/v1/webhooks/w-1/deliveries"),
    ]
    assert endpoints.items[0].secret is None
    assert deliveries.items[0].response_status == 500
    assert upstream.requests[-1].url.params["pageSize"] == "5"


# --- Pagination -------------------------------------------------------------------------------


@pytest.mark.parametrize("last", [{"nextPageToken": None}, {"nextPageToken": ""}, {}], ids=["null", "empty", "absent"])
def test_iteration_follows_the_cursor_and_stops_at_null_empty_or_absent(make_client, last):
    pages = [
        ok({"customers": [customer_body(name="one"), customer_body(name="two")], "nextPageToken": "t2"}),
        ok({"customers": [customer_body(name="three")], "nextPageToken": "t3"}),
        ok({"customers": [customer_body(name="four")], **last}),
    ]
    client, upstream = make_client(*pages, ok({"customers": [customer_body(name="never")]}))

    names = [customer.name for customer in client.customers.iter(organization_id="org-1")]

    assert names == ["one", "two", "three", "four"]
    assert [dict(r.url.params) for r in upstream.requests] == [
        {"pageSize": "100", "organizationId": "org-1"},
        {"pageSize": "100", "organizationId": "org-1", "pageToken": "t2"},
        {"pageSize": "100", "organizationId": "org-1", "pageToken": "t3"},
    ]


def test_iteration_is_lazy(make_client):
    client, upstream = make_client(
        ok({"paymentAccounts": [{"paymentAccountId": "a", "paymentAccountType": "X"}], "nextPageToken": "t2"}),
        ok({"paymentAccounts": [{"paymentAccountId": "b", "paymentAccountType": "X"}], "nextPageToken": None}),
    )

    accounts = client.payment_accounts.iter(customer_id="c-1", page_size=1)
    assert upstream.requests == []
    assert next(accounts).payment_account_id == "a"
    assert len(upstream.requests) == 1
    assert [a.payment_account_id for a in accounts] == ["b"]
    assert upstream.requests[1].url.params["customerId"] == "c-1"


def test_one_page_for_callers_that_page_themselves(make_client):
    client, upstream = make_client(ok({"customers": [customer_body()], "nextPageToken": "abc"}))

    page = client.customers.list(page_token="xyz", page_size=1)

    assert len(page.items) == 1 and page.next_page_token == "abc" and page.has_more
    assert dict(upstream.requests[0].url.params) == {"pageToken": "xyz", "pageSize": "1"}


def test_an_empty_token_on_a_page_means_no_more(make_client):
    client, _ = make_client(ok({"customers": [], "nextPageToken": ""}))

    page = client.customers.list()

    assert page.next_page_token is None and not page.has_more


def test_a_repeated_page_token_stops_the_iteration(make_client):
    client, _ = make_client(ok({"customers": [customer_body()], "nextPageToken": "same"}))

    with pytest.raises(UnexpectedResponse, match="repeated the page token"):
        list(client.customers.iter())
