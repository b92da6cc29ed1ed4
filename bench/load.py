"""Load: staff sessions browsing and quoting while webhook events pour in, against gunicorn
on PostgreSQL with a Celery worker on Redis, all on loopback.

What runs, each a process of its own (own process group, stopped at the end):
- gunicorn backoffice.wsgi as gunicorn.conf.py sets it (6 single-threaded processes per core,
  keep-alive 5 s; --gunicorn-workers, --gunicorn-threads and --gunicorn-keep-alive change it)
  with production settings (DEBUG off) on 127.0.0.1, the sandbox mounted in it as the
  Payments API (or beside it, see below);
- a Celery worker (prefork, 2 processes) on a dedicated Redis database, flushed before and after;
- locust (bench/locustfile.py), headless: 50 staff users, each in a session of its own
  operations user, and webhook senders posting 200 signed events a second in all, for 60 seconds.

Set-up, on a throw-away database (created here, dropped at exit): migrate, collectstatic
(the manifest of production settings), `register_webhook`, `sandbox_seed --customers 200`
(its events reach the mirror through the worker, as transactions only can), `sync_mirror`,
50 staff users and a logged-in session for each (the sessions exist before the load starts, as
staff at work are logged in already; the login itself, a deliberately slow password hash, is
timed on its own: a few logins one after the other, before the load).

Prints JSON: p50/p95/p99 and request counts per page, errors, and webhook events sent,
acknowledged, stored in the inbox, lost (acknowledged but not stored), processed by the worker
by the end of the load, and how long the worker took after it to process the rest (at most
--drain-seconds); machine_speed_ms, a fixed piece of Python timed before the load (the same
code runs up to 2x apart from one day to the next on a shared machine). Bounded: 60 s of load
(at most ~200 events/s and ~100 pages/s), then the drain; every child has a time limit.

    .venv/bin/python bench/load.py [--users 50] [--seconds 60] [--events-per-second 200]
                                   [--sandbox mounted|separate] [--background-nice N] [--keep-logs]

--background-nice runs the Celery worker (and the separate sandbox) at that niceness: on one
shared machine the background yields the processor to the requests staff wait for, as it
would by running on machines of its own in production. Every child runs in a session of its
own, and where Linux groups the scheduling by session (autogroups), a process's niceness
counts only against its own session: the niceness is then set on the session's group too
(/proc/PID/autogroup), or it would change nothing.

With --sandbox separate the sandbox runs in a gunicorn of its own (as a real provider is
elsewhere); mounted, the quote preview and the worker's re-reads call back into the measured
server. Results and their reading: docs/benchmarks.md, "Load".
"""

import argparse
import json
import os
import resource
import runpy
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


def lower_priority(process: subprocess.Popen, nice: int) -> None:
    """Give the session of `process` the niceness `nice` against the other sessions (see the
    docstring: with autogroups, `nice -n` alone does not reach past the session)."""
    autogroup = Path(f"/proc/{process.pid}/autogroup")
    if nice and autogroup.exists():
        autogroup.write_text(str(nice))


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


def cpu_seconds(*, pgid: int | None = None, command: str | None = None) -> float:
    """CPU time (user + system) of the live processes of one process group, or of every
    process running `command` (PostgreSQL's backends, say), from /proc."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().split(" (", 1)[1].rsplit(")", 1)
        except (OSError, ValueError):
            continue
        fields = rest.split()  # after the name: state ppid pgrp ... utime(11) stime(12)
        if (pgid is not None and int(fields[2]) == pgid) or (command is not None and name == command):
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def staff_session(user) -> str:
    """A logged-in session of `user`, as the login view leaves it; returns its key."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "staff.auth.RoleBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session["_touched"] = int(time.time())
    session.create()
    return session.session_key


def time_logins(origin: str, username: str, times: int) -> list[float]:
    """Milliseconds of `times` logins through the form, one after the other, on a quiet server."""
    timings = []
    for _ in range(times):
        # The cookie is Secure (production settings) and this is loopback HTTP: sent by hand.
        token = httpx.get(f"{origin}/accounts/login/", timeout=30).cookies["csrftoken"]
        started = time.perf_counter()
        response = httpx.post(
            f"{origin}/accounts/login/",
            data={"login": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
            headers={"Cookie": f"csrftoken={token}"},
            timeout=30,
        )
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 302, f"login answered {response.status_code}"
    return timings


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
    parser.add_argument("--gunicorn-workers", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument("--gunicorn-threads", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument(
        "--gunicorn-keep-alive",
        type=int,
        help="seconds a connection may wait for its next request (default: gunicorn.conf.py's)",
    )
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/12", help="a Redis database of its own")
    parser.add_argument(
        "--sandbox",
        choices=["mounted", "separate"],
        default="mounted",
        help="mounted: the sandbox in the measured gunicorn (the embedded default); separate: in a "
        "gunicorn of its own (2 x 4), as a real provider is elsewhere",
    )
    parser.add_argument("--background-nice", type=int, default=0, help="niceness of the worker and sandbox")
    parser.add_argument("--drain-seconds", type=int, default=300, help="longest wait for the backlog after the load")
    parser.add_argument("--keep-logs", action="store_true", help="keep the processes' logs (path on stderr)")
    args = parser.parse_args()
    assert args.seconds <= 600 and args.events_per_second <= 1000 and args.users <= 500, "bounded by design"
    assert 0 <= args.background_nice <= 19 and args.drain_seconds <= 900, "bounded by design"
    background = ["nice", "-n", str(args.background_nice)] if args.background_nice else []
    from _setup import machine_speed, mirror_ids, production_env, setup_django

    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    webhook_url = f"{origin}/webhooks/payments"
    provider = origin if args.sandbox == "mounted" else f"http://127.0.0.1:{free_port()}"
    env = production_env(
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_BROKER_URL=args.broker,
        PAYMENTS_API_BASE_URL=f"{provider}/sandbox",
        # Routes of the sandbox in every process (its events' links reverse them); with
        # --sandbox separate, the client calls the sandbox's own gunicorn instead.
        SANDBOX_MOUNTED="1",
        PAYMENTS_WEBHOOK_SECRET="",
        LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="backoffice.settings",
    )
    env["GUNICORN_BIND"] = f"127.0.0.1:{port}"
    # This process is configured as the children are (it queues tasks to their broker).
    os.environ.update(env)
    # gunicorn.conf.py as the measured gunicorn reads it (mounted, the server calls itself).
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    for name, setting in (
        ("gunicorn_workers", "workers"),
        ("gunicorn_threads", "threads"),
        ("gunicorn_keep_alive", "keepalive"),
    ):
        if getattr(args, name) is None:
            setattr(args, name, conf[setting])

    setup_django(DATABASE)
    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group

    from core.access import Role
    from mirror.models import WebhookEvent, WebhookSecret
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
                "--timeout",
                "30",
                "--keep-alive",
                str(args.gunicorn_keep_alive),
            ],
            env,
            workdir / "gunicorn.log",
        )
        processes["worker"] = start(
            [
                *background,
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
        lower_priority(processes["worker"], args.background_nice)
        if args.sandbox == "separate":
            processes["sandbox"] = start(
                [
                    *background,
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
            lower_priority(processes["sandbox"], args.background_nice)
            wait_for(lambda: healthy(f"{provider}/sandbox/openapi.json"), timeout=30, what="the sandbox's gunicorn")
        wait_for(lambda: healthy(f"{origin}/healthz"), timeout=30, what="gunicorn")

        # The mirror, filled the way production fills it: webhooks first, then the seed's
        # events through the worker, then a full sync.
        started = time.perf_counter()
        manage(env, "sandbox_seed", "--key-only")
        manage(env, "register_webhook", "--url", webhook_url)
        manage(env, "sandbox_seed", "--customers", str(args.customers))
        manage(env, "sync_mirror", "--quiet")

        def settled():
            pending = Delivery.objects.filter(endpoint__url=webhook_url, status=DeliveryStatus.PENDING).count()
            left = WebhookEvent.objects.filter(state=WebhookEvent.State.RECEIVED).count()
            print(f"set-up: {pending} deliveries pending, {left} events to process", file=sys.stderr)
            return not pending and not left

        wait_for(settled, timeout=300, what="the seed's events to reach the mirror", every=2)
        seeded_events = WebhookEvent.objects.count()
        # Failed ones wait for their backoff and the sweep (beat, not running here): counted.
        seed_failed = WebhookEvent.objects.filter(state=WebhookEvent.State.FAILED).count()
        set_up_seconds = time.perf_counter() - started

        User = get_user_model()
        operations = Group.objects.get(name=Role.OPERATIONS.value)
        password = make_password(PASSWORD)
        users = User.objects.bulk_create(
            User(username=f"load-staff-{i:03d}", password=password) for i in range(args.users)
        )
        operations.user_set.add(*users)
        sessions = [staff_session(user) for user in users]
        login_ms = time_logins(origin, users[0].username, 5)
        speed = machine_speed()  # the servers idle, before the load

        data = {
            "sessions": sessions,
            **mirror_ids(),
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

        def cpu_now():
            return {
                **{name: cpu_seconds(pgid=processes[name].pid) for name in servers},
                "postgresql": cpu_seconds(command="postgres"),
            }

        cpu_before = cpu_now()
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        processes["locust"].wait(timeout=args.seconds + 60)
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.monotonic() - load_started
        cpu = {name: seconds - cpu_before[name] for name, seconds in cpu_now().items()}
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
        settled_states = [WebhookEvent.State.PROCESSED, WebhookEvent.State.FAILED, WebhookEvent.State.IGNORED]
        processed_in_load = load_events().filter(state=WebhookEvent.State.PROCESSED).count()
        backlog = len(stored_ids) - processed_in_load
        # The backlog: how long the worker takes to settle every stored event once the load stops.
        drain_started = time.monotonic()
        wait_for(
            lambda: not load_events().exclude(state__in=settled_states).exists(),
            timeout=args.drain_seconds,
            what="the worker to process the backlog",
            every=1,
        )
        drain_seconds = time.monotonic() - drain_started
        processed = load_events().filter(state=WebhookEvent.State.PROCESSED).count()
        failed_processing = load_events().filter(state=WebhookEvent.State.FAILED).count()

        timings = result["timings_ms"]
        pages = {name: summary([ms for _, ms in values]) for name, values in sorted(timings.items())}
        staff = [ms for name, values in timings.items() if not name.startswith("webhook") for _, ms in values]
        logs = {name: (workdir / f"{name}.log").read_text(errors="replace") for name in processes}
        report = {
            "benchmark": "load",
            "database": "postgresql",
            "set_up": {
                "sandbox_customers": args.customers,
                "mirror_customers": len(data["customers"]),
                "mirror_transactions": len(data["transactions"]),
                "seed_webhook_events": seeded_events,
                "seed_events_failed": seed_failed,
                "seconds": round(set_up_seconds, 1),
            },
            "load": {
                "staff_sessions": args.users,
                "seconds": args.seconds,
                "webhook_events_per_second_target": args.events_per_second,
                "gunicorn": f"{args.gunicorn_workers} processes x {args.gunicorn_threads} threads, "
                f"keep-alive {args.gunicorn_keep_alive} s",
                "celery_worker_processes": args.celery_concurrency,
                "sandbox": args.sandbox,
                "background_nice": args.background_nice,
            },
            "login_one_at_a_time_before_the_load_ms": [round(ms, 1) for ms in login_ms],
            "pages": pages,
            "staff_requests_all": summary(staff),
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
                "processed_during_the_load": processed_in_load,
                "backlog_when_the_load_stopped": backlog,
                "seconds_to_process_the_backlog": round(drain_seconds, 1),
                "processed_per_second_overall": round(processed / (wall + drain_seconds), 1),
                "processed": processed,
                "failed_processing": failed_processing,
            },
            "tracebacks_in_logs": {name: log.count("Traceback") for name, log in logs.items()},
            "api_timeouts_in_gunicorn_log": logs["gunicorn"].count("ApiTimeout"),
            "api_timeouts_in_worker_log": logs["worker"].count("ApiTimeout"),
            "machine_speed_ms": speed,
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
