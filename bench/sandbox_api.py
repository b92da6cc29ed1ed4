"""Benchmark of the Payments API sandbox on PostgreSQL; prints JSON figures.

    .venv/bin/python bench/sandbox_api.py [--customers 100000] [--quotes 2000] [--processes 2]

1. `GET /customers?pageSize=100` deep in an organization of --customers customers: the whole
   list is walked by its cursor once, then ten pages at the start, the middle and the end are
   read again --repeats times each; p50/p99 per place tell whether the cost is constant in depth.
   EXPLAIN ANALYZE of the page query at the middle and the end shows why.
2. `POST /quotes`: quotes created per second, by one process and by --processes processes at once.

How it runs: a fresh database (--database, default bench_sandbox) is created on --server, the
DATABASE_URL points at it before django.setup(), it is migrated, the customers are bulk-inserted
(bulk_create in batches: a fixture, not the API), and the database is dropped at the end, also
on failure. Requests go in-process through httpx.WSGITransport to the project's WSGI application
(every middleware, the sandbox's authentication, serializers and PostgreSQL queries), so the
figures are server time without network or HTTP parsing by a web server. DEBUG is off while
measuring (no query log), and the urlconf is sandbox.standalone_urls (the same sandbox routes).
Database connections persist across requests (CONN_MAX_AGE, --conn-max-age) as in a deployment;
one extra figure shows the first page with a new connection per request (CONN_MAX_AGE=0).

A benchmark, not a test: figures go to docs/benchmarks.md, nothing is asserted.
"""

import argparse
import datetime as dt
import json
import logging
import multiprocessing
import os
import platform
import random
import re
import secrets
import sys
import time
import uuid
import warnings
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGE_SIZE = 100
REGION_PAGES = 10


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--customers", type=int, default=100_000, help="customers in the listed organization")
    parser.add_argument("--quotes", type=int, default=2000, help="quotes per quote measurement")
    parser.add_argument("--processes", type=int, default=2, help="processes of the parallel quote measurement")
    parser.add_argument("--repeats", type=int, default=20, help="reads of each measured page")
    parser.add_argument("--conn-max-age", type=int, default=60, help="CONN_MAX_AGE while measuring")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument("--database", default="bench_sandbox", help="database to create and drop (bench_*)")
    args = parser.parse_args()
    if not re.fullmatch(r"bench_[a-z0-9_]+", args.database):
        parser.error("--database must be named bench_<lower-case letters, digits, _>")
    if args.customers < REGION_PAGES * PAGE_SIZE * 3:
        parser.error(f"--customers must be at least {REGION_PAGES * PAGE_SIZE * 3} (three regions of pages)")
    return args


def main() -> None:
    args = parse_args()
    with psycopg.connect(f"{args.server}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{args.database}"')
    try:
        os.environ["DATABASE_URL"] = f"{args.server}/{args.database}"
        os.environ["CONN_MAX_AGE"] = str(args.conn_max_age)
        os.environ["ROOT_URLCONF"] = "sandbox.standalone_urls"
        # Celery eager: nothing here should leave the process.
        os.environ.pop("CELERY_BROKER_URL", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
        import django

        django.setup()
        # WhiteNoise warns once per process about the absent STATIC_ROOT (collectstatic not run).
        warnings.filterwarnings("ignore", message="No directory at")
        # One INFO line per request from httpx would be measured too.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        result = run(args)
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        with psycopg.connect(f"{args.server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
    print(json.dumps(result, indent=2))


# --- figures ---------------------------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


def figures(samples_s: list[float]) -> dict:
    ms = [s * 1000 for s in samples_s]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "mean_ms": round(sum(ms) / len(ms), 2),
    }


# --- run ---------------------------------------------------------------------------------------------


def run(args) -> dict:
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from sandbox.auth import create_key

    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrated = time.perf_counter()
    settings.DEBUG = False

    key, plain = create_key()
    other_key, _ = create_key()
    insert_customers(key.organization_id, other_key.organization_id, args.customers)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE sandbox_customer")
        cursor.execute("VACUUM ANALYZE sandbox_verificationissue")
    inserted = time.perf_counter()

    client = api_client(plain)
    result = {
        "benchmark": "sandbox_api",
        "date": dt.date.today().isoformat(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "postgres": server_version()},
        "driver": "httpx.WSGITransport -> backoffice WSGI application, in-process (server time, no network)",
        "settings": {"conn_max_age": args.conn_max_age, "debug": False, "urlconf": "sandbox.standalone_urls"},
        "fixture": {
            "customers_listed_organization": args.customers,
            "customers_other_organization": args.customers // 10,
            "migrate_s": round(migrated - started, 1),
            "bulk_insert_s": round(inserted - migrated, 1),
        },
    }
    result["list_customers"] = bench_list(client, key, args)
    result["create_quotes"] = bench_quotes(client, plain, key, args)
    client.close()
    return result


def server_version() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return cursor.fetchone()[0]


def api_client(plain_key: str):
    import httpx
    from django.core.wsgi import get_wsgi_application

    return httpx.Client(
        transport=httpx.WSGITransport(app=get_wsgi_application()),
        base_url="http://127.0.0.1/sandbox",
        headers={"Authorization": f"Bearer {plain_key}"},
        timeout=60,
    )


# --- fixture -----------------------------------------------------------------------------------------

STATUSES = [
    ("ACTIVE", 70),
    ("CREATED", 8),
    ("NEEDS_ADDITIONAL_INFORMATION", 10),
    ("UNDER_REVIEW", 5),
    ("REJECTED", 4),
    ("DEACTIVATED", 3),
]
IMAGE = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 2


def insert_customers(organization_id, other_organization_id, count: int) -> None:
    """`count` customers of one organization and count/10 of another, interleaved in time; two
    customers share each creation time, so the id tie-break of the keyset is exercised."""
    from django.db import transaction

    from sandbox import clock
    from sandbox.models import Customer, VerificationIssue

    rng = random.Random(7)
    statuses = [status for status, weight in STATUSES for _ in range(weight)]
    now = clock.now()
    total = count + count // 10
    base = now - dt.timedelta(seconds=total)
    batch, issues = [], []
    for i in range(total):
        organization = other_organization_id if i % 11 == 10 else organization_id
        status = rng.choice(statuses)
        created_at = base + dt.timedelta(seconds=i // 2)
        customer_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        individual = rng.random() < 0.7
        first, last = f"First{i}", f"Last{i}"
        data = {
            "legalFirstName": first,
            "legalLastName": last,
            "phoneNumber": "+12025550123",
            "dateOfBirth": "1988-04-02",
            "nationalIdIssuingCountry": "US",
            "nationalIdType": "ssn",
            "nationalIdNumber": f"{i:09d}",
            "nationality": rng.choice(["US", "US", "CA", "GB", "IN"]),
            "documents": [{"type": "GOVERNMENT_ID", "subtype": "NATIONAL_ID", "frontIdImage": IMAGE}],
        }
        batch.append(
            Customer(
                id=customer_id,
                organization_id=organization,
                customer_type="INDIVIDUAL" if individual else "BUSINESS",
                status=status,
                email=f"customer{i}@example.com",
                first_name=first if individual else "",
                last_name=last if individual else "",
                business_name="" if individual else f"Business {i} LLC",
                kyc_data=data if individual and status != "CREATED" else None,
                kyb_data={"businessInfo": {"registrationCountry": data["nationality"]}}
                if not individual and status != "CREATED"
                else None,
                verification_token=secrets.token_urlsafe(32),
                # An open review is due later: reading it costs nothing (no settling).
                review_due_at=now + dt.timedelta(days=1) if status == "UNDER_REVIEW" else None,
                created_at=created_at,
                updated_at=created_at,
            )
        )
        if status in ("NEEDS_ADDITIONAL_INFORMATION", "REJECTED"):
            code = "DOCUMENT_MISSING_BACK" if status != "REJECTED" else "SANCTIONED_COUNTRY"
            issues.append(VerificationIssue(customer_id=customer_id, code=code, message=code, timestamp=created_at))
        if len(batch) == 5000 or i == total - 1:
            with transaction.atomic():
                Customer.objects.bulk_create(batch)
                VerificationIssue.objects.bulk_create(issues)
            batch, issues = [], []


# --- list --------------------------------------------------------------------------------------------


def timed_get(client, path: str, params: dict):
    start = time.perf_counter()
    response = client.get(path, params=params)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} {params}: {response.status_code} {response.text[:300]}")
    return response.json(), elapsed


def page_params(token: str | None) -> dict:
    return {"pageSize": PAGE_SIZE, **({"pageToken": token} if token else {})}


def bench_list(client, key, args) -> dict:
    from django.db import connection

    from sandbox.models import Customer

    # Walk the whole list by its cursor: the tokens of every page, and a first timing of each.
    tokens, walk, seen, token = [], [], 0, None
    walk_started = time.perf_counter()
    while True:
        body, elapsed = timed_get(client, "/customers", page_params(token))
        tokens.append(token)
        walk.append(elapsed)
        seen += len(body["customers"])
        token = body["nextPageToken"]
        if token is None:
            break
    walk_seconds = time.perf_counter() - walk_started
    if seen != args.customers:
        raise RuntimeError(f"The walk saw {seen} customers, not {args.customers}")

    middle = len(tokens) // 2 - REGION_PAGES // 2
    regions = {
        "first_pages": (0, tokens[:REGION_PAGES]),
        "middle_pages": (middle, tokens[middle : middle + REGION_PAGES]),
        "last_pages": (len(tokens) - REGION_PAGES, tokens[-REGION_PAGES:]),
    }
    samples = {name: [] for name in regions}
    for _ in range(args.repeats):
        # Interleaved, so that any drift of the machine touches every region alike.
        for name, (_, region_tokens) in regions.items():
            for region_token in region_tokens:
                samples[name].append(timed_get(client, "/customers", page_params(region_token))[1])

    by_region = {}
    for name, (first_page, _) in regions.items():
        by_region[name] = {"pages": f"{first_page + 1}..{first_page + REGION_PAGES}", **figures(samples[name])}
    every_sample = [s for values in samples.values() for s in values]

    # What a deep page costs in queries (the clock is read once per open review on the page).
    from django.test.utils import CaptureQueriesContext

    middle_tokens = regions["middle_pages"][1]
    with CaptureQueriesContext(connection) as queries:
        for middle_token in middle_tokens:
            timed_get(client, "/customers", page_params(middle_token))
    sql = [query["sql"] for query in queries.captured_queries]
    under_review = Customer.objects.filter(organization_id=key.organization_id, status="UNDER_REVIEW").count()

    # The same first page with a new database connection per request (CONN_MAX_AGE=0).
    connection.settings_dict["CONN_MAX_AGE"] = 0
    connection.close()
    no_persistent = [timed_get(client, "/customers", page_params(None))[1] for _ in range(100)]
    connection.settings_dict["CONN_MAX_AGE"] = args.conn_max_age
    connection.close()

    return {
        "request": f"GET /customers?pageSize={PAGE_SIZE}",
        "pages": len(tokens),
        "walk": {"seconds": round(walk_seconds, 1), **figures(walk)},
        "measured": figures(every_sample),
        "by_depth": by_region,
        "queries_per_page": {
            "pages": len(middle_tokens),
            "total": len(sql) / len(middle_tokens),
            "sandbox_clock": sum("sandbox_clock" in q for q in sql) / len(middle_tokens),
            "under_review_share": round(under_review / args.customers, 3),
        },
        "first_page_new_connection_per_request": figures(no_persistent),
        "explain": {
            "middle_page": explain(key, tokens[middle]),
            "last_page": explain(key, tokens[-1]),
            # For comparison: the keyset's OR alone, which PostgreSQL cannot seek with.
            "middle_page_without_the_created_at_bound": explain(key, tokens[middle], seek=False),
        },
    }


def explain(key, token: str, *, seek: bool = True) -> dict:
    """EXPLAIN ANALYZE of the page query sandbox.services.customers.customer_list makes (with
    its `created_at >= <last created_at>` bound); without `seek`, the keyset's OR alone, which
    PostgreSQL cannot use as an index condition."""
    from django.db.models import Q

    from sandbox.models import Customer
    from sandbox.pagination import decode_page_token

    created_at, last_id = decode_page_token(token)
    customers = Customer.objects.filter(organization_id=key.organization_id)
    if seek:
        customers = customers.filter(created_at__gte=created_at)
    page = customers.filter(Q(created_at__gt=created_at) | Q(created_at=created_at, id__gt=last_id)).order_by(
        "created_at", "id"
    )[: PAGE_SIZE + 1]
    plan = page.explain(analyze=True, buffers=True).splitlines()
    wanted = ("Limit", "Index", "Seq Scan", "Sort", "Filter", "Rows Removed", "Buffers", "Execution Time")
    return {"plan": [line.strip() for line in plan if any(word in line for word in wanted)]}


# --- quotes --------------------------------------------------------------------------------------------


def quote_setup(client, key) -> dict:
    """An ACTIVE customer of the key's organization with an ACH bank account and a BASE USDC
    wallet, made through the API; -> the quote body."""
    from sandbox.models import Customer

    customer = Customer.objects.filter(organization_id=key.organization_id, status="ACTIVE").first()
    customer_id = str(customer.pk)
    bank = client.post(
        "/payment-accounts",
        json={
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "customerId": customer_id,
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": customer.name,
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "ACH",
                "bankAccountNumber": "000123456789",
                "bankRoutingNumber": "021000021",
            },
        },
    )
    wallet = client.post(
        "/payment-accounts",
        json={
            "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
            "customerId": customer_id,
            "externalCryptoWallet": {"currency": "USDC", "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}},
        },
    )
    for response in (bank, wallet):
        if response.status_code != 201:
            raise RuntimeError(f"POST /payment-accounts: {response.status_code} {response.text[:300]}")
    return {
        "customerId": customer_id,
        "source": {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": "250.00",
            "sourcePaymentAccountId": bank.json()["paymentAccountId"],
        },
        "destination": {
            "destinationPaymentAccountId": wallet.json()["paymentAccountId"],
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
    }


def create_quotes(client, body: dict, count: int) -> tuple[float, float, list[float]]:
    """-> (start, end, latencies): perf_counter is system-wide, so processes can be compared."""
    latencies = []
    start = time.perf_counter()
    for _ in range(count):
        t0 = time.perf_counter()
        response = client.post("/quotes", json=body)
        latencies.append(time.perf_counter() - t0)
        if response.status_code != 201:
            raise RuntimeError(f"POST /quotes: {response.status_code} {response.text[:300]}")
    return start, time.perf_counter(), latencies


def _quote_worker(job) -> tuple[float, float, list[float]]:
    plain, body, count = job
    client = api_client(plain)
    try:
        create_quotes(client, body, 20)  # warm-up: imports, connection
        return create_quotes(client, body, count)
    finally:
        client.close()
        from django.db import connections

        connections.close_all()


def bench_quotes(client, plain: str, key, args) -> dict:
    from django.db import connections

    body = quote_setup(client, key)
    create_quotes(client, body, 50)  # warm-up
    start, end, latencies = create_quotes(client, body, args.quotes)
    sequential = {"quotes": args.quotes, "per_second": round(args.quotes / (end - start), 1), **figures(latencies)}

    # Several processes at once, as gunicorn workers would be; each opens its own connection.
    connections.close_all()
    per_process = args.quotes // args.processes
    with multiprocessing.get_context("fork").Pool(args.processes) as pool:
        runs = pool.map(_quote_worker, [(plain, body, per_process)] * args.processes)
    started, ended = min(r[0] for r in runs), max(r[1] for r in runs)
    total = per_process * args.processes
    parallel = {
        "processes": args.processes,
        "quotes": total,
        "per_second": round(total / (ended - started), 1),
        **figures([latency for r in runs for latency in r[2]]),
    }
    return {"request": "POST /quotes (ACH USD -> BASE USDC onramp)", "one_process": sequential, "parallel": parallel}


if __name__ == "__main__":
    main()
