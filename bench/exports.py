"""CSV exports from PostgreSQL (core/exports.py): rows a second and memory, through the view.

Loads N transactions with bench/pages_payments.py's generate_series loader, then downloads
the transactions export through Django's handler (the test client, a logged-in auditor, every
middleware, DEBUG off), consuming the streamed response as a client would: wall time, rows a
second, and the growth of this process's resident memory while it streams (sampled per chunk).
For comparison, the same rows through the ORM's iterator and `csv` (the SQLite way, which was
the PostgreSQL way before COPY).

    .venv/bin/python bench/exports.py [--rows 500000]
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE


def consume(chunks) -> dict:
    base, peak, lines, size, sampled = rss(), 0, 0, 0, 0
    started = time.perf_counter()
    for chunk in chunks:
        lines += chunk.count(b"\n")
        size += len(chunk)
        if size - sampled >= 1_000_000:  # the memory once a megabyte
            peak, sampled = max(peak, rss() - base), size
    elapsed = time.perf_counter() - started
    rows = lines - 1
    return {
        "rows": rows,
        "seconds": round(elapsed, 2),
        "rows_per_second": round(rows / elapsed),
        "megabytes": round(size / 1e6, 1),
        "memory_growth_mb": round(peak / 1e6, 1),
    }


def _with_header(chunks):
    yield b"header\n"
    yield from chunks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=500_000)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _setup import machine_speed, production_env, scaled_target, setup_django
    from pages_payments import load

    os.environ.update(
        production_env(ALLOWED_HOSTS="testserver", SANDBOX_MOUNTED="0", PAYMENTS_API_BASE_URL="http://127.0.0.1:9")
    )
    setup_django("bench_exports")
    from django.conf import settings

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from core.access import Role
    from core.exports import _iterated_lines
    from payments.models import Transaction
    from payments.selectors import EXPORT_COLUMNS

    loaded = load(args.rows)
    user = get_user_model().objects.create_user("bench-auditor", password="x" * 20)
    user.groups.add(Group.objects.get(name=Role.AUDITOR.value))
    client = Client()
    client.force_login(user)

    speed_before = machine_speed()
    response = client.get("/payments/transactions/export.csv")
    assert response.status_code == 200 and response.streaming
    copy = consume(response.streaming_content)
    queryset = Transaction.objects.order_by("-created_upstream_at", "-id")
    iterator = consume(_with_header(_iterated_lines(queryset, EXPORT_COLUMNS)))
    speed = [speed_before, machine_speed()]
    print(
        json.dumps(
            {
                "benchmark": "transactions export, PostgreSQL",
                "rows_loaded": args.rows,
                "load_seconds": round(loaded, 1),
                "copy_through_the_view": copy,
                "orm_iterator_and_csv": iterator,
                "load_average": os.getloadavg()[0],
                "machine_speed_ms_before_after": speed,
                "rows_per_second_target_scaled": scaled_target(300_000, speed),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
