"""Property: every amount field reads any text the same careful way, in the sandbox and in the
back-office. Huge, tiny, exponent, signed, negative zero, many places, not a number: the
sandbox answers 2xx or a 400 whose details name the field, never a 500; the back-office's
forms accept the amount or put a message on that field, and what they accept goes to the API
as plain decimal text.

The sandbox imports nothing of the project and the back-office nothing of the sandbox (the
sandbox stands for a service of its own), so each has its one parser (`sandbox/rates.py`
`decimal_string`, `payments/forms/fields.py` `parse_amount`): this module holds them to the
same cases.
"""

import os
import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.forms.fields import AmountField, amount_text, parse_amount
from payments.forms.rates import ExchangeRateForm
from payments.forms.rules import AutomationRuleForm
from payments.forms.transactions import PreviewForm
from tests.payments.transactions_helpers import sandbox_customer

EXAMPLES = int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "40"))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# The cases outside probes found, then any decimal, any digits, and any text.
KNOWN = [
    "12345678901234567890123456",
    "99999999999999999999999999.99",
    "99999999999999999999",
    "100000000000000000000",
    "0.000000001",
    "0.000000000000000000001",
    "1e5",
    "1E-9",
    "-0",
    "-0.00",
    "0",
    "+5",
    " 5",
    "5.",
    ".5",
    "1." + "1" * 40,
    "1." + "0" * 30,
    "0" * 40 + "1",
    "NaN",
    "Infinity",
    "1_000",
    "١٢٣",  # Arabic-Indic digits: int() takes them, the API does not
    "10.50",
]
amounts = st.one_of(
    st.sampled_from(KNOWN),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: format(d, "f")),
    st.from_regex(r"\A-?[0-9]{1,32}(\.[0-9]{0,32})?([eE][-+]?[0-9]{1,3})?\Z"),
    st.text(max_size=12),
)
PLAIN = re.compile(r"[0-9]+(\.[0-9]+)?")


# --- the sandbox ------------------------------------------------------------------------------


@pytest.fixture
def world(upstream, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600
    setup = sandbox_customer(upstream)
    service = upstream.call(
        "POST",
        "/payment-accounts",
        {
            "customerId": setup["customer_id"],
            "paymentAccountType": "SERVICE_CRYPTO_WALLET",
            "nickname": "Service wallet",
            "serviceCryptoWallet": {"cryptoWalletType": "EVM", "chain": "BASE"},
        },
    )
    return {**setup, "service": service}


def _quote(world, amount, fee):
    body = {
        "customerId": world["customer_id"],
        "source": {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": amount,
            "sourcePaymentAccountId": world["bank"]["paymentAccountId"],
        },
        "destination": {
            "destinationPaymentAccountId": world["wallet"]["paymentAccountId"],
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
    }
    if fee is not None:
        body["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": fee}
    return body


def _rule(world, amount="50.00", threshold="100", fee=None):
    template = {
        "source": {
            "sourcePaymentAccountId": world["service"]["paymentAccountId"],
            "sourcePaymentMethod": "BASE",
            "sourceCurrency": "USDC",
        },
        "destination": {
            "destinationPaymentAccountId": world["bank"]["paymentAccountId"],
            "destinationPaymentMethod": "ACH",
            "destinationCurrency": "USD",
        },
        "amount": {"value": amount},
    }
    if fee is not None:
        template["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": fee}
    return {
        "name": "Sweep",
        "customerId": world["customer_id"],
        "transactionTemplate": template,
        "trigger": {"thresholdAmount": threshold},
    }


# (field, how to send `amount` in it) -> (method, path, body or query)
SANDBOX_FIELDS = {
    ("source", "sourceAmount"): lambda w, a: ("POST", "/quotes", _quote(w, a, None)),
    ("developerFee", "developerFeeAmount"): lambda w, a: ("POST", "/quotes", _quote(w, "100.00", a)),
    ("sourceAmount",): lambda w, a: (
        "GET",
        "/exchange-rates",
        {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
            "sourceAmount": a,
        },
    ),
    ("transactionTemplate", "amount", "value"): lambda w, a: ("POST", "/automation-rules", _rule(w, amount=a)),
    ("transactionTemplate", "developerFee", "developerFeeAmount"): lambda w, a: (
        "POST",
        "/automation-rules",
        _rule(w, fee=a),
    ),
    ("trigger", "thresholdAmount"): lambda w, a: ("POST", "/automation-rules", _rule(w, threshold=a)),
    ("amount",): lambda w, a: (
        "POST",
        f"/test-helpers/payment-accounts/{w['service']['paymentAccountId']}/fund",
        {"currency": "USDC", "amount": a},
    ),
}


@pytest.mark.parametrize("field", list(SANDBOX_FIELDS), ids=".".join)
def test_the_sandbox_answers_every_amount_with_a_2xx_or_a_400_naming_the_field(upstream, world, field):
    @PROPERTY
    @given(amount=amounts)
    def check(amount):
        method, path, payload = SANDBOX_FIELDS[field](world, amount)
        if method == "GET":
            response = upstream.http.request(method, path, params=payload)
        else:
            response = upstream.http.request(method, path, json=payload)
        assert response.status_code < 500, (amount, response.status_code, response.text[:300])
        if response.status_code >= 400:
            assert response.status_code == 400, (amount, response.text[:300])
            body = response.json()
            assert body["code"] == "VALIDATION_ERROR", (amount, body)
            paths = [item["path"] for item in body["details"]]
            # Text that is no decimal string is refused on its own field; a decimal string may
            # also meet a rule of the whole request (fees larger than the amount, say).
            assert paths == [list(field)] or PLAIN.fullmatch(amount), (amount, body)
        elif not (method == "GET" and amount == ""):  # an empty query parameter is one not given
            assert PLAIN.fullmatch(amount), f"{amount!r} is not a decimal string, yet it was accepted"

    check()


# --- the back-office --------------------------------------------------------------------------


@PROPERTY
@given(text=amounts, positive=st.booleans(), places=st.sampled_from([2, 6, 18]))
def test_parse_amount_reads_plain_decimals_only_and_within_bounds(text, positive, places):
    from django import forms

    try:
        amount = parse_amount(text, positive=positive, places=places)
    except forms.ValidationError:
        return
    assert isinstance(amount, Decimal) and amount.is_finite()
    assert re.fullmatch(r"[0-9]*(\.[0-9]*)?", text)
    assert not positive or amount > 0
    assert amount < Decimal(10) ** 20
    assert -amount.as_tuple().exponent <= places
    # What goes to the API is a decimal string the sandbox's own reader takes back as is.
    sent = amount_text(amount)
    assert PLAIN.fullmatch(sent) and Decimal(sent) == amount


# (form, its amount fields, a valid base of the other fields)
FORMS = [
    (
        ExchangeRateForm,
        ["source_amount"],
        {
            "source_payment_method": "ACH",
            "source_currency": "USD",
            "destination_payment_method": "BASE",
            "destination_currency": "USDC",
        },
    ),
    (
        PreviewForm,
        ["amount", "developer_fee"],
        {
            "source_method": "ACH",
            "source_currency": "USD",
            "destination_method": "BASE",
            "destination_currency": "USDC",
        },
    ),
]


@pytest.mark.parametrize(("form_class", "fields", "base"), FORMS, ids=lambda v: getattr(v, "__name__", ""))
def test_every_amount_field_of_a_form_accepts_or_names_itself(form_class, fields, base):
    @PROPERTY
    @given(text=amounts, field=st.sampled_from(fields))
    def check(text, field):
        form = form_class(data={**base, field: text})
        if form.is_valid():
            value = form.cleaned_data[field]
            assert value is None or PLAIN.fullmatch(amount_text(value))
        else:
            assert set(form.errors) == {field}, (text, form.errors)

    check()


def test_every_money_field_of_the_payments_forms_is_an_amount_field():
    from payments.forms.transactions import QuoteForm

    for form_class in (ExchangeRateForm, PreviewForm, AutomationRuleForm, QuoteForm):
        for name, field in form_class.base_fields.items():
            if "amount" in name or "fee" in name:
                assert isinstance(field, AmountField), (form_class.__name__, name)
