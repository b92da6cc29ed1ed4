"""Processor time of one request, per page of the load mix (bench/locustfile.py).

The load benchmark (bench/load.py) runs out of processor long before it runs out of anything
else on a 2-core machine, so what each request costs in CPU decides its latency under load.
This prints, for each page the staff sessions of the load open and for the webhook receiver,
the CPU time of this process per request (time.process_time: this process only, so the
database's share is not in it), the wall time and the SQL statements. In-process: Django's
handler with every middleware and production settings (DEBUG off), a logged-in operations
user, no web server and no network; the sandbox is reached through WSGI in this process, so
the quote preview's figure includes the sandbox's work. --profile NAME prints the functions
that cost most for one page.

Data, made the way production makes it: the sandbox seeds 200 customers in every state,
their signed webhooks are delivered to the receiver and drained into the mirror, then a
full sync.

    .venv/bin/python bench/request_cpu.py [--repeats 200] [--profile "customers: queue" [--sort cumulative]]
"""

import argparse
import cProfile
import gc
import io
import json
import logging
import os
import pstats
import random
import sys
import time
import warnings
from urllib.parse import urlencode

warnings.filterwarnings("ignore", message="No directory at")

WEBHOOK_URL = "http://testserver/webhooks/payments"


def pages(data: dict) -> dict:
    """Name -> (path, headers), as bench/locustfile.py asks for them."""
    customer = data["customers"][0]
    active = data["active_customers"][0]
    preview = {
        "source_method": "ACH",
        "source_currency": "USD",
        "destination_method": "BASE",
        "destination_currency": "USDC",
        "amount": "1234.56",
    }
    htmx = {"HTTP_HX_REQUEST": "true"}
    return {
        "customers: queue": ("/customers/", {}),
        "customers: queue, filtered (htmx)": ("/customers/?" + urlencode({"status": "UNDER_REVIEW"}), htmx),
        "customers: customer page": (f"/customers/{customer}/", {}),
        "transactions: list": ("/payments/transactions/", {}),
        "transactions: page": (f"/payments/transactions/{data['transactions'][0]}/", {}),
        "payment accounts: list": ("/payments/accounts/", {}),
        "quote: builder": (f"/payments/quotes/new?customer={active}", {}),
        "quote: preview (htmx)": ("/payments/quotes/preview?" + urlencode(preview), htmx),
    }


class GcClock:
    """Time spent in the garbage collector (gc.callbacks), and how many full collections."""

    def __init__(self):
        self.seconds, self.full, self._started = 0.0, 0, 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.full += info["generation"] == 2


def measure(calls: dict, repeats: int, rounds: int = 10) -> dict:
    """Each call `repeats` times, in `rounds` interleaved rounds: a machine that slows down
    for a while (a shared host) slows every page alike instead of the one measured then."""
    from _setup import count_queries, percentile

    queries = {}
    for name, call in calls.items():
        for _ in range(5):  # warm-up: connection, template cache, counts cache
            call()
        queries[name] = count_queries(call)
    cpu, wall = ({name: [] for name in calls} for _ in range(2))
    collectors = {name: GcClock() for name in calls}
    per_round = max(1, repeats // rounds)
    for _ in range(rounds):
        for name, call in calls.items():
            gc.callbacks.append(collectors[name])
            for _ in range(per_round):
                started_cpu, started = time.process_time(), time.perf_counter()
                call()
                cpu[name].append((time.process_time() - started_cpu) * 1000)
                wall[name].append((time.perf_counter() - started) * 1000)
            gc.callbacks.remove(collectors[name])
    return {
        name: {
            "cpu_ms_mean": round(sum(cpu[name]) / len(cpu[name]), 2),
            "cpu_ms_p50": round(percentile(cpu[name], 0.5), 2),
            "wall_ms_p50": round(percentile(wall[name], 0.5), 2),
            "queries": queries[name],
            "gc_ms_per_request": round(collectors[name].seconds * 1000 / len(cpu[name]), 2),
            "full_collections": collectors[name].full,
        }
        for name in calls
    }


def profile(call, repeats: int, sort: str, lines: int = 35) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeats):
        call()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(lines)
    return out.getvalue()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--customers", type=int, default=200)
    parser.add_argument("--profile", help="a page name: print its cProfile instead")
    parser.add_argument("--sort", default="tottime", help="--profile's order: tottime, cumulative, ...")
    args = parser.parse_args()

    from _setup import machine_speed, mirror_ids, production_env, setup_django, signed_event

    os.environ.update(
        production_env(
            ALLOWED_HOSTS="testserver,127.0.0.1",
            PAYMENTS_API_BASE_URL="http://testserver/sandbox",
            SANDBOX_MOUNTED="1",
            PAYMENTS_WEBHOOK_SECRET="",
        )
    )
    os.environ.pop("CELERY_BROKER_URL", None)  # eager: the receiver drains the inbox in-process

    setup_django("bench_request_cpu")
    from django.conf import settings
    from django.core.management import call_command
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    # DEBUG off but no collectstatic here: plain static storage.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.PAYMENTS_API_IN_PROCESS = True
    settings.SANDBOX_WEBHOOK_IN_PROCESS = True
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from core.access import Role
    from mirror.models import WebhookSecret
    from sandbox.services.webhooks import deliver_due

    logging.disable(logging.WARNING)  # the demo's deliveries to its unreachable endpoint
    call_command("sandbox_seed", key_only=True, stdout=io.StringIO())
    call_command("register_webhook", url=WEBHOOK_URL, stdout=io.StringIO())
    call_command("sandbox_seed", customers=args.customers, stdout=io.StringIO())
    while deliver_due():  # every event of the seed, through the receiver into the mirror
        pass
    call_command("sync_mirror", quiet=True, stdout=io.StringIO())

    data = mirror_ids()
    user = get_user_model().objects.create_user("bench-operations", password="x" * 20)
    user.groups.add(Group.objects.get(name=Role.OPERATIONS.value))
    staff = Client()
    staff.force_login(user)

    calls = {}
    for name, (path, headers) in pages(data).items():

        def get(path=path, headers=headers):
            response = staff.get(path, **headers)
            assert response.status_code == 200, (path, response.status_code)

        calls[name] = get

    # The receiver alone: events are stored, not drained (the drain is the worker's CPU).
    import mirror.receiver

    mirror.receiver.request_drain = lambda: None
    secret = WebhookSecret.objects.get(url=WEBHOOK_URL).secret
    receiver = Client()

    def receive():
        _, body, headers = signed_event(secret, random.choice(data["customers"]))
        response = receiver.post("/webhooks/payments", body, content_type="application/json", headers=headers)
        assert response.status_code == 202, response.content

    calls["webhook: receive"] = receive

    if args.profile:
        print(profile(calls[args.profile], args.repeats, args.sort))
        return
    results = measure(calls, args.repeats)
    print(
        json.dumps(
            {
                "benchmark": "processor time per request",
                "database": "postgresql",
                "mirror": {name: len(ids) for name, ids in data.items()},
                "repeats": args.repeats,
                "machine_speed_ms": machine_speed(),
                "requests": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
