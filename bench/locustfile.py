"""The users of bench/load.py (run by it, in a locust process of its own; not on its own).

- Staff: one logged-in session per staff user (made by load.py), browsing the review queue with filters,
  opening customers, the transactions list and transactions, the payment accounts, the quote
  builder and its live preview, with a think time between pages.
- WebhookSender: signed customer.update events for customers of the mirror at a fixed rate
  each, every event id unique.

bench/load.py passes, through the environment: BENCH_LOAD_DATA (JSON: the staff sessions'
keys, customer, ACTIVE customer and transaction ids, the webhook secret, the senders' count
and rate) and BENCH_LOAD_OUT, where this file writes every request's time, outcome and
the ids of the events sent when the run ends. Timings are kept raw so that load.py computes
exact percentiles.
"""

import http.cookiejar
import itertools
import json
import os
import random
import time
import uuid
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from _setup import signed_event
from locust import FastHttpUser, between, constant_throughput, events, task

DATA = json.loads(Path(os.environ["BENCH_LOAD_DATA"]).read_text())
OUT = Path(os.environ["BENCH_LOAD_OUT"])
SESSIONS = itertools.cycle(DATA["sessions"])

TIMINGS: dict[str, list[tuple[float, float]]] = defaultdict(list)  # (start, ms)
ERRORS: dict[str, list[str]] = defaultdict(list)
SENT: list[str] = []  # event ids of every POST started
ACKNOWLEDGED: list[str] = []  # event ids the receiver answered 2xx
STARTED = time.time()


@events.request.add_listener
def _record(name, response_time, exception, start_time=None, **kwargs):
    TIMINGS[name].append((start_time or time.time(), response_time))
    if exception is not None:
        ERRORS[name].append(str(exception)[:200])


@events.quitting.add_listener
def _write(**kwargs):
    OUT.write_text(
        json.dumps(
            {
                "started": STARTED,
                "seconds": time.time() - STARTED,
                "timings_ms": TIMINGS,
                "errors": ERRORS,
                "sent": SENT,
                "acknowledged": ACKNOWLEDGED,
            }
        )
    )


class PlainHttpCookies(http.cookiejar.DefaultCookiePolicy):
    """The server runs with production settings (Secure cookies) on plain loopback HTTP, as
    behind a TLS-ending load balancer: send the Secure cookies anyway."""

    def return_ok_secure(self, cookie, request):
        return True


class Staff(FastHttpUser):
    wait_time = between(0.5, 2.0)

    def on_start(self):
        self.client.cookiejar.set_policy(PlainHttpCookies())
        self.client.cookiejar.set_cookie(
            http.cookiejar.Cookie(
                version=0, name="sessionid", value=next(SESSIONS), port=None, port_specified=False,
                domain=urlsplit(self.host).hostname, domain_specified=False, domain_initial_dot=False,
                path="/", path_specified=True, secure=False, expires=None, discard=True, comment=None,
                comment_url=None, rest={},
            )
        )  # fmt: skip

    def page(self, path: str, name: str, *, htmx: bool = False, refused: str = ""):
        """GET one page; anything but 200 (a redirect to the login page, say), or a page
        showing `refused`, is an error."""
        headers = {"HX-Request": "true"} if htmx else {}
        with self.client.get(path, name=name, headers=headers, allow_redirects=False, catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{path} answered {response.status_code}")
            elif refused and refused in response.text:
                response.failure(f"{path} showed {refused!r}")

    @task(4)
    def review_queue(self):
        query = random.choice(
            [
                {},
                {"view": "queue"},
                {"view": "all", "sort": "updated"},
                {"status": "UNDER_REVIEW"},
                {"status": ["NEEDS_ADDITIONAL_INFORMATION", "UNDER_REVIEW"], "assignee": "none"},
                {"view": "all", "type": "BUSINESS"},
                {"view": "all", "q": random.choice("abcdefghjklmnoprstw")},
            ]
        )
        suffix = f"?{urlencode(query, doseq=True)}" if query else ""
        # The first page load, then the filter change as the page's HTMX form sends it.
        if query and random.random() < 0.5:
            self.page(f"/customers/{suffix}", "customers: queue, filtered (htmx)", htmx=True)
        else:
            self.page(f"/customers/{suffix}", "customers: queue")

    @task(3)
    def customer(self):
        self.page(f"/customers/{random.choice(DATA['customers'])}/", "customers: customer page")

    @task(2)
    def transactions(self):
        status = random.choice(["", "", "PROCESSING", "COMPLETED", "AWAITING_TRANSFER"])
        self.page(f"/payments/transactions/{'?status=' + status if status else ''}", "transactions: list")

    @task(2)
    def transaction(self):
        if DATA["transactions"]:
            self.page(f"/payments/transactions/{random.choice(DATA['transactions'])}/", "transactions: page")

    @task(1)
    def accounts(self):
        self.page("/payments/accounts/", "payment accounts: list")

    @task(2)
    def quote(self):
        self.page(f"/payments/quotes/new?customer={random.choice(DATA['active_customers'])}", "quote: builder")
        amount = Decimal(random.randint(1000, 500000)) / 100
        preview = {
            "source_method": "ACH",
            "source_currency": "USD",
            "destination_method": random.choice(["BASE", "POLYGON", "SOLANA"]),
            "destination_currency": "USDC",
            "amount": str(amount),
        }
        self.page(
            f"/payments/quotes/preview?{urlencode(preview)}", "quote: preview (htmx)", htmx=True, refused="No preview"
        )


class WebhookSender(FastHttpUser):
    fixed_count = DATA["senders"]
    wait_time = constant_throughput(DATA["events_per_sender_per_second"])

    @task
    def send(self):
        event_id, body, headers = signed_event(
            DATA["webhook_secret"], random.choice(DATA["customers"]), event_id=f"evt_load_{uuid.uuid4().hex}"
        )
        headers["Content-Type"] = "application/json"
        SENT.append(event_id)
        with self.client.post(
            "/webhooks/payments", data=body, headers=headers, name="webhook: receive", catch_response=True
        ) as response:
            if response.status_code == 202:
                ACKNOWLEDGED.append(event_id)
            else:
                response.failure(f"webhook answered {response.status_code}")
