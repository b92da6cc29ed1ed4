"""Every staff list and detail page over skewed data: no slow corner.

Builds skewed mirror data on PostgreSQL (one organization holding most customers, rare
type/status/issue combinations, a few customers holding most transactions, a year of audit
events, inbox events), then requests each list of the role matrix (tests/matrix.py) with
every filter alone and every pair of filters, with values that hit the common, the rare and
the empty case, the first page and a deep one, and the detail pages, as a role that sees
them. Prints one JSON object: {"cases": [...], "slowest": [ten cases]}.

    .venv/bin/python bench/sweep.py --customers 50000 --transactions 250000   # small
    .venv/bin/python bench/sweep.py        # 1,000,000 customers, 5,000,000 transactions
"""

import argparse
import itertools
import json
import os
import sys
import time
import warnings
from urllib.parse import urlencode

warnings.filterwarnings("ignore", message="No directory at")


def build(customers: int, transactions: int, audit_events: int, inbox_events: int, big_share: float) -> float:
    """Skewed rows by INSERT ... SELECT generate_series (as bench/pages.py and bench/home.py)."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customer (customer_id, organization_id, customer_type, status, name, email,
                verification_link, available_payment_methods, status_since, first_seen_at, upstream_updated_at,
                synced_at, missing_upstream, case_decision, escalation_level)
            SELECT md5('c' || i),
                   CASE WHEN i %% 10 < 8 THEN 'org-big' ELSE 'org-' || (i %% 200) END,
                   CASE WHEN i %% 1000 = 7 THEN 'BUSINESS' ELSE 'INDIVIDUAL' END,
                   CASE WHEN i %% 100 < 25 THEN 'UNDER_REVIEW' WHEN i %% 100 < 50 THEN 'NEEDS_ADDITIONAL_INFORMATION'
                        WHEN i %% 100 < 58 THEN 'REJECTED' WHEN i %% 100 < 65 THEN 'CREATED'
                        WHEN i %% 100 < 95 THEN 'ACTIVE' ELSE 'DEACTIVATED' END,
                   'Customer ' || i, 'c' || i || '@example.com', '', '[]'::jsonb,
                   now() - make_interval(secs => i * 7), now(),
                   now() - make_interval(secs => (i::bigint * 7919) %% 5000000), now(), false, '', 0
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": customers},
        )
        cursor.execute(
            """
            INSERT INTO customers_verificationissue (customer_id, code, message, timestamp, customer_status)
            SELECT id, CASE WHEN id %% 500 = 0 THEN 'SELFIE_MISMATCH' ELSE 'DOCUMENT_MISSING_BACK' END, '', status_since, status
            FROM customers_customer WHERE status = 'NEEDS_ADDITIONAL_INFORMATION'
            """,
            [],
        )
        cursor.execute("SELECT min(id) FROM customers_customer")
        c0 = cursor.fetchone()[0]
        # Customer 1 holds `big_share` of the transactions, customers 2-3 a tenth of that each.
        cursor.execute(
            """
            INSERT INTO payments_transaction (transaction_id, quote_id, customer_id, customer_upstream_id, status,
                status_since, source_account_id, source_payment_method, source_currency, source_amount,
                source_reference_id, destination_account_id, destination_payment_method, destination_currency,
                destination_amount, destination_reference_id, exchange_rate, fees, correlation_id,
                transfer_instructions, expires_at, created_upstream_at, upstream_updated_at, synced_at,
                missing_upstream)
            SELECT md5('t' || i), md5('q' || i), %(c0)s + k.n, md5('c' || (k.n + 1)), s.status, t.created,
                   'acc', CASE WHEN i %% 7 = 0 THEN 'BASE' ELSE 'ACH' END, 'USD', 100 + (i %% 1000), '',
                   'acc2', CASE WHEN i %% 7 = 0 THEN 'ACH' ELSE 'BASE' END, 'USDC', 99 + (i %% 1000), '',
                   1, '{}'::jsonb, 'corr-' || i, NULL,
                   CASE WHEN s.status = 'AWAITING_TRANSFER' THEN t.created + interval '30 minutes' END,
                   t.created, t.created, now(), false
            FROM generate_series(1, %(rows)s) AS i,
                 LATERAL (SELECT now() - (%(rows)s - i) * interval '6 seconds' AS created) AS t,
                 LATERAL (SELECT CASE WHEN i %% 1000 < %(big)s THEN 0
                                      WHEN i %% 1000 < %(big)s * 1.2 THEN 1 + i %% 2
                                      ELSE i %% %(customers)s END AS n) AS k,
                 LATERAL (SELECT CASE WHEN i %% 100 < 90 THEN 'COMPLETED' WHEN i %% 100 < 94 THEN 'AWAITING_TRANSFER'
                                      WHEN i %% 100 < 96 THEN 'PROCESSING' WHEN i %% 100 < 97 THEN 'CREATED'
                                      WHEN i %% 100 < 98 THEN 'FAILED' WHEN i %% 100 < 99 THEN 'CANCELLED'
                                      ELSE 'EXPIRED' END AS status) AS s
            """,
            {"c0": c0, "rows": transactions, "big": int(big_share * 1000), "customers": customers},
        )
        cursor.execute(
            """
            INSERT INTO core_auditevent (created_at, actor_id, actor_username, action, target_kind, target_id,
                outcome, request_id, details)
            SELECT now() - make_interval(secs => (i::bigint * 365 * 86400 / %(n)s)::int), NULL, 'staff-' || (i %% 20),
                   CASE WHEN i %% 1000 = 0 THEN 'transaction.cancel' ELSE 'customer.update' END,
                   CASE WHEN i %% 1000 = 0 THEN 'transaction' ELSE 'customer' END,
                   md5('c' || (1 + i %% %(customers)s)), 'success', '', '{}'::jsonb
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": audit_events, "customers": customers},
        )
        cursor.execute(
            """
            INSERT INTO mirror_webhookevent (event_id, event_type, payload, occurred_at, received_at, state, attempts,
                last_error, processed_at, not_before)
            SELECT 'evt_' || i, 'customer.update', '{}'::jsonb, now(), now() - make_interval(secs => i),
                   CASE WHEN i <= 50 THEN 'received' WHEN i <= 60 THEN 'failed' ELSE 'processed' END, 1, '', NULL, NULL
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": inbox_events},
        )
        for table in (
            "customers_customer",
            "customers_verificationissue",
            "payments_transaction",
            "core_auditevent",
            "mirror_webhookevent",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return time.perf_counter() - started


def filters(big: str, small: str, month_start: str, month_end: str, old_day: str) -> dict:
    """Per list URL name: each filter's values, common first, then rare, then empty."""
    return {
        "audit-list-events": {
            "actor": ["staff-3", "nobody"],
            "action": ["customer.update", "transaction.cancel", "none.such"],
            "target_kind": ["customer", "transaction", "none"],
            "target_id": [big, "none"],
            "since": [month_start, old_day],
            "until": [month_end, old_day],
        },
        "payments-list-transactions": {
            "customer": [big, small, "none"],
            "status": ["COMPLETED", "EXPIRED"],
            "created_from": [month_start],
            "created_until": [month_end],
            "rail": ["ACH", "BASE", "SWIFT"],
            "correlation_id": ["corr-77", "none"],
            "expires_within": ["60"],
        },
        "customers-list-customers": {
            "view": ["all", "queue"],
            "status": ["UNDER_REVIEW", "DEACTIVATED"],
            "type": ["INDIVIDUAL", "BUSINESS"],
            "organization": ["org-big", "org-7", "org-none"],
            "issue": ["DOCUMENT_MISSING_BACK", "SELFIE_MISMATCH", "NONE_SUCH"],
            "sort": ["updated"],
            "q": ["Customer 12", "c123@"],
        },
        "payments-list-payment-accounts": {"status": ["ACTIVE"], "customer": [big, "none"]},
        "payments-list-automation-rules": {"customer": [big, "none"]},
        "mirror-list-inbox-events": {"state": ["processed", "failed", "received"]},
        "payments-list-approval-requests": {},
        "payments-list-open-quotes": {},
        "payments-list-stuck-transactions": {
            "rule": ["awaiting-expired", "processing-long", "created-long"],
            "processing_hours": ["4", "72"],
            "created_minutes": ["30"],
        },
        "customers-list-escalations": {},
        "staff-list-staff": {},
        "home": {},
    }


def combinations(spec: dict) -> list[dict]:
    """No filter, every filter alone with each value, every pair with common/rare values."""
    cases = [{}]
    for name, values in spec.items():
        cases += [{name: v} for v in values]
    for (a, va), (b, vb) in itertools.combinations(spec.items(), 2):
        for x, y in itertools.product(va[:2], vb[:2]):
            cases.append({a: x, b: y})
    return cases


def deep_cursor(model, ordering: tuple[str, ...], depth: int) -> str | None:
    from core.views import _encode

    names = [o.lstrip("-") for o in ordering]
    row = model.objects.order_by(*ordering).values_list(*names)[depth : depth + 1].first()
    return _encode(list(row)) if row else None


def slowest_plan(client, url: str) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement one request of `url` runs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    sql = max(captured.captured_queries, key=lambda q: float(q["time"]))["sql"]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql.replace("%", "%%"))
        return [row[0] for row in cursor.fetchall()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--transactions", type=int, default=5_000_000)
    parser.add_argument("--audit-events", type=int, default=2_000_000)
    parser.add_argument("--inbox-events", type=int, default=100_000)
    parser.add_argument("--big-share", type=float, default=0.05, help="share of transactions of the largest customer")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--database", default="bench_sweep")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN (ANALYZE, BUFFERS) the ten slowest")
    parser.add_argument("--keep", action="store_true", help="leave the database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="the data of an earlier --keep run: no build")
    args = parser.parse_args()

    from _setup import pages_without_upstream, time_page

    reuse = pages_without_upstream(args.database, keep=args.keep, reuse=args.reuse)
    import datetime as dt

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from audit.models import AuditEvent
    from core.roles import sync_role_groups
    from customers.models import Customer
    from payments.models import Transaction
    from tests.matrix import MATRIX

    if reuse:
        seconds = 0.0
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    else:
        seconds = build(args.customers, args.transactions, args.audit_events, args.inbox_events, args.big_share)
    sync_role_groups(Group, Permission)
    clients = {}
    for role in ("admin", "auditor", "compliance", "operations"):
        user, _ = get_user_model().objects.get_or_create(username=f"sweep-{role}")
        user.groups.add(Group.objects.get(name=role))
        clients[role] = Client()
        clients[role].force_login(user)

    def role_for(name: str) -> str:
        roles = MATRIX[name].roles
        return next(r for r in ("auditor", "compliance", "admin", "operations") if r in roles)

    today = timezone.now().date()
    big, small = Customer.objects.order_by("id").values_list("customer_id", flat=True)[:3:2]
    days = {
        "month_start": (today - dt.timedelta(days=60)).isoformat(),
        "month_end": (today - dt.timedelta(days=30)).isoformat(),
        "old_day": (today - dt.timedelta(days=300)).isoformat(),
    }
    urls = []
    for name, spec in filters(big, small, **days).items():
        urls += [(name, reverse(name) + ("?" + urlencode(params) if params else "")) for params in combinations(spec)]
    deep = {
        "audit-list-events": (AuditEvent, ("-created_at", "-id")),
        "payments-list-transactions": (Transaction, ("-created_upstream_at", "-id")),
    }
    for name, (model, ordering) in deep.items():
        cursor = deep_cursor(model, ordering, model.objects.count() // 2)
        if cursor:
            urls.append((name, reverse(name) + "?" + urlencode({"cursor": cursor})))
    tx = Transaction.objects.filter(customer__customer_id=big).order_by("-id").values_list("transaction_id", flat=True)
    for customer_id in (big, small):
        urls.append(("customers-view-customer", reverse("customers-view-customer", args=[customer_id])))
    urls.append(("payments-view-transaction", reverse("payments-view-transaction", args=[tx[0]])))
    staff = get_user_model().objects.order_by("id").first()
    urls.append(("staff-view-staff", reverse("staff-view-staff", args=[staff.pk])))

    cases = []
    for name, url in urls:
        role = role_for(name)
        client = clients[role]
        cases.append({"url": url, "role": role, **time_page(client, url, repeats=args.repeats)})
        print(json.dumps(cases[-1]), file=sys.stderr)
    slowest = sorted(cases, key=lambda c: c["p50_ms"], reverse=True)[:10]
    if args.explain:
        for case in slowest:
            case["plan"] = slowest_plan(clients[case["role"]], case["url"])
    summary = {
        "customers": Customer.objects.count() if reuse else args.customers,
        "transactions": Transaction.objects.count() if reuse else args.transactions,
        "audit_events": AuditEvent.objects.count() if reuse else args.audit_events,
        "build_seconds": round(seconds, 1),
        "reused": reuse,
        "load_average": os.getloadavg()[0],
        "over_20_ms": sum(1 for c in cases if c["p50_ms"] > 20),
        "over_6_queries": sum(1 for c in cases if c["queries"] > 6),
    }
    print(json.dumps({"summary": summary, "cases": cases, "slowest": slowest}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
