"""The transactions list's filters the home page links to: source rail, source currency, and
transfers awaiting funds that expire soon."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from payments.models import TransactionStatus
from tests.factories import TransactionFactory

URL = reverse("payments-list-transactions")
pytestmark = pytest.mark.django_db


def ids(response) -> set[str]:
    assert response.status_code == 200
    return {tx.transaction_id for tx in response.context["page"].items}


@pytest.fixture
def operator(client_as):
    return client_as("operations")


def test_rail_and_currency_filter_on_the_source_side(operator):
    ach = TransactionFactory()
    sepa = TransactionFactory(source_payment_method="SEPA", source_currency="EUR")
    offramp = TransactionFactory(source_payment_method="BASE", source_currency="USDC")
    assert ids(operator.get(URL, {"rail": "SEPA"})) == {sepa.transaction_id}
    assert ids(operator.get(URL, {"currency": "USD"})) == {ach.transaction_id}
    assert ids(operator.get(URL, {"rail": "BASE", "currency": "USDC"})) == {offramp.transaction_id}


def test_expires_within_lists_what_has_not_expired_and_will_within_the_minutes(operator):
    now = timezone.now()
    soon = TransactionFactory(status_since=now - dt.timedelta(minutes=25))  # expires in 5 minutes
    TransactionFactory(status_since=now - dt.timedelta(minutes=5))  # in 25
    TransactionFactory(status_since=now - dt.timedelta(minutes=40))  # expired 10 minutes ago
    response = operator.get(URL, {"status": TransactionStatus.AWAITING_TRANSFER, "expires_within": 10})
    assert ids(response) == {soon.transaction_id}


def test_an_unknown_rail_is_a_filter_error_not_a_crash(operator):
    TransactionFactory()
    response = operator.get(URL, {"rail": "CARRIER_PIGEON"})
    assert ids(response) == set()
    assert b"Check the filters" in response.content
