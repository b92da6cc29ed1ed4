"""What open live pages cost while nothing changes (core/live.py).

Starts gunicorn (production settings, PostgreSQL, collectstatic's manifest) and opens N pages in a client process:
three in four a customer page, one in four the review queue (its counts). Each page polls its
live URL every POLL seconds, as static/js/app.js's htmx poller does, from a random start.
After a warm-up, for --seconds, it reads the processor time (user + system, /proc) of the
gunicorn processes and of their PostgreSQL backends, and prints it as a share of one core,
with the answers counted by status (all 304 when nothing changes).

    .venv/bin/python bench/live_poll.py [--pages 200] [--seconds 30] [--workers 2]
"""

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL = 4.0  # templates/_live.html's "every 4s"
CLOCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids) -> dict[int, float]:
    """pid -> processor seconds so far (user + system); a process gone is left out."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / CLOCK  # utime, stime
    return seconds


def spent(before: dict, after: dict) -> float:
    """What the processes alive at the end spent meanwhile (one started meanwhile: all of it)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def backends() -> list[int]:
    sql = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    out = subprocess.run(["psql", os.environ["DATABASE_URL"], "-Atc", sql], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


async def poll_all(base: str, cookie: str, urls: list[str], seconds: float, counts: dict) -> None:
    import httpx

    deadline = time.monotonic() + seconds

    async def page(client, url):
        await asyncio.sleep(random.uniform(0, POLL))
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                response = await client.get(url, headers={"HX-Request": "true"})
                key = response.status_code
            except httpx.TransportError as exc:  # a keep-alive connection the server closed
                key = type(exc).__name__
            counts[key] = counts.get(key, 0) + 1
            await asyncio.sleep(max(0.0, POLL - (time.monotonic() - started)))

    limits = httpx.Limits(max_connections=len(urls), max_keepalive_connections=len(urls))
    async with httpx.AsyncClient(base_url=base, cookies={"sessionid": cookie}, limits=limits, timeout=30) as client:
        await asyncio.gather(*(page(client, url) for url in urls))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--customers", type=int, default=1000)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _setup import production_env, setup_django

    env = production_env(
        ALLOWED_HOSTS="127.0.0.1,testserver",
        PAYMENTS_API_BASE_URL="http://127.0.0.1:9",  # never called: the pages read the mirror
        SANDBOX_MOUNTED="0",
        EAGER_BEAT="0",
    )
    os.environ.update(env)
    setup_django("bench_live_poll")
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from core.access import Role
    from customers.models import Customer

    call_command("collectstatic", "--noinput", verbosity=0)  # the manifest of production settings
    now = timezone.now()
    Customer.objects.bulk_create(
        Customer(
            customer_id=f"cus-{i:06d}",
            organization_id="org-1",
            customer_type="INDIVIDUAL",
            status=random.choice(["UNDER_REVIEW", "ACTIVE", "NEEDS_ADDITIONAL_INFORMATION", "CREATED"]),
            name=f"Customer {i}",
            status_since=now,
            upstream_updated_at=now,
            synced_at=now,
        )
        for i in range(args.customers)
    )
    user = get_user_model().objects.create_user("bench-compliance", password="x" * 20)
    user.groups.add(Group.objects.get(name=Role.COMPLIANCE.value))
    staff = Client()
    staff.force_login(user)
    cookie = staff.cookies["sessionid"].value
    connection.close()

    base = f"http://127.0.0.1:{args.port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "backoffice.wsgi",
            "--bind",
            f"127.0.0.1:{args.port}",
            "--workers",
            str(args.workers),
            "--threads",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=Path(__file__).resolve().parents[1],
        env=os.environ.copy(),
    )
    try:
        import httpx

        for _ in range(100):
            try:
                httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        # Each page once, as a browser opens it: its poller's URL carries its version.
        ids = [f"cus-{random.randrange(args.customers):06d}" for _ in range(args.pages)]
        paths = [f"/customers/{cid}/" if n % 4 else "/customers/" for n, cid in enumerate(ids)]
        urls = []
        with httpx.Client(base_url=base, cookies={"sessionid": cookie}) as client:
            for path in paths:
                html = client.get(path).text
                url = re.search(r'<div id="live" hidden hx-get="([^"]+)"', html).group(1).replace("&amp;", "&")
                if path == "/customers/":  # the queue's first poll brings its counts up to date
                    url = re.search(r'hx-get="([^"]+)"', client.get(url).text).group(1).replace("&amp;", "&")
                urls.append(url)

        warm = {}
        asyncio.run(poll_all(base, cookie, urls, args.warmup, warm))
        web = [server.pid, *children(server.pid)]
        counts = {}
        web_before, db_before, started = cpu_seconds(web), cpu_seconds(backends()), time.monotonic()
        asyncio.run(poll_all(base, cookie, urls, args.seconds, counts))
        elapsed = time.monotonic() - started
        web_cpu, db_cpu = spent(web_before, cpu_seconds(web)), spent(db_before, cpu_seconds(backends()))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    requests = sum(counts.values())
    print(
        json.dumps(
            {
                "benchmark": "open live pages, nothing changing",
                "pages": args.pages,
                "poll_seconds": POLL,
                "gunicorn_workers": args.workers,
                "measured_seconds": round(elapsed, 1),
                "answers": counts,
                "requests_per_second": round(requests / elapsed, 1),
                "web_cpu_share_of_one_core": round(web_cpu / elapsed, 3),
                "postgresql_cpu_share_of_one_core": round(db_cpu / elapsed, 3),
                "total_cpu_share_of_one_core": round((web_cpu + db_cpu) / elapsed, 3),
                "cpu_ms_per_poll": round((web_cpu + db_cpu) * 1000 / max(requests, 1), 2),
                "at_full_rate_share_of_one_core": round((web_cpu + db_cpu) / max(requests, 1) * args.pages / POLL, 3),
                "load_average": os.getloadavg()[0],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
