"""Shared set-up of the benchmarks: a throw-away PostgreSQL database, Django, the sandbox key.

Each benchmark runs against its own database (created here, dropped at exit) so that the
figures do not depend on what a developer's database holds.
"""

import atexit
import datetime as dt
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")


def _psql(sql: str) -> None:
    subprocess.run(["psql", f"{PG}/postgres", "-qc", sql], check=True, capture_output=True)


def _drop(name: str) -> None:
    from django.db import connections

    connections.close_all()
    _psql(f"DROP DATABASE IF EXISTS {name}")


def production_env(**overrides: str) -> dict:
    """Production settings for a benchmark on plain loopback HTTP (TLS would end at a load
    balancer), with persistent database connections; `overrides` adds or replaces variables."""
    return {
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "SECURE_SSL_REDIRECT": "0",
        "CONN_MAX_AGE": "60",
        # The benchmarks' staff log in with a password only; the enrolment check costs one
        # query per session (staff.mfa), not per page.
        "STAFF_MFA_REQUIRED": "0",
        **overrides,
    }


def mirror_ids() -> dict:
    """What the load's pages ask for: every mirrored customer, the ACTIVE ones with a payment
    account (those can be quoted), every transaction."""
    from customers.models import Customer
    from payments.models import Transaction

    return {
        "customers": list(Customer.objects.values_list("customer_id", flat=True)),
        "active_customers": list(
            Customer.objects.filter(status="ACTIVE", payment_accounts__isnull=False)
            .distinct()
            .values_list("customer_id", flat=True)
        ),
        "transactions": list(Transaction.objects.values_list("transaction_id", flat=True)),
    }


def database_exists(name: str) -> bool:
    listed = subprocess.run(["psql", f"{PG}/postgres", "-Atl"], check=True, capture_output=True, text=True)
    return name in {line.split("|", 1)[0] for line in listed.stdout.splitlines()}


def setup_django(name: str, *, keep: bool = False, reuse: bool = False) -> None:
    """Create database `name` (or, with `reuse`, take the one left by an earlier run), point
    Django at it, migrate. `keep` leaves it when the process ends."""
    if not reuse:
        _psql(f"DROP DATABASE IF EXISTS {name}")
        _psql(f"CREATE DATABASE {name}")
    if not keep:
        atexit.register(_drop, name)
    os.environ["DATABASE_URL"] = f"{PG}/{name}"
    os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def pages_without_upstream(name: str, *, keep: bool = False, reuse: bool = False) -> bool:
    """The pages of the mirror in production settings, with no upstream to call, against
    database `name` (made and migrated, or with `reuse` the one an earlier `keep` left when it
    exists); static files named as they are (no manifest). Returns whether it was reused."""
    os.environ.update(production_env(ALLOWED_HOSTS="testserver", PAYMENTS_API_BASE_URL="http://127.0.0.1:9/unused"))
    reuse = reuse and database_exists(name)
    setup_django(name, keep=keep or reuse, reuse=reuse)
    from django.conf import settings

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    return reuse


def in_process_upstream():
    """Point the back-office client at the mounted sandbox through WSGI, with a new key.

    Returns (ApiKey row, plain key). In-process: the figures are server time, no network.
    """
    from django.conf import settings
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from sandbox.auth import create_key

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    key, plain = create_key()
    settings.PAYMENTS_API_KEY = plain
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    settings.PAYMENTS_API_IN_PROCESS = True
    settings.ALLOWED_HOSTS = ["*"]
    return key, plain


def machine_speed() -> float:
    """Milliseconds of processor for a fixed piece of pure Python (the best of five): the same
    code measures 2x apart on this shared machine from one day to the next, and this figure
    says which kind of day a run had."""

    def work():
        started = time.process_time()
        text = ""
        for i in range(200_000):
            text = f"{i}:{text[-20:]}"
        sorted(str(i) for i in range(100_000))
        return (time.process_time() - started) * 1000

    return round(min(work() for _ in range(5)), 1)


# The yardstick of the machine on which the export's and the sync's throughput targets were asked.
THROUGHPUT_YARDSTICK = 57.4


def scaled_target(target: float, speeds: list[float]) -> int:
    """A throughput target asked on a machine whose yardstick read THROUGHPUT_YARDSTICK, on this
    run's machine (the mean of the yardstick readings `speeds`): a faster machine owes more."""
    return round(target * THROUGHPUT_YARDSTICK / (sum(speeds) / len(speeds)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def signed_event(secret: str, customer_id: str, *, event_id: str = "", msg_id: str = "") -> tuple[str, str, dict]:
    """A customer.update event as the provider sends it, signed with `secret` as the sandbox
    signs its deliveries: (event id, body, headers by their names on the wire)."""
    from sandbox.signing import signature_headers

    now = dt.datetime.now(tz=dt.UTC)
    event_id = event_id or f"evt_{uuid.uuid4().hex}"
    body = json.dumps(
        {
            "eventId": event_id,
            "eventType": "customer.update",
            "createdAt": now.isoformat(),
            "data": {"customerId": customer_id, "verificationIssues": []},
        }
    )
    headers = signature_headers(secret, msg_id or f"msg_{uuid.uuid4().hex}", now, body)
    return event_id, body, headers


def time_page(client, url: str, *, status: int = 200, repeats: int) -> dict:
    """{"p50_ms", "p99_ms", "queries"} of `url`: two requests first (each answering `status`),
    then the fewer statements of two (once a minute a request also refreshes the session's
    expiry, core.middleware.IdleSessionMiddleware, 2 statements, which one count alone may
    catch), then `repeats` timed requests."""
    for _ in range(2):
        response = client.get(url)
        assert response.status_code == status, (url, response.status_code)
    queries = min(count_queries(lambda: client.get(url)) for _ in range(2))
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 1), "p99_ms": round(percentile(times, 0.99), 1), "queries": queries}


def count_queries(call) -> int:
    """SQL statements one call runs. A wrapper, not connection.queries: that log is a bounded
    deque that may be full, and it needs DEBUG."""
    from django.db import connection

    statements = []
    with connection.execute_wrapper(lambda execute, sql, *args: statements.append(sql) or execute(sql, *args)):
        call()
    return len(statements)
