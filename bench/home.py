"""The home page of each role over 1,000,000 customers and 5,000,000 transactions (PostgreSQL).

Builds the mirror with the data builders of bench/pages.py (customers) and
bench/pages_payments.py (transactions), adds review decisions, case work, webhook events, sync
runs and audit events, then times the roll-up the beat task runs (its first run, which fills
the windows, and a later one) and each home page.

Prints JSON: the roll-up's seconds; per role the p50/p99 server time and SQL queries of the
home page. In-process (Django's test Client, every middleware, a logged-in session): server
time, no network.

    .venv/bin/python bench/home.py [--customers 1000000] [--transactions 5000000] [--repeats 50]
"""

import argparse
import json
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="No directory at")


def extras(customers: int) -> float:
    """Decisions (an opening and a decision for one customer in 20, over 14 days), claimed
    cases, webhook events, sync runs and audit events."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customerstatuschange (customer_id, old_status, new_status, changed_at, seen_by,
                recorded_at)
            SELECT c.id, o.old_status, o.new_status, o.at, 'webhook', o.at
            FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM customers_customer) AS c,
                 LATERAL (SELECT now() - make_interval(secs => (c.n * 7919) %% (14 * 86400)) AS decided) AS d,
                 LATERAL (VALUES
                     ('', 'UNDER_REVIEW', d.decided - make_interval(hours => 1 + (c.n %% 72)::int)),
                     ('UNDER_REVIEW', CASE WHEN c.n %% 4 = 0 THEN 'REJECTED' ELSE 'ACTIVE' END, d.decided)
                 ) AS o(old_status, new_status, at)
            WHERE c.n %% 20 = 0
            """,
            [],
        )
        cursor.execute(
            """
            INSERT INTO mirror_webhookevent (event_id, event_type, payload, occurred_at, received_at, state, attempts,
                last_error, processed_at, not_before)
            SELECT 'evt_' || i, 'customer.update', '{}'::jsonb, now(), now() - make_interval(secs => i),
                   CASE WHEN i <= 50 THEN 'received' WHEN i <= 60 THEN 'failed' ELSE 'processed' END,
                   1, '', NULL, NULL
            FROM generate_series(1, 100000) AS i
            """,
            [],
        )
        cursor.execute(
            """
            INSERT INTO mirror_syncrun (kind, started_at, finished_at, outcome, counts, error)
            SELECT (ARRAY['customers', 'payment-accounts', 'transactions'])[1 + i %% 3],
                   now() - make_interval(mins => i * 5), now() - make_interval(mins => i * 5 - 1),
                   CASE WHEN i %% 10 = 0 THEN 'failed' ELSE 'succeeded' END, '{}'::jsonb, ''
            FROM generate_series(1, 30000) AS i
            """,
            [],
        )
        cursor.execute(
            """
            INSERT INTO core_auditevent (created_at, actor_id, actor_username, action, target_kind, target_id, outcome,
                request_id, details)
            SELECT now() - make_interval(secs => i), NULL, 'staff-' || (i %% 20), 'customer.update', 'customer',
                   md5(i::text), 'success', '', '{}'::jsonb
            FROM generate_series(1, 500000) AS i
            """,
            [],
        )
        for table in ("customers_customerstatuschange", "mirror_webhookevent", "mirror_syncrun", "core_auditevent"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return time.perf_counter() - started


def claim(user, cases: int) -> None:
    """Give `user` some open cases (the compliance page's "my claimed cases")."""
    from customers.models import Customer

    ids = Customer.objects.filter(status="UNDER_REVIEW").order_by("id").values_list("id", flat=True)[:cases]
    Customer.objects.filter(id__in=list(ids)).update(assignee=user)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--transactions", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--database", default="bench_home")
    args = parser.parse_args()

    from _setup import machine_speed, production_env, setup_django

    os.environ.update(production_env(ALLOWED_HOSTS="testserver", PAYMENTS_API_BASE_URL="http://127.0.0.1:9/unused"))
    setup_django(args.database)
    from django.conf import settings

    # DEBUG off but no collectstatic here: plain static storage.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    import pages
    import pages_payments
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.test import Client

    from backoffice import rollups
    from core.access import Role, sync_role_groups

    load = {
        "customers_seconds": round(pages.generate(args.customers), 1),
        "transactions_seconds": round(pages_payments.load(args.transactions), 1),
        "extras_seconds": round(extras(args.customers), 1),
    }
    started = time.perf_counter()
    rollups.refresh()
    first = time.perf_counter() - started
    started = time.perf_counter()
    computed = rollups.refresh()
    later = time.perf_counter() - started

    sync_role_groups(Group, Permission)
    User = get_user_model()
    results = {}
    # The page without a section (session, user, navigation): what every page costs here.
    nobody = User.objects.create_user("bench-no-role", password="x" * 20)
    client = Client()
    client.force_login(nobody)
    results["no role (the page around the sections)"] = pages.measure(client, "/", args.repeats)
    every = [role.value for role in Role]
    for roles in [[role] for role in every] + [every]:
        user = User.objects.create_user(f"bench-{'-'.join(roles)}", password="x" * 20)
        user.groups.add(*Group.objects.filter(name__in=roles))
        if Role.COMPLIANCE in roles:
            claim(user, 40)
        client = Client()
        client.force_login(user)
        results[" + ".join(roles)] = pages.measure(client, "/", args.repeats)
    # A page of docs/benchmarks.md measured in the same run, to compare across machine loads.
    results["reference: review queue, first page"] = pages.measure(client, "/customers/", args.repeats)

    print(
        json.dumps(
            {
                "benchmark": "home page per role",
                "customers": args.customers,
                "transactions": args.transactions,
                "repeats": args.repeats,
                "machine_speed_ms": machine_speed(),
                "load": load,
                "roll_up": {
                    "first_run_seconds": round(first, 2),
                    "later_run_seconds": round(later, 2),
                    "later_run_days": {figure: len(days) for figure, days in computed.items()},
                },
                "home": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
