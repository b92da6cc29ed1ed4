from decimal import ROUND_DOWN, Decimal

import pytest

from sandbox.rates import table

from .conftest import SandboxClient, assert_error

RAILS = [
    "ACH", "WIRE", "SEPA", "AE_UAEFTS", "AR_TRANSFERS_3", "AU_BECS", "BD_BEFTN", "BO_RTGS", "BR_TED_DOC_PIX",
    "CA_INTERAC", "CL_TEF", "CN_CNAPS", "CO_ACH", "CR_SINPE", "CZ_CERTIS", "DK_NEMKONTO_FI", "DO_ACH", "EC_LOCAL",
    "EG_RTGS_IPN", "GB_BACS_CHAPS_FPS", "GH_GHIPSS", "GT_ACH", "HK_HKICL_CHATS_ECG", "HU_GIRO", "ID_SKN_RTGS",
    "IL_ZAHAV", "IN_NEFT_RTGS_IMPS", "JM_LOCAL", "JO_ACH", "JP_ZENGIN", "KE_KIBBS_PESALINK", "KR_LOCAL", "LK_LOCAL",
    "MX_SPEI", "MY_IBG_RENTAS", "NG_NIBSS_NEFT", "NO_NICS", "NP_LOCAL", "NZ_LOCAL", "PE_CCE", "PH_INSTAPAY_PESONET",
    "PK_RAAST_IBFT", "PL_ELIXIR_BLUE_CASH", "QA_QPS", "RO_RTGS", "SA_MADA", "SE_BANKGIROT", "SG_FAST_MEPS",
    "SV_LOCAL", "SWIFT", "TH_BAHTNET_PROMPTPAY", "TR_FAST_EFT", "TZ_RTGS", "VN_IBPS", "ZA_RTGS_EFT", "ACH_SAME_DAY",
]  # fmt: skip
CHAINS = ["ARBITRUM", "BASE", "ETHEREUM", "OPTIMISM", "POLYGON", "SOLANA"]


def query(**overrides):
    params = {
        "sourceCurrency": "USD",
        "sourcePaymentMethod": "ACH",
        "destinationPaymentMethod": "BASE",
        "destinationCurrency": "USDC",
    }
    return {**params, **overrides}


def test_every_spec_rail_and_chain_is_known():
    assert len(RAILS) == 56
    assert list(table().rails) == RAILS or set(table().rails) == set(RAILS)
    assert list(table().chains) == CHAINS


@pytest.mark.parametrize("rail", RAILS)
def test_every_rail_has_a_rate_in_its_currency(api, rail):
    currency = table().rail_currency(rail)
    amount = table().fiat[currency].quantize(1000 * table().fiat[currency].per_usd)  # about 1000 USD
    response = api.get(
        "/exchange-rates", query(sourcePaymentMethod=rail, sourceCurrency=currency, sourceAmount=str(amount))
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert Decimal(body["exchangeRate"]) > 0
    assert body["fees"]["feeCurrency"] == {"label": currency}


@pytest.mark.parametrize(
    ("rail", "currency"),
    [
        ("ACH", "USD"), ("WIRE", "USD"), ("ACH_SAME_DAY", "USD"), ("SWIFT", "USD"), ("SEPA", "EUR"),
        ("GB_BACS_CHAPS_FPS", "GBP"), ("MX_SPEI", "MXN"), ("BR_TED_DOC_PIX", "BRL"), ("IN_NEFT_RTGS_IMPS", "INR"),
        ("EC_LOCAL", "USD"), ("SV_LOCAL", "USD"), ("JP_ZENGIN", "JPY"), ("CA_INTERAC", "CAD"),
    ],
)  # fmt: skip
def test_rail_currencies(rail, currency):
    assert table().rail_currency(rail) == currency


def test_without_amount_only_the_rate_and_flat_fee(api):
    body = api.get("/exchange-rates", query()).json()
    assert body == {
        "exchangeRate": "1",
        "feeComponents": [{"feeType": "FLAT", "feeAmount": "0.50", "feeCurrency": {"label": "USD"}}],
    }


def test_with_amount_fees_and_destination_amount(api):
    body = api.get("/exchange-rates", query(sourceAmount="250.00", destinationCurrency="EURC")).json()
    rate = Decimal(body["exchangeRate"])
    # EURC is worth EUR: FX, so the 30 bps spread comes off the 0.92 mid-rate.
    assert rate == Decimal("0.92") * (1 - Decimal("0.0030"))
    flat, percentage = body["feeComponents"]
    assert flat == {"feeType": "FLAT", "feeAmount": "0.50", "feeCurrency": {"label": "USD"}}
    assert percentage["feeType"] == "PERCENTAGE" and percentage["feeAmount"] == "0.62"  # 0.625 half-even
    fee = Decimal(flat["feeAmount"]) + Decimal(percentage["feeAmount"])
    assert body["fees"] == {
        "feeCurrency": {"label": "USD"},
        "serviceFee": {"feeAmount": str(fee), "feeUSDAmount": str(fee)},
    }
    expected = ((Decimal("250.00") - fee) * rate).quantize(Decimal("0.000001"), rounding=ROUND_DOWN)
    assert Decimal(body["destinationAmount"]) == expected
    assert body["destinationAmount"] == str(expected)


def test_offramp_fees_are_in_the_source_currency(api):
    params = {
        "sourceCurrency": "ETH",
        "sourcePaymentMethod": "ETHEREUM",
        "sourceAmount": "2",
        "destinationPaymentMethod": "SEPA",
        "destinationCurrency": "EUR",
    }
    body = api.get("/exchange-rates", params).json()
    assert body["fees"]["feeCurrency"] == {"label": "ETH", "chain": "ETHEREUM", "currencyDecimals": 18}
    assert body["fees"]["serviceFee"]["feeUSDAmount"] == "17.00"  # 2.00 flat + 0.25% of 6000
    assert Decimal(body["exchangeRate"]) == (Decimal("3000") * Decimal("0.92") * Decimal("0.997")).quantize(
        Decimal("1e-10")
    )
    net = Decimal(2) - Decimal(body["fees"]["serviceFee"]["feeAmount"])
    assert Decimal(body["destinationAmount"]) == (net * Decimal(body["exchangeRate"])).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN
    )


def test_currency_by_contract_address(api):
    address = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
    for given in (address, address.lower()):
        response = api.get("/exchange-rates", query(destinationPaymentMethod="ETHEREUM", destinationCurrency=given))
        assert response.status_code == 200


def test_matches_a_quote_without_developer_fee(api, onramp):
    quote = onramp["quote"]()
    rate = api.get("/exchange-rates", query(sourceAmount="100.00")).json()
    assert rate["destinationAmount"] == quote["destinationAmount"]
    assert rate["exchangeRate"] == quote["estimatedExchangeRate"]


@pytest.mark.parametrize(
    ("params", "path", "hint"),
    [
        ({"sourcePaymentMethod": "FEDWIRE"}, "sourcePaymentMethod", "ACH_SAME_DAY"),
        ({"destinationPaymentMethod": "base"}, "destinationPaymentMethod", "SOLANA"),
        ({"sourceCurrency": "EUR"}, "sourceCurrency", "USD"),
        ({"destinationCurrency": "DAI"}, "destinationCurrency", "USDC, EURC, ETH"),
        ({"sourceAmount": "ten"}, "sourceAmount", "decimal"),
        ({"sourceAmount": "0"}, "sourceAmount", "greater than 0"),
        ({"sourceAmount": "1.001"}, "sourceAmount", "2 decimal places"),
        ({"sourceAmount": "0.10"}, "sourceAmount", "does not cover the fees"),
    ],
)
def test_bad_queries(api, params, path, hint):
    body = assert_error(api.get("/exchange-rates", query(**params)), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == [path]
    assert body["details"][0]["location"] == "query"
    assert hint in body["details"][0]["message"]


def test_missing_parameters(api):
    details = assert_error(api.get("/exchange-rates"), 400, "VALIDATION_ERROR")["details"]
    assert {d["path"][0] for d in details} == {
        "sourceCurrency",
        "sourcePaymentMethod",
        "destinationPaymentMethod",
        "destinationCurrency",
    }


def test_unsupported_pairs(api):
    fiat = query(destinationPaymentMethod="SEPA", destinationCurrency="EUR")
    assert "fiat to fiat" in assert_error(api.get("/exchange-rates", fiat), 400, "BAD_REQUEST")["message"]
    crypto = query(sourcePaymentMethod="BASE", sourceCurrency="USDC")
    assert "crypto to crypto" in assert_error(api.get("/exchange-rates", crypto), 400, "BAD_REQUEST")["message"]


def test_needs_a_key(db):
    assert_error(SandboxClient(None).get("/exchange-rates", query()), 401, "UNAUTHORIZED")


def test_the_shift_helper_moves_a_rate_off_the_snapshot_and_back(api):
    moved = api.post("/test-helpers/exchange-rates/shift", {"currency": "USDC", "bps": 100})
    assert moved.json() == {"currency": "USDC", "bps": 100}
    body = api.get("/exchange-rates", query(sourceAmount="100.00")).json()
    assert body["exchangeRate"] == "1.01"
    assert body["destinationAmount"] == "100.242500"  # (100.00 - 0.75 fees) x 1.01
    api.post("/test-helpers/exchange-rates/shift", {"currency": "USDC", "bps": 0})
    assert api.get("/exchange-rates", query()).json()["exchangeRate"] == "1"


def test_the_shift_helper_refuses_an_unknown_currency_and_a_wild_move(api):
    assert_error(
        api.post("/test-helpers/exchange-rates/shift", {"currency": "XYZ", "bps": 10}), 400, "VALIDATION_ERROR"
    )
    assert_error(
        api.post("/test-helpers/exchange-rates/shift", {"currency": "EUR", "bps": 9000}), 400, "VALIDATION_ERROR"
    )
