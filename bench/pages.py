"""The review queue over 1,000,000 mirrored customers on PostgreSQL, against Django admin.

Prints JSON: server time p50/p99 and SQL queries per request for the queue at its first page
and 500,000 rows deep, filtered by status, and searched by name prefix and by e-mail; then
the same model's Django admin changelist on the same data, and the ratios. In-process
(Django's test Client, every middleware, a logged-in session): server time, no network.

    .venv/bin/python bench/pages.py [--customers 1000000] [--repeats 50]
"""

import argparse
import json
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="No directory at")


def generate(size: int) -> float:
    """Mirror rows by INSERT ... SELECT generate_series: a million in well under a minute."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customer (
                customer_id, organization_id, customer_type, status, name, email, verification_link,
                available_payment_methods, status_since, first_seen_at, upstream_updated_at, synced_at,
                missing_upstream, case_decision, escalation_level)
            SELECT
                md5(i::text)::uuid::text,
                'org-' || (i %% 20),
                CASE WHEN i %% 5 = 0 THEN 'BUSINESS' ELSE 'INDIVIDUAL' END,
                -- 25 pc under review, 25 pc needing information, 8 pc rejected, 7 pc created, 30 pc active, 5 pc closed
                CASE WHEN i %% 100 < 25 THEN 'UNDER_REVIEW'
                     WHEN i %% 100 < 50 THEN 'NEEDS_ADDITIONAL_INFORMATION'
                     WHEN i %% 100 < 58 THEN 'REJECTED'
                     WHEN i %% 100 < 65 THEN 'CREATED'
                     WHEN i %% 100 < 95 THEN 'ACTIVE'
                     ELSE 'DEACTIVATED' END,
                (ARRAY['Olivia','Liam','Emma','Noah','Ava','Elijah','Sophia','James','Mia','Lucas',
                       'Amelia','Mateo','Harper','Levi','Evelyn','Ezra','Abigail','Luca','Ella','Asher'])[1 + i %% 20]
                || ' ' ||
                (ARRAY['Smith','Garcia','Kim','Nguyen','Okafor','Rossi','Schmidt','Dubois','Silva','Khan',
                       'Novak','Tanaka','Cohen','Ivanova','Larsen','Murphy','Haddad','Costa','Sato','Moreau',
                       'Ali','Berg','Chen','Diaz','Evans','Fischer','Gomez','Hill','Jensen','Lopez'])[1 + (i / 20) %% 30]
                || ' ' || i,
                'user' || i || '@example' || (i %% 50) || '.com',
                'https://forms.example.com/verify/' || md5(i::text),
                '[]'::jsonb,
                now() - make_interval(secs => i * 7),
                now(),
                now() - make_interval(secs => (i::bigint * 7919) %% 5000000),
                now(),
                false, '', 0
            FROM generate_series(1, %s) AS i
            """,
            [size],
        )
        cursor.execute(
            """
            INSERT INTO customers_verificationissue (customer_id, code, message, timestamp, customer_status)
            SELECT id, 'DOCUMENT_MISSING_BACK', 'The back of the government ID is missing.', status_since, status
            FROM customers_customer WHERE status = 'NEEDS_ADDITIONAL_INFORMATION'
            """
        )
    connection.commit() if not connection.get_autocommit() else None
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE customers_customer")
        cursor.execute("VACUUM ANALYZE customers_verificationissue")
    return time.perf_counter() - started


def measure(client, url: str, repeats: int) -> dict:
    from _setup import count_queries, percentile

    for _ in range(3):  # warm-up: connection, template cache, the counts cache
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    queries = count_queries(lambda: client.get(url))
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "url": url,
        "p50_ms": round(percentile(times, 0.5), 1),
        "p99_ms": round(percentile(times, 0.99), 1),
        "queries": queries,
    }


def deep_cursor(filters: dict, user, depth: int) -> str:
    """The cursor a reviewer holds after paging `depth` rows (found once here with OFFSET)."""
    from core.views import _encode
    from customers.filters import QueueFilter

    filterset = QueueFilter(filters, user=user)
    qs, ordering = filterset.qs, filterset.ordering
    fields = [qs.model._meta.get_field(name.lstrip("-")) for name in ordering]
    last = qs.prefetch_related(None).order_by(*ordering)[depth - 1]
    return _encode([field.value_from_object(last) for field in fields])


def explain(sql_filters: dict, user) -> str:
    from customers.filters import QueueFilter

    filterset = QueueFilter(sql_filters, user=user)
    qs, ordering = filterset.qs, filterset.ordering
    plan = qs.prefetch_related(None).order_by(*ordering)[:51].explain()
    return " | ".join(line.strip() for line in plan.splitlines() if "Index" in line or "Scan" in line)[:400]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    from _setup import production_env, setup_django

    os.environ.update(
        production_env(
            ALLOWED_HOSTS="testserver", ROOT_URLCONF="_admin_urls", PAYMENTS_API_BASE_URL="http://127.0.0.1:9/unused"
        )
    )

    setup_django("bench_pages")
    from django.conf import settings

    # DEBUG off but no collectstatic here: plain static storage.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from urllib.parse import urlencode

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.test import Client

    from core.access import sync_role_groups

    seconds = generate(args.customers)
    sync_role_groups(Group, Permission)
    User = get_user_model()
    reviewer = User.objects.create_user("bench-compliance", password="x" * 20)
    reviewer.groups.add(Group.objects.get(name="compliance"))
    superuser = User.objects.create_superuser("bench-admin", password="x" * 20)
    staff, admin_client = Client(), Client()
    staff.force_login(reviewer)
    admin_client.force_login(superuser)

    depth = min(500_000, args.customers // 2)
    queue = {"view": "queue", "sort": "age"}
    every = {"view": "all", "sort": "updated"}
    nai = {"status": ["NEEDS_ADDITIONAL_INFORMATION"]}
    cases = {
        "queue, first page": {},
        f"queue, {depth:,} rows deep": {"cursor": deep_cursor(queue, reviewer, depth)},
        "all customers by last update, first page": {"view": "all", "sort": "updated"},
        f"all customers by last update, {depth:,} rows deep": {
            "view": "all",
            "sort": "updated",
            "cursor": deep_cursor(every, reviewer, depth),
        },
        "status = NEEDS_ADDITIONAL_INFORMATION, first page": nai,
        "status = NEEDS_ADDITIONAL_INFORMATION, 200,000 rows deep": {
            **nai,
            "cursor": deep_cursor({**nai, "view": "queue"}, reviewer, min(200_000, args.customers // 5)),
        },
        "search by name prefix 'Olivia Sm'": {"view": "all", "q": "Olivia Sm"},
        "search by e-mail 'user123456@'": {"view": "all", "q": "user123456@"},
    }
    results = {}
    for name, params in cases.items():
        results[name] = measure(staff, "/customers/?" + urlencode(params, doseq=True), args.repeats)

    admin_cases = {
        "admin changelist, page 1": {},
        "admin changelist, page 10,000": {"p": min(9999, args.customers // 100 - 1)},
        "admin changelist, status filter": {"status__exact": "NEEDS_ADDITIONAL_INFORMATION"},
        "admin changelist, search 'Olivia Sm'": {"q": "Olivia Sm"},
    }
    admin_repeats = max(5, args.repeats // 5)
    admin = {
        name: measure(admin_client, "/admin/customers/customer/?" + urlencode(params), admin_repeats)
        for name, params in admin_cases.items()
    }
    pairs = {
        "page 1": ("queue, first page", "admin changelist, page 1"),
        "deep": (f"all customers by last update, {depth:,} rows deep", "admin changelist, page 10,000"),
        "status": ("status = NEEDS_ADDITIONAL_INFORMATION, first page", "admin changelist, status filter"),
        "search": ("search by name prefix 'Olivia Sm'", "admin changelist, search 'Olivia Sm'"),
    }
    ratios = {key: round(admin[b]["p50_ms"] / results[a]["p50_ms"], 1) for key, (a, b) in pairs.items()}
    plans = {
        "name prefix": explain({"view": "all", "q": "Olivia Sm"}, reviewer),
        "e-mail prefix": explain({"view": "all", "q": "user123456@"}, reviewer),
    }
    print(
        json.dumps(
            {
                "benchmark": "review queue pages",
                "customers": args.customers,
                "generate_seconds": round(seconds, 1),
                "repeats": args.repeats,
                "queue": results,
                "django_admin": admin,
                "admin_p50_over_queue_p50": ratios,
                "plans": plans,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
