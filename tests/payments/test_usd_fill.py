"""The migration that added usd_value fills it with one UPDATE in SQL: its figures are those of
payments.usd, for every currency of the table, on SQLite and on PostgreSQL alike."""

from decimal import Decimal

import pytest
from django.db import connection

from payments.models import Transaction
from payments.usd import UNITS_PER_USD, transaction_usd_value, usd_value_fill_sql
from tests.factories import TransactionFactory

# Typical amounts, amounts a cent's half away from a boundary in USD, and large ones.
AMOUNTS = [
    "0",
    "0.01",
    "0.005",
    "0.015",
    "0.025",
    "1",
    "9.99",
    "100.125",
    "100.135",
    "9900.5",
    "12345.678901",
    "2500000",
]
FIELDS = ("source_amount", "source_currency", "destination_amount", "destination_currency")


def _fill() -> None:
    Transaction.objects.update(usd_value=None)
    table = connection.ops.quote_name(Transaction._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(usd_value_fill_sql(table, connection.vendor))


def _rows(pairs):
    for source, destination in pairs:
        TransactionFactory(
            source_amount=source[0],
            source_currency=source[1],
            destination_amount=destination[0],
            destination_currency=destination[1],
        )


def _assert_same_as_python() -> int:
    rows = list(Transaction.objects.values("usd_value", *FIELDS))
    wrong = [
        (row, transaction_usd_value(**{f: row[f] for f in FIELDS}))
        for row in rows
        if row["usd_value"] != transaction_usd_value(**{f: row[f] for f in FIELDS})
    ]
    assert not wrong, wrong[:5]
    return len(rows)


@pytest.mark.django_db
def test_sql_fill_matches_python_for_every_currency():
    pairs = [((Decimal(a), code), (None, "")) for code in UNITS_PER_USD for a in AMOUNTS]
    _rows(pairs)
    _fill()
    assert _assert_same_as_python() == len(UNITS_PER_USD) * len(AMOUNTS)
    # Not all the same: the table's rates reach the figures.
    assert Transaction.objects.filter(source_currency="EUR", source_amount=Decimal("9.99")).get().usd_value == (
        Decimal("10.86")
    )


@pytest.mark.django_db
def test_sql_fill_falls_back_on_the_destination_and_leaves_unknowns_empty():
    _rows(
        [
            ((Decimal("50"), "usdc"), (Decimal("45"), "EUR")),  # lower case: still known
            ((Decimal("50"), "XYZ"), (Decimal("46"), "EUR")),  # unknown source: the destination's value
            ((None, "USD"), (Decimal("0.0046"), "EUR")),  # no source amount; a half cent, to even
            ((Decimal("50"), ""), (Decimal("1"), "ZZZ")),  # neither known
            ((Decimal("0.1"), "ETH"), (Decimal("1"), "USD")),  # the exact price, not the rounded rate
        ]
    )
    _fill()
    _assert_same_as_python()
    values = list(Transaction.objects.order_by("pk").values_list("usd_value", flat=True))
    assert values == [Decimal("50.00"), Decimal("50.00"), Decimal("0.00"), None, Decimal("300.00")]
