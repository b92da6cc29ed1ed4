"""Transactions list and stuck view on 5,000,000 mirrored transactions (PostgreSQL), against
Django admin's changelist on the same rows; and the quote preview's round trip with the
sandbox in the same server.

Prints JSON: p50/p99 server time and SQL queries per request, at the first page and a deep
page (reached by its keyset cursor), for each page. Requests go through Django's test client
(every middleware, a logged-in session), so the figures are server time without a network.

    .venv/bin/python bench/pages_payments.py [--rows 5000000] [--repeats 50]
"""

import argparse
import json
import sys
import time
import types


def load(rows: int) -> float:
    """Customers and transactions by INSERT ... SELECT generate_series: no ORM, no Python loop."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customer (customer_id, organization_id, customer_type, status, name, email,
                verification_link, available_payment_methods, status_since, first_seen_at, missing_upstream,
                case_decision, escalation_level)
            SELECT md5('c' || i), 'org-1', 'INDIVIDUAL', 'ACTIVE', 'Customer ' || i, 'c' || i || '@example.com',
                   '', '[]', now(), now(), false, '', 0
            FROM generate_series(1, 10000) AS i
            """
        )
        cursor.execute("SELECT min(id) FROM customers_customer")
        first_customer = cursor.fetchone()[0]
        # Statuses: 90 % COMPLETED, 4 % AWAITING_TRANSFER (half of them past expiry), 2 % PROCESSING
        # (a fifth of those for days), 1 % CREATED, the rest FAILED/CANCELLED/EXPIRED.
        step = 1_000_000
        for start in range(1, rows + 1, step):
            end = min(rows, start + step - 1)
            cursor.execute(
                """
                INSERT INTO payments_transaction (
                    transaction_id, quote_id, customer_id, customer_upstream_id, status, status_since,
                    source_account_id, source_payment_method, source_currency, source_amount, source_reference_id,
                    destination_account_id, destination_payment_method, destination_currency, destination_amount,
                    destination_reference_id, exchange_rate, fees, correlation_id, transfer_instructions, expires_at,
                    created_upstream_at, upstream_updated_at, synced_at, missing_upstream)
                SELECT md5('t' || i), md5('q' || i), %(c0)s + (i %% 10000), md5('c' || (i %% 10000 + 1)),
                       s.status,
                       CASE WHEN s.status = 'PROCESSING' AND i %% 5 = 0 THEN created - interval '3 days'
                            ELSE created END,
                       'acc', CASE WHEN i %% 7 = 0 THEN 'BASE' ELSE 'ACH' END, 'USD', 100 + (i %% 1000), '',
                       'acc2', CASE WHEN i %% 7 = 0 THEN 'ACH' ELSE 'BASE' END, 'USDC', 99 + (i %% 1000), '',
                       1, '{}'::jsonb, 'corr-' || i, NULL,
                       CASE WHEN s.status = 'AWAITING_TRANSFER' THEN created + interval '30 minutes' END,
                       created, created, now(), false
                FROM generate_series(%(start)s, %(end)s) AS i,
                     LATERAL (SELECT now() - (%(rows)s - i) * interval '6 seconds' AS created) AS t,
                     LATERAL (SELECT CASE
                         WHEN i %% 100 < 90 THEN 'COMPLETED'
                         WHEN i %% 100 < 94 THEN 'AWAITING_TRANSFER'
                         WHEN i %% 100 < 96 THEN 'PROCESSING'
                         WHEN i %% 100 < 97 THEN 'CREATED'
                         WHEN i %% 100 < 98 THEN 'FAILED'
                         WHEN i %% 100 < 99 THEN 'CANCELLED'
                         ELSE 'EXPIRED' END AS status) AS s
                """,
                {"c0": first_customer, "start": start, "end": end, "rows": rows},
            )
            print(f"loaded {end:,} transactions", file=sys.stderr)
        cursor.execute("ANALYZE customers_customer")
        cursor.execute("ANALYZE payments_transaction")
    return time.perf_counter() - started


def measure(client, url: str, repeats: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    response = client.get(url)  # warm-up: caches, plans
    assert response.status_code == 200, (url, response.status_code)
    times, queries = [], []
    for _ in range(repeats):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)
            if response.streaming:
                b"".join(response.streaming_content)
            times.append((time.perf_counter() - started) * 1000)
        queries.append(len(captured.captured_queries))
    from _setup import percentile

    return {
        "p50_ms": round(percentile(times, 0.5), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "queries": max(queries),
    }


def deep_cursor(queryset, ordering, depth: int) -> str:
    """The cursor of the page that starts `depth` rows in: what following Next that far gives."""
    from core.views import _encode

    names = [o.lstrip("-") for o in ordering]
    row = queryset.order_by(*ordering).values_list(*names)[depth - 1 : depth].get()
    return _encode(list(row))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    from _setup import in_process_upstream, setup_django

    setup_django("bench_pages_payments")
    from urllib.parse import urlencode

    from django.conf import settings
    from django.contrib import admin
    from django.contrib.auth.models import Group, User
    from django.test import Client
    from django.urls import clear_url_caches, path, reverse

    import backoffice.urls
    from core.access import sync_role_groups
    from payments.models import Transaction
    from payments.selectors import transactions_listed, transactions_stuck

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]
    # Django admin is not mounted in the product; mount it here to compare its changelist.
    urls = types.ModuleType("bench_payments_urls")
    urls.urlpatterns = [*backoffice.urls.urlpatterns, path("django-admin/", admin.site.urls)]
    sys.modules["bench_payments_urls"] = urls
    settings.ROOT_URLCONF = "bench_payments_urls"
    clear_url_caches()

    load_seconds = load(args.rows)
    from django.contrib.auth.models import Permission

    sync_role_groups(Group, Permission)
    operator = User.objects.create_user("bench-ops", password="x" * 16)
    operator.groups.add(Group.objects.get(name="operations"))
    superuser = User.objects.create_superuser("bench-admin", password="x" * 16)
    staff, root = Client(), Client()
    staff.force_login(operator)
    root.force_login(superuser)

    depth = args.rows * 4 // 5
    list_url = reverse("payments-list-transactions")
    stuck_url = reverse("payments-list-stuck-transactions")
    results = {}
    deep_list = deep_cursor(transactions_listed(), ("-created_upstream_at", "-id"), depth)
    results["list, first page"] = measure(staff, list_url, args.repeats)
    results[f"list, row {depth:,}"] = measure(staff, f"{list_url}?cursor={deep_list}", args.repeats)
    completed = transactions_listed().filter(status="COMPLETED")
    deep_status = deep_cursor(completed, ("-created_upstream_at", "-id"), depth * 9 // 10)
    results["list status=COMPLETED, first page"] = measure(staff, f"{list_url}?status=COMPLETED", args.repeats)
    results[f"list status=COMPLETED, row {depth * 9 // 10:,}"] = measure(
        staff, f"{list_url}?status=COMPLETED&cursor={deep_status}", args.repeats
    )
    for rule in ("awaiting-expired", "processing-long"):
        queryset, ordering = transactions_stuck(rule=rule)
        count = queryset.count()
        cursor = deep_cursor(queryset, ordering, count * 4 // 5)
        results[f"stuck {rule} ({count:,} rows), first page"] = measure(staff, f"{stuck_url}?rule={rule}", args.repeats)
        results[f"stuck {rule}, row {count * 4 // 5:,}"] = measure(
            staff, f"{stuck_url}?{urlencode({'rule': rule, 'cursor': cursor})}", args.repeats
        )
    admin_url = "/django-admin/payments/transaction/"
    admin_repeats = max(5, args.repeats // 5)
    results["django admin changelist, first page"] = measure(root, admin_url, admin_repeats)
    results[f"django admin changelist, page {depth // 100:,} (row {depth:,})"] = measure(
        root, f"{admin_url}?p={depth // 100}", admin_repeats
    )
    results["django admin changelist status=COMPLETED, first page"] = measure(
        root, f"{admin_url}?status__exact=COMPLETED", admin_repeats
    )
    ratio = {
        "admin first page / list first page (p50)": round(
            results["django admin changelist, first page"]["p50_ms"] / results["list, first page"]["p50_ms"], 1
        ),
        "admin deep page / list deep page (p50)": round(
            results[f"django admin changelist, page {depth // 100:,} (row {depth:,})"]["p50_ms"]
            / results[f"list, row {depth:,}"]["p50_ms"],
            1,
        ),
    }

    # The preview: the builder's GET → the client → the sandbox's GET /exchange-rates, all in
    # this process (the sandbox mounted in the same server).
    in_process_upstream()
    preview = (
        reverse("payments-preview-quote")
        + "?"
        + urlencode(
            {
                "source_method": "ACH",
                "source_currency": "USD",
                "destination_method": "BASE",
                "destination_currency": "USDC",
                "amount": "1234.56",
            }
        )
    )
    results["quote preview round trip (GET /exchange-rates in-process)"] = measure(staff, preview, args.repeats * 2)
    assert Transaction.objects.count() == args.rows
    print(
        json.dumps(
            {
                "benchmark": "pages_payments",
                "database": "postgresql",
                "transactions": args.rows,
                "load_seconds": round(load_seconds, 1),
                "repeats": args.repeats,
                "results": results,
                "ratios": ratio,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
