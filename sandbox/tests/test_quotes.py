import datetime as dt
import uuid
from decimal import ROUND_DOWN, Decimal

import pytest

from sandbox import clock

from .conftest import assert_error, quote_body


def parse(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))


def test_onramp_quote(api, onramp):
    before = clock.now()
    quote = onramp["quote"]()
    assert set(quote) == {"quoteId", "expiresAt", "estimatedExchangeRate", "destinationAmount", "fees"}
    uuid.UUID(quote["quoteId"])
    expires = parse(quote["expiresAt"])
    assert before + dt.timedelta(minutes=5) <= expires <= clock.now() + dt.timedelta(minutes=5)
    assert quote["estimatedExchangeRate"] == "1"  # USD -> USDC is not FX: no spread
    assert quote["fees"] == {
        "feeCurrency": {"label": "USD"},
        "serviceFee": {"feeAmount": "0.75", "feeUSDAmount": "0.75"},
        "developerFee": {"feeAmount": "0.00", "feeUSDAmount": "0.00"},
    }
    assert quote["destinationAmount"] == "99.250000"


def identity(quote, source_amount: str, places: str) -> bool:
    fees = quote["fees"]
    net = Decimal(source_amount) - Decimal(fees["serviceFee"]["feeAmount"]) - Decimal(fees["developerFee"]["feeAmount"])
    expected = (net * Decimal(quote["estimatedExchangeRate"])).quantize(Decimal(places), rounding=ROUND_DOWN)
    return Decimal(quote["destinationAmount"]) == expected


def test_rate_times_amount_less_fees_is_the_destination_amount(api, onramp, make_account):
    customer_id = onramp["customer_id"]
    euro = make_account(customer_id, "auto_fiat")
    wallet = make_account(
        customer_id,
        "wallet",
        externalCryptoWallet={"currency": "EURC", "address": {"address": "0x" + "12" * 20, "chain": "BASE"}},
    )
    body = quote_body(
        customer_id,
        euro["paymentAccountId"],
        wallet["paymentAccountId"],
        source={"sourceCurrency": "EUR", "sourcePaymentMethod": "SEPA", "sourceAmount": "1234.56"},
        destination={"destinationCurrency": "EURC"},
        developerFee={"developerFeeType": "USD", "developerFeeAmount": "2.50"},
    )
    quote = api.post("/quotes", body).json()
    assert identity(quote, "1234.56", "0.000001")
    # The USD developer fee is charged in the source currency at the mid-rate.
    assert quote["fees"]["developerFee"] == {"feeAmount": "2.30", "feeUSDAmount": "2.50"}
    assert quote["estimatedExchangeRate"] == "1"  # EUR -> EURC is not FX

    usd = onramp["quote"](
        source={"sourceAmount": "1000.00"}, developerFee={"developerFeeType": "USD", "developerFeeAmount": "3"}
    )
    assert identity(usd, "1000.00", "0.000001")


def test_guaranteed_quote_adds_five_bps_on_fx_only(api, onramp, make_account):
    customer_id = onramp["customer_id"]
    eurc = make_account(
        customer_id,
        "wallet",
        externalCryptoWallet={"currency": "EURC", "address": {"address": "0x" + "34" * 20, "chain": "BASE"}},
    )
    fx = {"destination": {"destinationPaymentAccountId": eurc["paymentAccountId"], "destinationCurrency": "EURC"}}
    plain = onramp["quote"](**fx)
    guaranteed = onramp["quote"](guaranteeQuote=True, **fx)
    mid = Decimal("0.92")
    assert Decimal(plain["estimatedExchangeRate"]) == mid * (1 - Decimal("0.0030"))
    assert Decimal(guaranteed["estimatedExchangeRate"]) == mid * (1 - Decimal("0.0035"))
    assert identity(guaranteed, "100.00", "0.000001")
    assert onramp["quote"](guaranteeQuote=True)["estimatedExchangeRate"] == "1"


def test_offramp_quote(api, onramp):
    body = quote_body(
        onramp["customer_id"],
        onramp["wallet"]["paymentAccountId"],
        onramp["bank"]["paymentAccountId"],
        source={"sourceCurrency": "USDC", "sourcePaymentMethod": "BASE", "sourceAmount": "50.123456"},
        destination={"destinationCurrency": "USD", "destinationPaymentMethod": "ACH"},
    )
    quote = api.post("/quotes", body).json()
    assert quote["fees"]["feeCurrency"]["label"] == "USDC"
    assert quote["fees"]["serviceFee"]["feeAmount"] == "0.225309"  # 0.10 flat + 0.25%
    assert identity(quote, "50.123456", "0.01")


def test_builder_tier_developer_fee_covers_the_service_fee(api_key, make_api, onramp):
    builder = make_api(tier="builder", organization_id=api_key[0].organization_id)
    body = quote_body(onramp["customer_id"], onramp["bank"]["paymentAccountId"], onramp["wallet"]["paymentAccountId"])
    details = assert_error(builder.post("/quotes", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["developerFee", "developerFeeAmount"]
    assert "0.75 USD" in details[0]["message"]
    low = {**body, "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "0.74"}}
    assert_error(builder.post("/quotes", low), 400, "VALIDATION_ERROR")
    enough = {**body, "developerFee": {"developerFeeType": "USD", "developerFeeAmount": "0.75"}}
    assert builder.post("/quotes", enough).status_code == 201


@pytest.mark.parametrize("status", ["CREATED", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION", "DEACTIVATED"])
def test_only_active_customers(api, customer_factory, onramp, status):
    customer = customer_factory(status)
    body = quote_body(customer["customerId"], onramp["bank"]["paymentAccountId"], onramp["wallet"]["paymentAccountId"])
    message = assert_error(api.post("/quotes", body), 400, "BAD_REQUEST")["message"]
    assert status in message and "ACTIVE" in message


def test_accounts_must_belong_to_the_customer(api, make_api, customer_factory, make_account, onramp):
    stranger = customer_factory("ACTIVE")["customerId"]
    theirs = make_account(stranger, "wallet")
    mine = onramp["bank"]["paymentAccountId"]
    body = quote_body(onramp["customer_id"], mine, theirs["paymentAccountId"])
    assert "does not belong" in assert_error(api.post("/quotes", body), 400, "BAD_REQUEST")["message"]
    # A third party's account, registered by another customer of the organization, may be paid into...
    third = make_account(stranger, "wallet", isThirdParty=True)
    assert api.post("/quotes", quote_body(onramp["customer_id"], mine, third["paymentAccountId"])).status_code == 201
    # ...but is never a source of funds.
    own_third = make_account(onramp["customer_id"], "bank", isThirdParty=True)
    body = quote_body(onramp["customer_id"], own_third["paymentAccountId"], onramp["wallet"]["paymentAccountId"])
    assert "third party" in assert_error(api.post("/quotes", body), 400, "BAD_REQUEST")["message"]

    missing = str(uuid.uuid4())
    body = quote_body(onramp["customer_id"], mine, missing)
    assert (
        assert_error(api.post("/quotes", body), 404, "NOT_FOUND")["message"] == f"Payment account {missing} not found"
    )
    other = make_api()
    foreign = make_account(customer_factory("ACTIVE", client=other)["customerId"], "wallet", client=other)
    body = quote_body(onramp["customer_id"], mine, foreign["paymentAccountId"])
    assert_error(api.post("/quotes", body), 403, "FORBIDDEN")
    assert_error(
        other.post("/quotes", quote_body(onramp["customer_id"], mine, foreign["paymentAccountId"])), 403, "FORBIDDEN"
    )


@pytest.mark.parametrize(
    ("overrides", "path"),
    [
        ({"source": {"sourcePaymentMethod": "WIRE"}}, ["source", "sourcePaymentMethod"]),
        ({"destination": {"destinationPaymentMethod": "ETHEREUM"}}, ["destination", "destinationPaymentMethod"]),
        ({"destination": {"destinationCurrency": "ETH"}}, ["destination", "destinationCurrency"]),
        ({"source": {"sourceAmount": 100}}, ["source", "sourceAmount"]),
        ({"source": {"sourceAmount": "1e3"}}, ["source", "sourceAmount"]),
        ({"source": {"sourceAmount": "0.50"}}, ["source", "sourceAmount"]),
        ({"source": {"sourcePaymentMethod": "ACHX"}}, ["source", "sourcePaymentMethod"]),
        (
            {"developerFee": {"developerFeeType": "EUR", "developerFeeAmount": "1"}},
            ["developerFee", "developerFeeType"],
        ),
        (
            {"developerFee": {"developerFeeType": "USD", "developerFeeAmount": "-1"}},
            ["developerFee", "developerFeeAmount"],
        ),
        ({"guaranteeQuote": "yes"}, ["guaranteeQuote"]),
        ({"customerId": "x"}, ["customerId"]),
    ],
)
def test_validation(api, onramp, overrides, path):
    body = quote_body(
        onramp["customer_id"], onramp["bank"]["paymentAccountId"], onramp["wallet"]["paymentAccountId"], **overrides
    )
    details = assert_error(api.post("/quotes", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == path


def test_crypto_to_crypto_is_refused(api, onramp, make_account):
    service = make_account(onramp["customer_id"], "service_wallet")
    body = quote_body(
        onramp["customer_id"],
        service["paymentAccountId"],
        onramp["wallet"]["paymentAccountId"],
        source={"sourceCurrency": "USDC", "sourcePaymentMethod": "BASE"},
    )
    assert_error(api.post("/quotes", body), 400, "BAD_REQUEST")


def test_keys_and_customers(api, api_key, make_api, onramp):
    body = quote_body(onramp["customer_id"], onramp["bank"]["paymentAccountId"], onramp["wallet"]["paymentAccountId"])
    read_only = make_api(read_only=True, organization_id=api_key[0].organization_id)
    assert_error(read_only.post("/quotes", body), 403, "FORBIDDEN")
    missing = str(uuid.uuid4())
    response = api.post("/quotes", {**body, "customerId": missing})
    assert assert_error(response, 404, "NOT_FOUND")["message"] == f"Customer {missing} not found"


def test_quote_creation_is_cheap(api, onramp, django_assert_max_num_queries):
    body = quote_body(onramp["customer_id"], onramp["bank"]["paymentAccountId"], onramp["wallet"]["paymentAccountId"])
    # key, customer, both accounts (one query), rate shifts, clock, insert; plus the savepoint pair.
    with django_assert_max_num_queries(8):
        assert api.post("/quotes", body).status_code == 201
