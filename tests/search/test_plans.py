"""Every query of the search box can be served by an index on PostgreSQL: with sequential scans
priced out of reach, no statement of a search reads a large table from end to end. (A small
table is read whole by the planner whatever the indexes; priced out, a scan still shows when
no index fits, which is what this catches: an expression the index does not match.)"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from search.kinds import WORD_CANDIDATES
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
    sequential scan, or an index scan with no Index Cond (a walk of the whole index). Not a walk
    of the customers' key: the way to words inside a name reads its candidates by key when the
    planner expects the word in many names (on these few rows it always does), and what it reads
    is bounded by test_a_word_inside_names_reads_at_most_its_candidates, on enough rows to be
    planned as at full size."""
    found = []
    kind, table = node["Node Type"], node.get("Relation Name", table)
    key_walk = node.get("Index Name") == "customers_customer_pkey"
    if table in LARGE_TABLES and not key_walk:
        if kind == "Seq Scan":
            found.append(f"{kind} on {table}")
        if kind in ("Index Scan", "Index Only Scan", "Bitmap Index Scan") and "Index Cond" not in node:
            found.append(f"{kind} using {node.get('Index Name')} without a condition")
    for child in node.get("Plans", []):
        # A Bitmap Index Scan names no table: it is its Bitmap Heap Scan's.
        found += reads_whole(child, table if kind == "Bitmap Heap Scan" else "")
    return found


def rows_read(node: dict, table: str) -> int:
    """The rows the plan's scans of `table` read: found, and removed by their filters."""
    read = 0
    if node.get("Relation Name") == table and "Scan" in node["Node Type"]:
        read += (
            node["Actual Rows"] + node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
        )
    if node["Node Type"] == "Bitmap Index Scan" and node.get("Index Name", "").startswith("customer"):
        read += node["Actual Rows"]
    return read + sum(rows_read(child, table) for child in node.get("Plans", []))


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("ustomer", ["Customer 1", "Customer 2"]),  # in every name: the first names by key
        ("ustomer 77", ["Customer 77", "Customer 770"]),  # "77" has no trigram: "ustomer" is looked up
        ("stomer nobody", []),  # a common word, the whole text in no name
        ("ovelace", ["Ada Lovelace"]),  # in few names: by the trigram index
    ],
)
def test_a_word_inside_names_reads_at_most_its_candidates(client_as, typed, expected):
    """Among 30,000 customers, as the planner sees them after ANALYZE: a word in every name is
    not looked up in the trigram index (which would read all 30,000 of its rows before the
    first), but read by key until WORD_CANDIDATES names hold it; a rare word by the index."""
    if connection.vendor != "postgresql":
        pytest.skip("the plans are PostgreSQL's")
    CustomerFactory(name="Ada Lovelace")
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customer (customer_id, organization_id, customer_type, status, name, email,
                verification_link, available_payment_methods, status_since, first_seen_at, synced_at,
                missing_upstream, case_decision, escalation_level, open_monitoring_alerts, open_screening_alerts)
            SELECT 'bulk-' || i, 'org', 'INDIVIDUAL', 'ACTIVE', 'Customer ' || i, 'c' || i || '@example.com', '',
                   '[]'::jsonb, now(), now(), now(), false, '', 0, 0, 0
            FROM generate_series(1, 30000) AS i
            """
        )
        cursor.execute("ANALYZE customers_customer")
    client = client_as("admin")
    with CaptureQueriesContext(connection) as captured:
        page = client.get(reverse("search"), {"q": typed, "kind": "customers"}).content.decode()
    statement = next(
        q["sql"] for q in captured.captured_queries if "customers_customer" in q["sql"] and "UNION" in q["sql"]
    )
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement.replace("%", "%%"))
        plan = cursor.fetchone()[0][0]["Plan"]
    # The candidates read, and with more words each looked up once more to check the whole text.
    assert rows_read(plan, "customers_customer") <= 2 * WORD_CANDIDATES + 100
    for name in expected:
        assert f">{name}<" in page
    if not expected:
        assert "Customer 1<" not in page
