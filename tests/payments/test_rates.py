"""The exchange-rate calculator, against the sandbox's rates."""

import pytest
from django.urls import reverse

from tests.faulty_api import api_error

URL = reverse("payments-calculate-exchange-rate")


@pytest.fixture
def reader(upstream, client_as):
    return client_as("compliance")


def query(**fields):
    return {
        "source_payment_method": "ACH",
        "source_currency": "",
        "destination_payment_method": "BASE",
        "destination_currency": "USDC",
        "source_amount": "",
        **fields,
    }


def test_empty_page_calls_nothing(client_as, faulty_upstream):
    response = client_as("operations").get(URL)
    assert response.status_code == 200
    assert '<label for="id_source_payment_method">From (rail or chain):</label>' in response.content.decode()
    assert faulty_upstream.requests == []


def test_rate_without_amount(reader):
    response = reader.get(URL, query())
    result = response.context["result"]
    assert str(result.exchange_rate) == "1"
    assert result.destination_amount is None
    assert [str(c.fee_type) for c in result.fee_components] == ["FLAT"]
    html = response.content.decode()
    assert (
        'USD (<span title="ACH">ACH</span>) → USDC (<span title="BASE">Base</span>)' in html
    )  # the rail's currency filled in
    assert "Received" not in html


def test_rate_with_amount_and_fx(reader):
    response = reader.get(URL, query(destination_currency="EURC", source_amount="250.00"))
    result = response.context["result"]
    assert result.destination_amount is not None and result.destination_amount > 0
    html = response.content.decode()
    assert f"{result.destination_amount} EURC" in html
    assert f"{result.fees.service_fee.fee_amount} USD" in html


def test_offramp_from_a_chain_to_a_rail(reader):
    response = reader.get(
        URL,
        query(source_payment_method="ETHEREUM", source_currency="ETH", destination_payment_method="SEPA",
              destination_currency="", source_amount="0.5"),
    )  # fmt: skip
    assert response.context["result"].destination_amount > 0
    assert (
        'ETH (<span title="ETHEREUM">Ethereum</span>) → EUR (<span title="SEPA">SEPA</span>)'
        in response.content.decode()
    )


def test_a_chain_needs_its_token(reader, faulty_upstream):
    response = reader.get(URL, query(destination_currency=""))
    assert response.context["form"].errors == {"destination_currency": ["Name the token for a chain (USDC, ETH, ...)."]}
    assert faulty_upstream.requests == []


def test_fiat_to_fiat_is_refused_by_the_api(reader):
    response = reader.get(URL, query(destination_payment_method="SEPA", destination_currency=""))
    assert response.status_code == 200
    assert response.context["result"] is None
    assert response.context["error"].startswith("The Payments API refused this:")
    assert "fiat to fiat" in response.context["error"]


def test_api_validation_errors_land_on_their_fields(reader):
    response = reader.get(URL, query(source_amount="10.001"))  # USD has 2 decimals
    assert list(response.context["form"].errors) == ["source_amount"]
    response = reader.get(URL, query(destination_currency="DOGE"))
    assert list(response.context["form"].errors) == ["destination_currency"]


def test_api_down(reader, faulty_upstream):
    faulty_upstream.answer(api_error(503, "SERVICE_UNAVAILABLE", "upstream connect error"))
    response = reader.get(URL, query(), headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "The Payments API did not answer; try again." in html and "upstream connect error" not in html
    assert "<html" not in html and 'id="calculator"' in html


def test_every_rail_of_the_spec_prices_an_onramp(reader):
    from payments.rails import CHAINS, RAILS

    assert len(RAILS) == 56 and len(CHAINS) == 6
    for rail in RAILS:
        response = reader.get(URL, query(source_payment_method=rail))
        assert response.context["result"] is not None, (rail, response.context["form"].errors)
