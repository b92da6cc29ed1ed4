"""Chaos: the machine's PostgreSQL and Redis restarted, a worker killed mid-drain, beat killed
and restarted, under a steady load of webhook events, staff page views and staff writes.

NOT FOR CI, NOT ON A SHARED MACHINE WHILE OTHERS USE ITS SERVICES: the postgres and redis
faults restart the machine's own PostgreSQL cluster and Redis server (the commands of
TOOLCHAIN.md), which every other user of the machine feels. Run it by hand; it restores both
services at the end whatever happens (an error, Ctrl-C).

The topology is the real one, each a process of its own on loopback, on a throw-away database
(bench_chaos, dropped at exit) and a Redis database of its own (--broker, flushed): gunicorn
(production settings, the sandbox mounted as the Payments API), a Celery worker (prefork) and
Celery beat (the sweep of the inbox, the sandbox's webhook deliveries). The load, from this
process: webhook senders posting signed customer.update events at --events-per-second (a
delivery that is not acknowledged is sent again, as the provider does), a staff session
viewing pages at --pages-per-second, and a staff writer creating one customer with an e-mail
of its own every --write-every seconds through the back-office's service (the API first; a
lost answer reconciled).

For each fault of --faults, in order: --seconds-before of steady load, the fault, the time
until /healthz answers 200 with the broker "ok" again (readiness), --seconds-after of load.
Then the load stops and the inbox is drained (at most --drain-seconds: a killed worker's
claims are let go when their 2-minute lease ends, and beat's sweep takes them). Checks,
printed as JSON with the figures: every acknowledged event stored once and processed (none
lost, none left), every event processed in at most a few attempts, no customer e-mail of the
writer created twice upstream, the readiness times, and the errors seen by the pages.

    .venv/bin/python bench/chaos.py --faults postgres,redis,worker,beat     # the lead, by hand
    .venv/bin/python bench/chaos.py --faults none --seconds-before 10       # the load alone
    .venv/bin/python bench/chaos.py --faults worker,beat                    # no shared service

Results and their reading: docs/reliability.md.
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contextlib

from load import BIN, free_port, healthy, manage, staff_session, start, stop, wait_for

DATABASE = "bench_chaos"
FAULTS = ["postgres", "redis", "worker", "beat"]
PG_VERSION = next(iter(sorted(os.listdir("/etc/postgresql"))), "15") if os.path.isdir("/etc/postgresql") else "15"
SERVICES = {
    "postgres": {
        "stop": ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, "main", "stop"],
        "start": ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, "main", "start"],
        "up": ["pg_isready", "-h", "127.0.0.1", "-q"],
    },
    "redis": {
        "stop": ["redis-cli", "-p", "6379", "shutdown", "nosave"],
        "start": [
            "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379",
            "--save", "", "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log",
        ],
        "up": ["redis-cli", "-p", "6379", "ping"],
    },
}  # fmt: skip
PAGES = ["/", "/customers/", "/payments/transactions/", "/payments/accounts/"]


def run(command: list[str]) -> bool:
    return subprocess.run(command, capture_output=True, timeout=60, check=False).returncode == 0


def ensure_up(service: str) -> None:
    """Start `service` if it does not answer (the restore of the end, whatever happened)."""
    spec = SERVICES[service]
    if not run(spec["up"]):
        run(spec["start"])
    wait_for(lambda: run(spec["up"]), timeout=60, what=f"{service} to answer")


def restart(service: str) -> None:
    spec = SERVICES[service]
    run(spec["stop"])
    time.sleep(1)
    run(spec["start"])


class Load:
    """Threads of steady load; what they saw, for the checks."""

    def __init__(self, origin: str, secret: str, customers: list[str], session: str, args):
        self.origin, self.secret, self.customers, self.session, self.args = origin, secret, customers, session, args
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.sent: dict[str, bool] = {}  # event id -> acknowledged
        self.deliveries = Counter()  # status code (or error name) of each delivery try
        self.pages = Counter()
        self.writes = Counter()
        self.emails: list[str] = []
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        senders = max(1, self.args.events_per_second // 50)
        for _ in range(senders):
            self._thread(self._send_events, self.args.events_per_second / senders)
        self._thread(self._view_pages)
        self._thread(self._write)

    def _thread(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _send_events(self, rate: float) -> None:
        from _setup import signed_event

        backlog: list[tuple[str, str, str]] = []  # (event id, customer, msg id) to deliver again
        with httpx.Client(base_url=self.origin, timeout=10) as client:
            next_at = time.monotonic()
            while not self.stopping.is_set():
                if backlog:
                    event_id, customer, msg_id = backlog.pop(0)
                else:
                    event_id, customer, msg_id = f"evt_{uuid.uuid4().hex}", random.choice(self.customers), ""
                    msg_id = f"msg_{event_id}"
                    with self.lock:
                        self.sent[event_id] = False
                # Signed anew at each try (the timestamp), with the same event and message ids.
                _, body, headers = signed_event(self.secret, customer, event_id=event_id, msg_id=msg_id)
                try:
                    status = client.post("/webhooks/payments", content=body, headers=headers).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                with self.lock:
                    self.deliveries[str(status)] += 1
                    if status in (200, 202):
                        self.sent[event_id] = True
                if status not in (200, 202):
                    backlog.append((event_id, customer, msg_id))
                next_at += 1 / rate
                time.sleep(max(0.0, next_at - time.monotonic()))

    def _view_pages(self) -> None:
        cookies = {"sessionid": self.session}
        with httpx.Client(base_url=self.origin, timeout=30, cookies=cookies) as client:
            while not self.stopping.is_set():
                try:
                    status = str(client.get(random.choice(PAGES)).status_code)
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                with self.lock:
                    self.pages[status] += 1
                time.sleep(1 / self.args.pages_per_second)

    def _write(self) -> None:
        """Staff creates: through the service, as the view calls it (the API first, then the
        mirror and the audit; a lost answer looked up by e-mail)."""
        from django.contrib.auth import get_user_model
        from django.db import close_old_connections, connection

        from customers.services import customer_create
        from paymentsapi import PaymentsApiError

        actor = get_user_model().objects.get(username="chaos-staff")
        while not self.stopping.wait(self.args.write_every):
            email = f"chaos-{uuid.uuid4().hex[:12]}@example.com"
            self.emails.append(email)
            try:
                close_old_connections()
                customer_create(
                    actor=actor,
                    submission=str(uuid.uuid4()),
                    customer_type="INDIVIDUAL",
                    email=email,
                    first_name="C",
                    last_name="H",
                )
                outcome = "created"
            except PaymentsApiError as exc:
                outcome = type(exc).__name__
            except Exception as exc:  # the database down: the service cannot even audit
                outcome = f"local {type(exc).__name__}"
            with self.lock:
                self.writes[outcome] += 1
        connection.close()  # this thread's: the database is dropped at exit


def processing_seconds(at, started: float, timeout: float) -> float | None:
    """Seconds from `started` until an event is processed after the wall-clock moment `at`
    (the worker, the broker and the database all working again)."""
    from django.db import DatabaseError, close_old_connections

    from mirror.models import WebhookEvent

    deadline = started + timeout
    while time.monotonic() < deadline:
        close_old_connections()
        try:
            if WebhookEvent.objects.filter(processed_at__gt=at).exists():
                return round(time.monotonic() - started, 1)
        except DatabaseError:
            pass
        time.sleep(0.5)
    return None


def readiness_seconds(origin: str, started: float, timeout: float) -> float | None:
    """Seconds from `started` until /healthz is 200 with the broker ok (None: not in time)."""
    deadline = started + timeout
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{origin}/healthz", timeout=2)
            if response.status_code == 200 and response.json().get("broker") == "ok":
                return round(time.monotonic() - started, 1)
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.25)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--faults", default="all", help="comma-separated of postgres, redis, worker, beat; all; none")
    parser.add_argument("--events-per-second", type=int, default=200)
    parser.add_argument("--pages-per-second", type=float, default=5)
    parser.add_argument("--write-every", type=float, default=2.0, help="seconds between two staff creates")
    parser.add_argument("--seconds-before", type=int, default=20, help="steady load before each fault")
    parser.add_argument("--seconds-after", type=int, default=40, help="load after each fault")
    parser.add_argument("--customers", type=int, default=50, help="sandbox_seed --customers")
    parser.add_argument("--readiness-timeout", type=int, default=120)
    parser.add_argument("--drain-seconds", type=int, default=400, help="longest wait for the inbox after the load")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/13", help="a Redis database of its own")
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    faults = FAULTS if args.faults == "all" else [] if args.faults == "none" else args.faults.split(",")
    assert set(faults) <= set(FAULTS), f"unknown fault in {faults}"
    assert args.events_per_second <= 1000 and args.seconds_before + args.seconds_after <= 600, "bounded by design"
    touches_services = [name for name in faults if name in SERVICES]
    try:
        report = _run(args, faults)
    finally:
        for service in touches_services:  # restored whatever happened
            ensure_up(service)
    print(json.dumps(report, indent=2))


def _run(args, faults: list[str]) -> dict:
    from _setup import production_env, setup_django

    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = production_env(
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_BROKER_URL=args.broker,
        PAYMENTS_API_BASE_URL=f"{origin}/sandbox",
        SANDBOX_MOUNTED="1",
        PAYMENTS_WEBHOOK_SECRET="",
        LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="backoffice.settings",
        GUNICORN_BIND=f"127.0.0.1:{port}",
    )
    os.environ.update(env)
    setup_django(DATABASE)
    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import DatabaseError
    from django.utils import timezone

    from core.access import Role
    from mirror.models import WebhookEvent, WebhookSecret

    env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    env["PAYMENTS_API_KEY"] = os.environ["PAYMENTS_API_KEY"] = settings.PAYMENTS_API_KEY = settings.SANDBOX_DEMO_API_KEY
    settings.PAYMENTS_API_BASE_URL = f"{origin}/sandbox"
    redis.Redis.from_url(args.broker).flushdb()
    workdir = Path(tempfile.mkdtemp(prefix="bench-chaos-"))
    processes: dict[str, subprocess.Popen] = {}

    def start_worker():
        processes["worker"] = start(
            [sys.executable, "-m", "celery", "-A", "backoffice", "worker", "--concurrency",
             str(args.celery_concurrency), "--loglevel", "WARNING"],
            env, workdir / f"worker-{time.monotonic():.0f}.log",
        )  # fmt: skip

    def start_beat():
        processes["beat"] = start(
            [sys.executable, "-m", "celery", "-A", "backoffice", "beat", "--loglevel", "WARNING",
             "--schedule", str(workdir / "beat-schedule")],
            env, workdir / f"beat-{time.monotonic():.0f}.log",
        )  # fmt: skip

    report: dict = {"benchmark": "chaos", "faults": {}, "machine_load_before": round(os.getloadavg()[0], 2)}
    try:
        manage(env, "collectstatic", "--noinput", "-v", "0")
        processes["gunicorn"] = start(
            [str(BIN / "gunicorn"), "backoffice.wsgi", "--workers", str(args.gunicorn_workers), "--timeout", "30"],
            env,
            workdir / "gunicorn.log",
        )
        start_worker()
        start_beat()
        wait_for(lambda: healthy(f"{origin}/healthz"), timeout=120, what="gunicorn")
        manage(env, "sandbox_seed", "--key-only")
        manage(env, "register_webhook", "--url", f"{origin}/webhooks/payments")
        manage(env, "sandbox_seed", "--customers", str(args.customers))
        manage(env, "sync_mirror", "--quiet")
        from customers.models import Customer

        user = get_user_model().objects.create_user("chaos-staff", password=uuid.uuid4().hex)
        Group.objects.get(name=Role.OPERATIONS.value).user_set.add(user)
        secret = WebhookSecret.objects.get(url=f"{origin}/webhooks/payments").secret
        customers = list(Customer.objects.values_list("customer_id", flat=True))
        baseline = WebhookEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0  # the seed's
        load = Load(origin, secret, customers, staff_session(user), args)
        load.start()
        for fault in faults:
            time.sleep(args.seconds_before)
            started = time.monotonic()
            if fault in SERVICES:
                restart(fault)
            elif fault == "worker":
                os.killpg(processes["worker"].pid, signal.SIGKILL)  # mid-drain: drains never stop under load
                processes["worker"].wait()
                start_worker()
            else:
                os.killpg(processes["beat"].pid, signal.SIGKILL)
                processes["beat"].wait()
                start_beat()
            at = timezone.now()
            report["faults"][fault] = {
                "readiness_back_s": readiness_seconds(origin, started, args.readiness_timeout),
                "processing_back_s": processing_seconds(at, started, args.readiness_timeout),
            }
            time.sleep(args.seconds_after)
        if not faults:
            time.sleep(args.seconds_before)
        load.stop()

        from django.db import close_old_connections

        close_old_connections()
        acknowledged = {event_id for event_id, ok in load.sent.items() if ok}
        drain_started = time.monotonic()
        ours = WebhookEvent.objects.filter(pk__gt=baseline)

        def drained():
            close_old_connections()
            try:
                return not ours.filter(state__in=["received", "failed"]).exists()
            except DatabaseError:
                return False

        try:
            wait_for(drained, timeout=args.drain_seconds, what="the inbox to drain", every=2)
        except SystemExit as exc:
            report["drain_error"] = str(exc)
        rows = dict(ours.values_list("event_id", "state"))
        stored_ids = set(rows) & acknowledged
        attempts = Counter(ours.values_list("attempts", flat=True))
        upstream = _upstream_emails(origin, set(load.emails))
        report.update(
            {
                "events": {
                    "generated": len(load.sent),
                    "acknowledged": len(acknowledged),
                    "never_acknowledged": len(load.sent) - len(acknowledged),
                    "stored": len(rows),
                    "lost": len(acknowledged - stored_ids),
                    # The sandbox's own customer.update events of the staff creates.
                    "other_events_stored": len(set(rows) - acknowledged),
                    "states": dict(Counter(rows.values())),
                    "attempts": {str(k): v for k, v in sorted(attempts.items())},
                    "drain_after_load_s": round(time.monotonic() - drain_started, 1),
                },
                "deliveries": dict(load.deliveries),
                "pages": dict(load.pages),
                "staff_creates": {
                    **dict(load.writes),
                    "emails": len(load.emails),
                    "created_upstream": sum(1 for count in upstream.values() if count),
                    "created_twice_upstream": sum(1 for count in upstream.values() if count > 1),
                },
            }
        )
        events = report["events"]
        report["ok"] = (
            events["lost"] == 0
            and set(events["states"]) <= {"processed"}
            and report["staff_creates"]["created_twice_upstream"] == 0
            and all(f["readiness_back_s"] is not None for f in report["faults"].values())
        )
        return report
    finally:
        for process in processes.values():
            stop(process)
        with contextlib.suppress(redis.RedisError):
            redis.Redis.from_url(args.broker).flushdb()
        if args.keep_logs:
            print(f"logs: {workdir}", file=sys.stderr)


def _upstream_emails(origin: str, emails: set[str]) -> dict[str, int]:
    """How many customers the API holds for each of `emails` (2 or more: a create done twice)."""
    from upstream.client import client_from_settings

    counts = dict.fromkeys(emails, 0)
    with client_from_settings(base_url=f"{origin}/sandbox") as client:
        for customer in client.customers.iter():
            if customer.email in counts:
                counts[customer.email] += 1
    return counts


if __name__ == "__main__":
    main()
