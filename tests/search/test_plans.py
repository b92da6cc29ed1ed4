"""Every query of the search box can be served by an index on PostgreSQL: with sequential scans
priced out of reach, no statement of a search reads a large table from end to end. (A small
table is read whole by the planner whatever the indexes; priced out, a scan still shows when
no index fits, which is what this catches: an expression the index does not match.)"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import (
    AutomationRuleFactory,
    CustomerFactory,
    PaymentAccountFactory,
    QuoteFactory,
    TransactionFactory,
)

pytestmark = pytest.mark.django_db

LARGE_TABLES = ("customers_customer", "payments_transaction", "payments_paymentaccount", "payments_quote")
ADDRESS = "0xAbC0000000000000000000000000000000000def"


@pytest.fixture
def records():
    ada = CustomerFactory(
        name="Ada Lovelace", email="ada@example.com", customer_id="c0ffee11-0000-4000-8000-000000000001"
    )
    TransactionFactory(customer=ada, transaction_id="7e570000-0000-4000-8000-000000000001")
    QuoteFactory(customer=ada, quote_id="900e0000-0000-4000-8000-000000000001")
    AutomationRuleFactory(customer=ada, rule_id="a01e0000-0000-4000-8000-000000000001", name="Friday sweep")
    PaymentAccountFactory(customer=ada, bank=True, details={"bankAccountMask": "****6789"})
    PaymentAccountFactory(customer=ada, details={"address": {"address": ADDRESS, "chain": "BASE"}})


@pytest.mark.parametrize(
    "typed",
    [
        "Ada Lov",  # a name's start
        "Lovelace",  # a word inside a name
        "da Lovelace",  # words inside a name: the index reads the rarest, the rest is checked
        "ada@example.com",  # an e-mail
        "c0ffee11",  # an id's start (every kind)
        "7e570000-0000-4000-8000-000000000001",  # a full id
        "6789",  # the last digits of a bank account
        ADDRESS,  # a wallet address
        "0xabc000",  # its start
        "Friday",  # a rule's name
    ],
)
def test_no_search_reads_a_large_table_whole(client_as, records, typed):
    if connection.vendor != "postgresql":
        pytest.skip("the plans are PostgreSQL's; SQLite reads these small tables whole")
    client = client_as("admin")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("search"), {"q": typed})
    assert response.status_code in (200, 302)
    whole = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            if not query["sql"].startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (FORMAT JSON) " + query["sql"].replace("%", "%%"))
            whole += [(query["sql"], node) for node in reads_whole(cursor.fetchone()[0][0]["Plan"])]
    assert not whole, whole


def reads_whole(node: dict, table: str = "") -> list[str]:
    """The plan's nodes that read a large table without a condition that bounds them: a
    sequential scan, or an index scan with no Index Cond (a walk of the whole index)."""
    found = []
    kind, table = node["Node Type"], node.get("Relation Name", table)
    if table in LARGE_TABLES:
        if kind == "Seq Scan":
            found.append(f"{kind} on {table}")
        if kind in ("Index Scan", "Index Only Scan", "Bitmap Index Scan") and "Index Cond" not in node:
            found.append(f"{kind} using {node.get('Index Name')} without a condition")
    for child in node.get("Plans", []):
        # A Bitmap Index Scan names no table: it is its Bitmap Heap Scan's.
        found += reads_whole(child, table if kind == "Bitmap Heap Scan" else "")
    return found
