"""The search box at full size: each kind of query staff type, timed through the whole page.

Builds bench/sweep.py's data (1,000,000 customers, 5,000,000 transactions by default) and adds
a payment account per customer (half bank accounts with a mask, half wallets with an
address), quotes and rules, then requests /search/?q=… as an admin (every kind searched) for
each case: a common and a rare name start, a word inside a name, an e-mail and its start, the
full id and the start of the id of each kind, the last digits of a bank account, a wallet
address and its start, a colleague. Each case is also EXPLAINed: a sequential scan of a large
table in any of its statements is reported. Prints one JSON object.

    .venv/bin/python bench/search_box.py --customers 50000 --transactions 250000   # small
    .venv/bin/python bench/search_box.py        # full size
    .venv/bin/python bench/search_box.py --keep      # the data kept; --reuse measures it again

(Not bench/search.py: run from bench/, that name would hide the project's `search` package
from the other benchmarks.)
"""

import argparse
import json
import os
import sys
import warnings
from urllib.parse import urlencode

warnings.filterwarnings("ignore", message="No directory at")

LARGE_TABLES = ("customers_customer", "payments_transaction", "payments_paymentaccount", "payments_quote")


def cases(customers: int) -> list[tuple[str, str, int]]:
    """(what staff type, the query, the status expected: 200 results or 302 to the record)."""
    from hashlib import md5

    def h(text: str) -> str:
        return md5(text.encode()).hexdigest()  # noqa: S324 (the builder's ids)

    rare = customers // 2 + 1234
    wallet = 2 * (customers // 4) + 1  # an odd row: a wallet
    address = "0x" + h(f"w{wallet}") + h(f"x{wallet}")[:8]
    return [
        # The same page without a search: what the rest of the request costs on this machine.
        ("the page, no query", "", 200),
        ("name, common start", "Customer 1", 200),
        ("name, rare start", f"Customer {rare}", 200),
        ("word inside a name", f"{rare}", 200),
        ("inside a name, only common letters", f"ustomer {rare}", 200),
        ("a word inside every name", "ustomer", 200),
        ("a word inside every name, and one in none", "stomer nobody", 200),
        ("e-mail", f"c{rare}@example.com", 200),
        ("e-mail, start", f"c{rare}@", 200),
        ("customer id", h(f"c{rare}"), 302),
        ("customer id, start", h(f"c{rare}")[:8], 200),
        ("transaction id", h(f"t{rare}"), 302),
        ("transaction id, start", h(f"t{rare}")[:8], 200),
        ("quote id", h("q77"), 302),
        ("rule id", h("r77"), 302),
        ("payment account id", h(f"a{rare}"), 302),
        ("bank account, last digits", "4242", 200),
        ("wallet address", address, 200),
        ("wallet address, start", address[:10], 200),
        ("wallet address, end", address[-6:], 200),
        ("colleague", "search-adm", 200),
        ("short id-like word common to names", "Cust", 200),
    ]


def plans(client, url: str) -> tuple[list[str], float]:
    """(the large tables any statement of one request reads by a sequential scan, the sum of
    the statements' execution times in the database, ms), by EXPLAIN ANALYZE of each as the
    search runs it (search.results.index_plans)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    scans, database_ms = [], 0.0

    def walk(node):
        if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in LARGE_TABLES:
            scans.append(f"Seq Scan on {node['Relation Name']}")
        for child in node.get("Plans", []):
            walk(child)

    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):  # SET LOCAL, SAVEPOINT, the session's UPDATE
                continue
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql.replace("%", "%%"))
            [plan] = cursor.fetchone()[0]
            database_ms += plan["Execution Time"] + plan.get("Planning Time", 0)
            walk(plan["Plan"])
        cursor.execute("RESET enable_seqscan")
    return scans, round(database_ms, 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--transactions", type=int, default=5_000_000)
    parser.add_argument("--quotes", type=int, default=200_000)
    parser.add_argument("--rules", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--database", default="bench_search")
    parser.add_argument("--keep", action="store_true", help="leave the database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="the data of an earlier --keep run: no build")
    args = parser.parse_args()

    from _setup import machine_speed, pages_without_upstream, time_page

    reuse = pages_without_upstream(args.database, keep=args.keep, reuse=args.reuse)
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from sweep_data import add_payment_rows, build

    from core.access import sync_role_groups
    from customers.models import Customer
    from payments.models import PaymentAccount

    seconds = 0.0
    if not reuse:
        seconds = build(args.customers, args.transactions, 0, 0, 0.05)
    if not PaymentAccount.objects.exists():
        seconds += add_payment_rows(Customer.objects.count(), args.quotes, args.rules)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    sync_role_groups(Group, Permission)
    user, _ = get_user_model().objects.get_or_create(username="search-admin")
    user.groups.add(Group.objects.get(name="admin"))
    client = Client()
    client.force_login(user)

    results = []
    for what, q, expected in cases(Customer.objects.count()):
        url = reverse("search") + "?" + urlencode({"q": q})
        results.append(
            {"case": what, "q": q, "status": expected, **time_page(client, url, status=expected, repeats=args.repeats)}
        )
        results[-1]["seq_scans"], results[-1]["database_ms"] = plans(client, url)
        print(json.dumps(results[-1]), file=sys.stderr)
    summary = {
        "customers": Customer.objects.count(),
        "payment_accounts": PaymentAccount.objects.count(),
        "build_seconds": round(seconds, 1),
        "reused": reuse,
        "load_average": os.getloadavg()[0],
        "machine_speed_ms": machine_speed(),
        "over_20_ms": [r["case"] for r in results if r["p50_ms"] > 20],
        "with_seq_scans": [r["case"] for r in results if r["seq_scans"]],
    }
    print(json.dumps({"summary": summary, "cases": results}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
