"""Load: staff sessions browsing and quoting while webhook events pour in, against gunicorn
on PostgreSQL with a Celery worker on Redis, all on loopback.

What runs, each a process of its own (own process group, stopped at the end):
- gunicorn backoffice.wsgi (4 processes x 4 threads, gthread) with production settings (DEBUG
  off) on 127.0.0.1, the sandbox mounted in it as the Payments API (or beside it, see below);
- a Celery worker (prefork, 2 processes) on a dedicated Redis database, flushed before and after;
- locust (bench/locustfile.py), headless: 50 staff users, each logged in as its own operations
  user, and webhook senders posting 200 signed events a second in all, for 60 seconds.

Set-up, on a throw-away database (created here, dropped at exit): migrate, collectstatic
(the manifest of production settings), `register_webhook`, `sandbox_seed --customers 200`
(its events reach the mirror through the worker, as transactions only can), `sync_mirror`,
and 50 staff users.

Prints JSON: p50/p95/p99 and request counts per page, errors, and webhook events sent,
acknowledged, stored in the inbox, lost (acknowledged but not stored) and processed by the
worker by the end. Bounded: 60 s of load (at most ~200 events/s and ~100 pages/s), a few
seconds for stragglers; every child has a time limit.

    .venv/bin/python bench/load.py [--users 50] [--seconds 60] [--events-per-second 200]
                                   [--sandbox mounted|separate] [--keep-logs]

With --sandbox separate the sandbox runs in a gunicorn of its own (as a real provider is
elsewhere); mounted, the quote preview and the worker's re-reads call back into the measured
server. Results and their reading: docs/benchmarks.md, "Load".
"""

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DATABASE = "bench_load"
PASSWORD = "load-bench-staff-password"  # noqa: S105 - throw-away users of a throw-away database
SENDERS = 40  # webhook users; each sends events_per_second / SENDERS a second


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass


def manage(env: dict, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def wait_for(predicate, *, timeout: float, what: str, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise SystemExit(f"timed out after {timeout:g} s waiting for {what}")


def healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def group_cpu_seconds(pgid: int) -> float:
    """CPU time (user + system) of the live processes of one process group, from /proc."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the name: state ppid pgrp ... utime(11) stime(12)
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def summary(values: list[float]) -> dict:
    from _setup import percentile

    return {
        "requests": len(values),
        "p50_ms": round(percentile(values, 0.50), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "p99_ms": round(percentile(values, 0.99), 1),
        "max_ms": round(max(values), 1),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=50, help="staff sessions")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--events-per-second", type=int, default=200)
    parser.add_argument("--customers", type=int, default=200, help="sandbox_seed --customers")
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument("--gunicorn-threads", type=int, default=4)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/12", help="a Redis database of its own")
    parser.add_argument(
        "--sandbox",
        choices=["mounted", "separate"],
        default="mounted",
        help="mounted: the sandbox in the measured gunicorn (the embedded default); separate: in a "
        "gunicorn of its own (2 x 4), as a real provider is elsewhere",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the processes' logs (path on stderr)")
    args = parser.parse_args()
    assert args.seconds <= 600 and args.events_per_second <= 1000 and args.users <= 500, "bounded by design"

    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    webhook_url = f"{origin}/webhooks/payments"
    provider = origin if args.sandbox == "mounted" else f"http://127.0.0.1:{free_port()}"
    env = {
        # Production settings on plain loopback HTTP (TLS would end at a load balancer).
        "DEBUG": "0",
        "SECRET_KEY": "load-benchmark-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "CONN_MAX_AGE": "60",
        "CELERY_BROKER_URL": args.broker,
        "PAYMENTS_API_BASE_URL": f"{provider}/sandbox",
        # Routes of the sandbox in every process (its events' links reverse them); with
        # --sandbox separate, the client calls the sandbox's own gunicorn instead.
        "SANDBOX_MOUNTED": "1",
        "PAYMENTS_WEBHOOK_SECRET": "",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "backoffice.settings",
    }
    # This process is configured as the children are (it queues tasks to their broker).
    os.environ.update(env)
    from _setup import setup_django

    setup_django(DATABASE)
    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group

    from backoffice.models import WebhookEvent, WebhookSecret
    from backoffice.roles import Role
    from backoffice.tasks import process_webhook_event
    from customers.models import Customer
    from payments.models import Transaction
    from sandbox.models import Delivery, DeliveryStatus

    env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    env["PAYMENTS_API_KEY"] = settings.SANDBOX_DEMO_API_KEY  # sandbox_seed's organization
    broker = redis.Redis.from_url(args.broker)
    broker.flushdb()
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    static_existed = (ROOT / "staticfiles").exists()
    processes: dict[str, subprocess.Popen] = {}
    try:
        manage(env, "collectstatic", "--noinput", "-v", "0")
        processes["gunicorn"] = start(
            [
                str(BIN / "gunicorn"),
                "backoffice.wsgi",
                "--workers",
                str(args.gunicorn_workers),
                "--threads",
                str(args.gunicorn_threads),
                "--bind",
                f"127.0.0.1:{port}",
                "--timeout",
                "30",
            ],
            env,
            workdir / "gunicorn.log",
        )
        processes["worker"] = start(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "backoffice",
                "worker",
                "--concurrency",
                str(args.celery_concurrency),
                "--loglevel",
                "WARNING",
            ],
            env,
            workdir / "worker.log",
        )
        if args.sandbox == "separate":
            processes["sandbox"] = start(
                [
                    str(BIN / "gunicorn"),
                    "backoffice.wsgi",
                    "--workers",
                    "2",
                    "--threads",
                    "4",
                    "--bind",
                    provider.removeprefix("http://"),
                ],
                {**env, "ROOT_URLCONF": "sandbox.standalone_urls"},
                workdir / "sandbox.log",
            )
            wait_for(lambda: healthy(f"{provider}/sandbox/openapi.json"), timeout=30, what="the sandbox's gunicorn")
        wait_for(lambda: healthy(f"{origin}/healthz"), timeout=30, what="gunicorn")

        # The mirror, filled the way production fills it: webhooks first, then the seed's
        # events through the worker, then a full sync.
        started = time.perf_counter()
        manage(env, "sandbox_seed", "--key-only")
        manage(env, "register_webhook", "--url", webhook_url)
        manage(env, "sandbox_seed", "--customers", str(args.customers))
        manage(env, "sync_mirror", "--quiet")

        def settled(*, attempted_only: bool):
            pending = Delivery.objects.filter(endpoint__url=webhook_url, status=DeliveryStatus.PENDING).count()
            received = WebhookEvent.objects.filter(state=WebhookEvent.State.RECEIVED)
            if attempted_only:
                received = received.filter(attempts=0)
            left = received.count()
            print(f"set-up: {pending} deliveries pending, {left} events to process", file=sys.stderr)
            return not pending and not left

        wait_for(
            lambda: settled(attempted_only=True), timeout=300, what="the seed's events to reach the inbox", every=5
        )
        # An event whose processing raised stays RECEIVED for the inbox sweep (beat, every
        # 60 s, after 30 s). Re-queue them now, as the sweep would, and count them.
        stuck = list(WebhookEvent.objects.filter(state=WebhookEvent.State.RECEIVED).values_list("pk", flat=True))
        for pk in stuck:
            process_webhook_event.delay(pk)
        wait_for(lambda: settled(attempted_only=False), timeout=120, what="the re-queued seed events", every=2)
        seeded_events = WebhookEvent.objects.count()
        set_up_seconds = time.perf_counter() - started

        User = get_user_model()
        operations = Group.objects.get(name=Role.OPERATIONS.value)
        password = make_password(PASSWORD)
        users = User.objects.bulk_create(
            User(username=f"load-staff-{i:03d}", password=password) for i in range(args.users)
        )
        operations.user_set.add(*users)

        data = {
            "usernames": [u.username for u in users],
            "password": PASSWORD,
            "customers": list(Customer.objects.values_list("customer_id", flat=True)),
            "active_customers": list(
                Customer.objects.filter(status="ACTIVE", payment_accounts__isnull=False)
                .distinct()
                .values_list("customer_id", flat=True)
            ),
            "transactions": list(Transaction.objects.values_list("transaction_id", flat=True)),
            "webhook_secret": WebhookSecret.objects.get(url=webhook_url).secret,
            "senders": SENDERS,
            "events_per_sender_per_second": args.events_per_second / SENDERS,
        }
        (workdir / "data.json").write_text(json.dumps(data))
        out = workdir / "out.json"
        load_env = {"BENCH_LOAD_DATA": str(workdir / "data.json"), "BENCH_LOAD_OUT": str(out)}
        processes["locust"] = start(
            [
                str(BIN / "locust"),
                "-f",
                str(ROOT / "bench" / "locustfile.py"),
                "--headless",
                "--only-summary",
                "--users",
                str(args.users + SENDERS),
                "--spawn-rate",
                "10",
                "--run-time",
                f"{args.seconds}s",
                "--stop-timeout",
                "10",
                "--host",
                origin,
                "--loglevel",
                "WARNING",
            ],
            load_env,
            workdir / "locust.log",
        )
        load_started = time.monotonic()
        load_before = round(os.getloadavg()[0], 2)
        servers = [name for name in ("gunicorn", "sandbox", "worker") if name in processes]
        cpu_before = {name: group_cpu_seconds(processes[name].pid) for name in servers}
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        processes["locust"].wait(timeout=args.seconds + 60)
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.monotonic() - load_started
        cpu = {name: group_cpu_seconds(processes[name].pid) - cpu_before[name] for name in servers}
        cpu["locust"] = (children_after.ru_utime + children_after.ru_stime) - (
            children_before.ru_utime + children_before.ru_stime
        )
        cpu_share = {name: f"{seconds / wall:.2f} cores" for name, seconds in cpu.items()}
        result = json.loads(out.read_text())

        # Stragglers: the inbox count settles once the last acknowledged event is stored.
        def load_events():
            return WebhookEvent.objects.filter(event_id__startswith="evt_load_")

        previous = -1
        for _ in range(20):
            count = load_events().count()
            if count == previous:
                break
            previous = count
            time.sleep(0.5)
        stored_ids = set(load_events().values_list("event_id", flat=True))
        processed = load_events().filter(state=WebhookEvent.State.PROCESSED).count()
        processing_seconds = time.monotonic() - load_started
        failed_processing = load_events().filter(state=WebhookEvent.State.FAILED).count()

        timings = result["timings_ms"]
        # Steady state: from the moment every staff session has logged in (the logins' password
        # hashing is the ramp-up's cost and is reported on its own, as "login").
        logins = timings.get("login", [])
        steady_from = max(start + ms / 1000 for start, ms in logins) if logins else result["started"]
        pages = {name: summary([ms for _, ms in values]) for name, values in sorted(timings.items())}
        steady = {
            name: summary(kept)
            for name, values in sorted(timings.items())
            if not name.startswith("login") and (kept := [ms for start, ms in values if start >= steady_from])
        }
        staff = [
            (start, ms) for name, values in timings.items() if not name.startswith("webhook") for start, ms in values
        ]
        staff_steady = [ms for start, ms in staff if start >= steady_from]
        logs = {name: (workdir / f"{name}.log").read_text(errors="replace") for name in processes}
        report = {
            "benchmark": "load",
            "database": "postgresql",
            "set_up": {
                "sandbox_customers": args.customers,
                "mirror_customers": len(data["customers"]),
                "mirror_transactions": len(data["transactions"]),
                "seed_webhook_events": seeded_events,
                "seed_events_whose_first_processing_raised": len(stuck),
                "seconds": round(set_up_seconds, 1),
            },
            "load": {
                "staff_sessions": args.users,
                "seconds": args.seconds,
                "webhook_events_per_second_target": args.events_per_second,
                "gunicorn": f"{args.gunicorn_workers} processes x {args.gunicorn_threads} threads",
                "celery_worker_processes": args.celery_concurrency,
                "sandbox": args.sandbox,
            },
            "pages": pages,
            "staff_requests_all": summary([ms for _, ms in staff]),
            "steady_state_after_logins": {
                "from_second": round(steady_from - result["started"], 1),
                "pages": steady,
                "staff_requests_all": summary(staff_steady) if staff_steady else None,
            },
            "errors": {name: len(errs) for name, errs in result["errors"].items()},
            "error_samples": {name: errs[:3] for name, errs in result["errors"].items()},
            "webhooks": {
                "sent": len(result["sent"]),
                "sent_per_second": round(len(result["sent"]) / args.seconds, 1),
                "acknowledged": len(result["acknowledged"]),
                "unanswered_when_the_run_stopped": len(set(result["sent"]) - set(result["acknowledged"]))
                - sum(len(e) for name, e in result["errors"].items() if name.startswith("webhook")),
                "stored_in_inbox": len(stored_ids),
                "lost": len(set(result["acknowledged"]) - stored_ids),
                "processed_by_the_end": processed,
                "processed_per_second": round(processed / processing_seconds, 1),
                "failed_processing": failed_processing,
            },
            "tracebacks_in_logs": {name: log.count("Traceback") for name, log in logs.items()},
            "api_timeouts_in_gunicorn_log": logs["gunicorn"].count("ApiTimeout"),
            "api_timeouts_in_worker_log": logs["worker"].count("ApiTimeout"),
            "load_average_1min": {"before": load_before, "after": round(os.getloadavg()[0], 2)},
            "cpu_during_the_run": cpu_share,
        }
        print(json.dumps(report, indent=2))
    finally:
        for process in reversed(processes.values()):
            stop(process)
        broker.flushdb()
        broker.close()
        if not static_existed:
            shutil.rmtree(ROOT / "staticfiles", ignore_errors=True)
        if args.keep_logs:
            print(f"logs kept in {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
