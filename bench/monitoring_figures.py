"""Monitoring and screening on PostgreSQL.

Prints JSON:
- what a transaction event's drain pays for monitoring, p50/p99: the announcement (the signal
  and its receiver, which sends no message for a transaction), and the mark the upsert writes
  (the row's UPDATE with `evaluation_due_at` beside the same UPDATE without it); then the
  worker's evaluate-due run with every kind of rule live, per transaction;
- a backtest of each windowed kind over N mirrored transactions (default 200,000; --full
  5,000,000), seconds;
- screening: one new customer against a 20,000-entry list (p50/p99), and the re-screening of
  every customer of the mirror after an import (default 100,000; --full 1,000,000), seconds.

    .venv/bin/python bench/monitoring_figures.py [--full] [--transactions N] [--customers N]
    .venv/bin/python bench/monitoring_figures.py --flood [--reuse]

--flood measures the same with bench/load.py running beside it (its gunicorn, worker and locust:
50 staff sessions and 200 webhook events a second, on a database of its own), from the moment
locust starts until the load ends; then load.py's own figures (events acknowledged and
processed) are added. Nothing else is measured in that run.
"""

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

FIRST = [
    "james",
    "mary",
    "john",
    "patricia",
    "robert",
    "jennifer",
    "michael",
    "linda",
    "william",
    "elizabeth",
    "david",
    "barbara",
    "richard",
    "susan",
    "joseph",
    "jessica",
    "thomas",
    "sarah",
    "charles",
    "karen",
    "ahmed",
    "fatima",
    "mohammed",
    "aisha",
    "ali",
    "omar",
    "yusuf",
    "maria",
    "jose",
    "juan",
    "ana",
    "luis",
    "carlos",
    "olga",
    "ivan",
    "dmitri",
    "sergei",
    "elena",
    "natalia",
    "wei",
    "li",
    "zhang",
    "chen",
    "hiroshi",
    "yuki",
    "kenji",
    "priya",
    "rahul",
    "anil",
    "sunita",
    "ngozi",
    "chidi",
]
LAST = [
    "smith",
    "johnson",
    "williams",
    "brown",
    "jones",
    "garcia",
    "miller",
    "davis",
    "rodriguez",
    "martinez",
    "hernandez",
    "lopez",
    "gonzalez",
    "wilson",
    "anderson",
    "thomas",
    "taylor",
    "moore",
    "jackson",
    "martin",
    "lee",
    "perez",
    "thompson",
    "white",
    "harris",
    "sanchez",
    "clark",
    "ramirez",
    "lewis",
    "robinson",
    "walker",
    "young",
    "allen",
    "king",
    "wright",
    "scott",
    "torres",
    "nguyen",
    "hill",
    "flores",
    "green",
    "adams",
    "nelson",
    "baker",
    "hall",
    "rivera",
    "campbell",
    "mitchell",
    "carter",
    "roberts",
    "petrov",
    "ivanov",
    "smirnov",
    "kuznetsov",
    "popov",
    "volkov",
    "sokolov",
    "novak",
    "horvat",
    "kowalski",
    "nowak",
    "wisniewski",
    "muller",
    "schmidt",
    "schneider",
    "fischer",
    "weber",
    "meyer",
    "wagner",
    "becker",
    "schulz",
    "hoffmann",
    "rossi",
    "russo",
    "ferrari",
    "esposito",
    "bianchi",
    "romano",
    "colombo",
    "ricci",
    "marino",
    "greco",
    "khan",
    "ahmed",
    "hussain",
    "rahman",
    "chowdhury",
    "singh",
    "kumar",
    "sharma",
    "patel",
    "okafor",
    "adeyemi",
    "mensah",
    "kimani",
    "otieno",
    "tanaka",
    "suzuki",
    "takahashi",
    "watanabe",
    "yamamoto",
    "kim",
    "park",
    "choi",
    "jung",
    "kang",
]


SYLLABLES = [
    "ka",
    "ro",
    "vel",
    "mi",
    "tan",
    "dor",
    "esh",
    "qua",
    "lin",
    "bor",
    "zu",
    "ke",
    "sar",
    "tov",
    "im",
    "nal",
    "gre",
    "pho",
    "ul",
    "dra",
]


def name(rng) -> str:
    """A customer's name: common first and last names."""
    return f"{rng.choice(FIRST).title()} {rng.choice(FIRST).title()} {rng.choice(LAST).title()}"


def listed_name(rng) -> str:
    """A list entry's name: made-up words (a list's names are mostly not the customers'), now and
    then with a common last name."""
    words = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))) for _ in range(2)]
    if rng.random() < 0.2:
        words.append(rng.choice(LAST))
    return " ".join(w.title() for w in words)


def make_customers(count: int, rng) -> None:
    from django.utils import timezone

    from customers.models import Customer

    now = timezone.now()
    for start in range(0, count, 20000):
        Customer.objects.bulk_create(
            Customer(
                customer_id=f"c{i:08d}",
                organization_id="org",
                customer_type="INDIVIDUAL",
                status="ACTIVE",
                name=name(rng),
                email=f"c{i}@example.com",
                status_since=now,
                synced_at=now,
            )
            for i in range(start, min(count, start + 20000))
        )


def make_transactions(count: int, customers: int) -> None:
    """`count` transactions over 90 days, spread over the customers, in one INSERT ... SELECT.
    One in 40 is in the band just under the approval threshold (9,000 to 9,999 USD)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM customers_customer")
        (first,) = cursor.fetchone()
        cursor.execute(
            """
            INSERT INTO payments_transaction (
                transaction_id, quote_id, customer_id, customer_upstream_id, status, status_since,
                source_account_id, source_payment_method, source_currency, source_amount, source_reference_id,
                destination_account_id, destination_payment_method, destination_currency, destination_reference_id,
                fees, correlation_id, created_upstream_at, missing_upstream, usd_value
            )
            SELECT 't' || g, '', %s + (g * 7919) %% %s, '', 'COMPLETED', now(),
                   '', CASE WHEN g %% 3 = 0 THEN 'BASE' ELSE 'ACH' END, 'USD', v, '',
                   'd' || (g %% 5000), CASE WHEN g %% 3 = 0 THEN 'ACH' ELSE 'BASE' END, 'USDC', '',
                   '{}', '', now() - (g %% 7776000) * interval '1 second', false, v
            FROM (
                SELECT g, CASE WHEN g %% 40 = 0 THEN 9000 + (g %% 1000) ELSE 10 + (g %% 5000) END::numeric AS v
                FROM generate_series(1::bigint, %s) AS g
            ) AS rows
            """,
            [first, customers, count],
        )
        # As autovacuum would: the visibility map lets the backtests read the index alone.
        cursor.execute("VACUUM ANALYZE payments_transaction")


def make_list(entries: int, rng):
    from monitoring.importers import import_entries
    from monitoring.models import WatchList

    watchlist = WatchList.objects.create(name="Bench list", format="ofac_sdn", match_threshold=90)
    rows = [
        {
            "source_id": str(i),
            # One entry in a hundred is a customer's name (a hit to find).
            "name": name(rng) if i % 100 == 0 else listed_name(rng),
            "aliases": [],
            "schema": "individual",
            "program": "BENCH",
            "source": "bench",
            "postal_addresses": [],
            "wallets": [],
        }
        for i in range(entries)
    ]
    return import_entries(watchlist, rows)


def live_rules():
    from monitoring.models import RuleKind
    from monitoring.rules import default_params
    from monitoring.services import rule_approve, rule_create, rule_submit
    from tests.monitoring.helpers import admin

    maker, checker = admin(), admin()
    extra = {RuleKind.WATCHED: {"methods": ["POLYGON"]}}
    for kind in RuleKind:
        rule = rule_create(
            user=maker, name=kind.label, kind=kind, params={**default_params(kind), **extra.get(kind, {})}
        )
        rule_submit(user=maker, rule=rule)
        rule_approve(user=checker, rule=rule)


def backtests(backtest, Backtest, MonitoringRule, RuleKind) -> dict:
    """Backtests of the live version of each kind over the whole history: seconds and alerts."""
    figures = {}
    for kind in (RuleKind.STRUCTURING, RuleKind.VELOCITY, RuleKind.LARGE_TRANSFER, RuleKind.RAPID_IN_OUT):
        version = MonitoringRule.objects.get(kind=kind).live_version
        run = backtest.run(Backtest.objects.create(version=version))
        figures[kind.value] = {"seconds": run.seconds, "alerts": run.hits, "customers": run.customers}
    return figures


FLOOD_BROKER = "redis://127.0.0.1:6379/8"


def drain_share(pks: list, timings: dict) -> None:
    """One round of what the drain pays for monitoring, per transaction: the row's UPDATE with
    the mark and without it (the upsert's save writes the row either way), and the announcement;
    each in a database transaction of its own, wall and processor time."""
    from django.db import transaction
    from django.utils import timezone

    from payments.models import Transaction
    from upstream.mirrored import Source, announce_changes

    for pk in pks:
        row = Transaction.objects.filter(pk=pk)
        for name, marked in (("update_without_mark", False), ("update_with_mark", True)):
            values = {"synced_at": timezone.now()} | ({"evaluation_due_at": timezone.now()} if marked else {})
            started = time.perf_counter()
            with transaction.atomic():
                row.update(**values)
            timings[name].append((time.perf_counter() - started) * 1000)
        started, cpu = time.perf_counter(), time.process_time()
        with transaction.atomic():
            announce_changes(Transaction, [pk], Source.WEBHOOK)
        timings["announcement"].append((time.perf_counter() - started) * 1000)
        timings["announcement_processor"].append((time.process_time() - cpu) * 1000)


def evaluate_due_round(evaluate_due, timings: dict) -> None:
    """The worker's run over the rows the round marked: milliseconds per transaction."""
    from payments.models import Transaction

    due = Transaction.objects.filter(evaluation_due_at__isnull=False).count()
    if due:
        started = time.perf_counter()
        evaluate_due()
        timings["evaluation_per_transaction"].append((time.perf_counter() - started) * 1000 / due)


def summary(timings: dict) -> dict:
    from _setup import percentile

    return {
        name: {
            "count": len(values),
            "p50": round(percentile(values, 0.5), 3),
            "p99": round(percentile(values, 0.99), 3),
        }
        for name, values in timings.items()
        if values
    }


def _load_running() -> bool:
    """locust, started by bench/load.py once its set-up is done, is the flood."""
    return subprocess.run(["pgrep", "-f", "locustfile.py"], capture_output=True, check=False).returncode == 0


def flood(seconds: int, pks: list, evaluate_due, live_versions) -> dict:
    """The drain's share and the worker's evaluation, timed while bench/load.py's load runs."""
    bench = Path(__file__).resolve().parent
    log = Path(tempfile.mkstemp(prefix="bench-flood-", suffix=".json")[1])
    errors = log.with_suffix(".err")
    load = subprocess.Popen(
        [sys.executable, str(bench / "load.py"), "--seconds", str(seconds)],
        cwd=bench.parent,
        stdout=log.open("wb"),
        stderr=errors.open("wb"),
        env={k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")},
    )
    timings = defaultdict(list)
    try:
        deadline = time.monotonic() + 900
        while not _load_running():
            if load.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"bench/load.py ended before its load began:\n{errors.read_text()[-3000:]}")
            time.sleep(0.5)
        load_started = time.monotonic()
        rounds = 0
        while _load_running() and time.monotonic() - load_started < seconds - 5:
            # Wall time, and the announcement's processor time: on a machine the flood
            # saturates, the wall time's tail is mostly the wait for a processor.
            drain_share(pks[rounds % 20 * 50 :][:50], timings)
            evaluate_due_round(evaluate_due, timings)
            rounds += 1
        measured = time.monotonic() - load_started
        load.wait(timeout=seconds + 1200)
    finally:
        if load.poll() is None:
            load.terminate()
            load.wait(timeout=60)
    try:
        report = json.loads(log.read_text())
    except ValueError:
        report = {}
    log.unlink(missing_ok=True)
    errors.unlink(missing_ok=True)
    return {
        "measured_seconds_under_load": round(measured, 1),
        "rules": len(live_versions()),
        "drain_ms": summary(timings),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "load": {
            key: report.get(key) for key in ("load", "webhooks", "staff_requests_all", "errors", "machine_speed_ms")
        },
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="5,000,000 transactions and 1,000,000 customers")
    parser.add_argument("--transactions", type=int, default=200_000)
    parser.add_argument("--customers", type=int, default=100_000)
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument(
        "--backtests-only", action="store_true", help="only the backtests (before/after a change, same data)"
    )
    parser.add_argument("--flood", action="store_true", help="only the drain, with bench/load.py running beside it")
    parser.add_argument("--flood-seconds", type=int, default=90, help="load.py --seconds")
    parser.add_argument("--keep", action="store_true", help="leave the database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="the database and rules a --keep run left")
    args = parser.parse_args()
    if args.full:
        args.transactions, args.customers = 5_000_000, 1_000_000

    os.environ["CELERY_BROKER_URL"] = FLOOD_BROKER if args.flood else "memory://"
    from _setup import machine_speed, percentile, setup_django

    setup_django("bench_monitoring", keep=args.keep or args.reuse, reuse=args.reuse)
    from celery import current_app

    from monitoring import backtest
    from monitoring.detection import detect
    from monitoring.models import Backtest, MonitoringRule, RuleKind, WatchList
    from monitoring.screening import name_index
    from monitoring.services import evaluate_transactions, live_versions
    from monitoring.tasks import evaluate_due_transactions, rescreen_mirror
    from payments.models import Transaction

    current_app.conf.task_always_eager = False
    rng = random.Random(30)
    result = {"benchmark": "monitoring", "database": "postgresql", "machine_ms": machine_speed()}

    started = time.perf_counter()
    if not args.reuse:
        make_customers(args.customers, rng)
        make_transactions(args.transactions, args.customers)
        live_rules()
    result["setup_seconds"] = round(time.perf_counter() - started, 1)
    from customers.models import Customer

    result["customers"], result["transactions"] = Customer.objects.count(), Transaction.objects.count()
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if args.backtests_only:
        result["backtest_seconds"] = backtests(backtest, Backtest, MonitoringRule, RuleKind)
        result["when"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        print(json.dumps(result, indent=2))
        return

    pks = list(Transaction.objects.order_by("?").values_list("pk", flat=True)[:1050])
    Transaction.objects.filter(evaluation_due_at__isnull=False).update(evaluation_due_at=None)
    if args.flood:
        result["flood"] = flood(args.flood_seconds, pks, evaluate_due_transactions, live_versions)
        result["when"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        print(json.dumps(result, indent=2))
        return

    # What the drain pays (the first round warms up), and the worker's run over those marks.
    timings = defaultdict(list)
    for start in range(0, len(pks), 50):
        drain_share(pks[start : start + 50], timings)
        evaluate_due_round(evaluate_due_transactions, timings)
        if not start:
            timings.clear()
    result["drain_ms"] = summary(timings)

    # The evaluation alone: every live rule (one of each kind) over one transaction.
    versions = live_versions()
    work = []
    for pk in pks:
        started = time.perf_counter()
        evaluate_transactions([pk], versions)
        work.append((time.perf_counter() - started) * 1000)
    work = work[50:]
    result["evaluation_ms_per_transaction"] = {
        "rules": len(versions),
        "p50": round(percentile(work, 0.5), 2),
        "p99": round(percentile(work, 0.99), 2),
    }
    by_kind = {}
    rows = list(Transaction.objects.filter(pk__in=pks[50:550]))
    for version in versions:
        spent = []
        for row in rows:
            started = time.perf_counter()
            detect(version.rule.kind, version.params, row)
            spent.append((time.perf_counter() - started) * 1000)
        by_kind[version.rule.kind] = {"p50": round(percentile(spent, 0.5), 2), "p99": round(percentile(spent, 0.99), 2)}
    result["evaluation_ms_by_kind"] = by_kind

    result["backtest_seconds"] = backtests(backtest, Backtest, MonitoringRule, RuleKind)

    # Screening against a 20,000-entry list.
    watchlist = make_list(args.entries, rng)
    started = time.perf_counter()
    index = name_index(watchlist)
    result["screening_index_build_seconds"] = round(time.perf_counter() - started, 2)
    one = []
    for _ in range(1050):
        query = name(rng)
        started = time.perf_counter()
        index.match(query, watchlist.match_threshold)
        one.append((time.perf_counter() - started) * 1000)
    one = one[50:]
    result["screen_one_customer_ms"] = {"p50": round(percentile(one, 0.5), 3), "p99": round(percentile(one, 0.99), 3)}
    started = time.perf_counter()
    hits = rescreen_mirror(watchlist.pk)
    seconds = time.perf_counter() - started
    watchlist = WatchList.objects.get(pk=watchlist.pk)
    result["rescreen_mirror"] = {
        "screened": watchlist.screening_done,
        "entries": args.entries,
        "seconds": round(seconds, 1),
        "alerts": hits,
    }
    result["when"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
