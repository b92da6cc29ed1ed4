"""Keep or remove: each clever piece against Django's standard way, at full size (issue 29).

For each piece of machinery that replaces what Django does, the pages and endpoints it serves
are timed with the piece and with the standard way swapped in, in the same process and
interleaved request by request (piece, standard, standard, piece, ...), so that the machine's
load falls on both alike. The swaps are patches confined to this script (`STANDARD`), nothing
in the product:

- together: core/together.py (the customer page's short lists in one UNION ALL compiled once,
  the transaction page's in one UNION ALL) -> each queryset evaluated on its own. A third way,
  "union_per_request", compiles the customer page's UNION ALL on every request.
- live: core/live.py (LivePollMiddleware answers an unchanged poll before the session is read,
  with a memo of live sessions; CompiledQuery) -> the live views through the normal middleware
  stack, session, user and role check, and the version querysets evaluated by the ORM.
- forms: core/forms.py FormRenderer (selects, checkboxes and inputs written in Python) -> DjangoTemplates.
- exports: PostgreSQL COPY (core/exports.py) -> the ORM's iterator and csv, as on SQLite,
  through the view at up to --export-rows rows (the newest transactions of the database).

A page holds when its p50 is within the budget that travels (bench/sweep.py's `budget_ms` of
the machine's yardstick, `_setup.machine_speed()`) and it runs at most 6 queries (home 8). The
export holds at 300,000 rows/s on the machine of `_setup.THROUGHPUT_YARDSTICK`, scaled the
same way. A piece's verdict: "remove" when the standard way holds on every page it serves;
"keep" when on some page the standard way misses and the piece holds; "open" when both miss
(the lead decides; the figures say by how much).

Prints one JSON object. Runs against the sweep's kept database:

    .venv/bin/python bench/sweep.py --keep    # once: 1,000,000 customers, kept as bench_sweep
    .venv/bin/python bench/standard_way.py --reuse --database bench_sweep
    .venv/bin/python bench/standard_way.py --reuse --database bench_sweep --only forms --repeats 30

The webhook events it posts are deleted at the end; nothing else is written but the staff
logins (as bench/sweep.py makes them).
"""

import argparse
import contextlib
import json
import os
import re
import sys
import time
import warnings
from html import unescape
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore", message="No directory at")

MAX_QUERIES = 6
MAX_QUERIES_HOME = 8
EXPORT_TARGET_ROWS_PER_S = 300_000


# --- The standard ways, as patches -------------------------------------------------------------


@contextlib.contextmanager
def together_standard():
    """Each list of the customer and transaction pages evaluated on its own."""
    import payments.selectors
    from core.together import CompiledTogether

    def each(self, *values, **shape):
        return [list(queryset) for queryset in self.build(*values, **shape)]

    with (
        mock.patch.object(CompiledTogether, "fetch", each),
        mock.patch.object(payments.selectors, "fetch_together", lambda *qs: [list(q) for q in qs]),
    ):
        yield


@contextlib.contextmanager
def together_union_per_request():
    """The customer page's one UNION ALL, compiled by the ORM on every request."""
    from core.together import CompiledTogether, fetch_together

    def union(self, *values, **shape):
        return fetch_together(*self.build(*values, **shape))

    with mock.patch.object(CompiledTogether, "fetch", union):
        yield


@contextlib.contextmanager
def live_standard():
    """No answer before the session: every poll through the middleware stack and the view's
    role check (the view answers 304 itself); the version queries through the ORM."""
    from core.live import CompiledQuery, LivePollMiddleware

    def through(self, request):
        return self.get_response(request)

    def first_row(self, *values):
        return next(iter(self.build(*values)), None)

    with (
        mock.patch.object(LivePollMiddleware, "__call__", through),
        mock.patch.object(CompiledQuery, "first_row", first_row),
    ):
        yield


@contextlib.contextmanager
def forms_standard():
    """Every widget through Django's templates: the same renderer (and its template cache),
    with DjangoTemplates' render."""
    from django.forms.renderers import DjangoTemplates

    from core.forms import FormRenderer

    with mock.patch.object(FormRenderer, "render", DjangoTemplates.render):
        yield


@contextlib.contextmanager
def exports_standard():
    """The SQLite way on PostgreSQL: the ORM's iterator, and csv in Python."""
    from core import exports

    with mock.patch.object(exports, "_copy_chunks", exports._iterated_lines):
        yield


STANDARD = {
    "together": together_standard,
    "live": live_standard,
    "forms": forms_standard,
    "exports": exports_standard,
}
# Ways other than the piece and the standard one, timed beside them (not in the verdict).
EXTRA = {"together": {"union_per_request": together_union_per_request}}
PIECES = {
    "together": "core/together.py: CompiledTogether (customer page), fetch_together (transaction page)",
    "live": "core/live.py: LivePollMiddleware, the live-session memo, CompiledQuery",
    "forms": "core/forms.py: FormRenderer's selects and inputs written in Python",
    "exports": "core/exports.py: PostgreSQL COPY",
}


# --- Timing ------------------------------------------------------------------------------------


def interleaved(ways: dict, make, *, status: int, repeats: int) -> dict:
    """{way: {"p50_ms", "p99_ms", "queries"}} of the request `make(way)` returns (a thunk, made
    outside the timing), each way a context manager factory: two warm-up requests each, the
    fewer statements of two, then `repeats` rounds alternating which way goes first."""
    from _setup import count_queries, percentile

    def run(way):
        call = make(way)
        with ways[way]():
            started = time.perf_counter()
            response = call()
            elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == status, (way, response.status_code)
        return elapsed

    names = list(ways)
    for name in names:
        run(name), run(name)
    queries = {}
    for name in names:
        counts = []
        for _ in range(2):
            call = make(name)
            with ways[name]():
                counts.append(count_queries(call))
        queries[name] = min(counts)
    times = {name: [] for name in names}
    for round_ in range(repeats):
        for name in names if round_ % 2 == 0 else reversed(names):
            times[name].append(run(name))
    return {
        name: {
            "p50_ms": round(percentile(times[name], 0.5), 1),
            "p99_ms": round(percentile(times[name], 0.99), 1),
            "queries": queries[name],
        }
        for name in names
    }


def holds(figures: dict, budget: float, max_queries: int = MAX_QUERIES) -> bool:
    return figures["p50_ms"] <= budget and figures["queries"] <= max_queries


def verdict(pages: list[dict]) -> dict:
    """ "remove" when the standard way holds on every page; "keep" when it misses on one the
    piece holds; else "open" (both miss)."""
    missed = [p for p in pages if not p["standard_holds"]]
    if not missed:
        return {"verdict": "remove", "reason": "the standard way holds the budget on every page"}
    needed = [p["page"] for p in missed if p["piece_holds"]]
    if needed:
        return {"verdict": "keep", "reason": "the standard way misses where the piece holds", "deciding": needed}
    return {"verdict": "open", "reason": "both ways miss the budget", "deciding": [p["page"] for p in missed]}


# --- The pages each piece serves ----------------------------------------------------------------


def page_cases(ids: dict) -> dict:
    """Per piece, the pages it serves: (label, URL name, its arguments, query)."""
    big, small, tx = ids["big"], ids["small"], ids["transaction"]
    return {
        "together": [
            ("customer page (large)", "customers-view-customer", [big], ""),
            ("customer page (small)", "customers-view-customer", [small], ""),
            ("transaction page", "payments-view-transaction", [tx], ""),
        ],
        "forms": [
            ("customers list", "customers-list-customers", [], ""),
            ("transactions list", "payments-list-transactions", [], ""),
            ("customer page (large)", "customers-view-customer", [big], ""),
            ("create customer", "customers-create-customer", [], ""),
            ("create quote", "payments-create-quote", [], ""),
            ("create automation rule", "payments-create-automation-rule", [], ""),
            ("create monitoring rule", "monitoring-create-rule", [], ""),
        ],
    }


LIVE_PAGES = [
    ("customer page poll", "customers-view-customer", "big"),
    ("queue counts poll", "customers-list-customers", None),
    ("transaction page poll", "payments-view-transaction", "transaction"),
    ("stuck view poll", "payments-list-stuck-transactions", None),
    ("notifications bell poll", "customers-list-customers", None),
]
POLLER = re.compile(r'<div id="live" hidden hx-get="([^"]+)"')
BELL = re.compile(r'<a id="bell"[^>]*hx-get="([^"]+)"')


def live_poll_url(client, page_url: str, pattern) -> str:
    """The URL a page's poller asks once it is current: the page's own, or after the answers
    that bring it up to date (the queue's counts, the bell's first load) the one they carry."""
    html = client.get(page_url).content.decode()
    url = unescape(pattern.search(html).group(1))
    for _ in range(3):
        response = client.get(url, headers={"HX-Request": "true"})
        if response.status_code == 304:
            return url
        found = (BELL if pattern is BELL else re.compile(r'hx-get="([^"]+)"')).search(response.content.decode())
        url = unescape(found.group(1))
    raise AssertionError(f"{page_url}: the poll does not settle on 304")


def _budget_for(name: str) -> int:
    return MAX_QUERIES_HOME if name == "home" else MAX_QUERIES


def measure_pages(piece: str, cases, clients, budget: float, repeats: int) -> list[dict]:
    from django.urls import reverse
    from sweep import role_for

    ways = {"piece": contextlib.nullcontext, "standard": STANDARD[piece], **EXTRA.get(piece, {})}
    pages = []
    for label, name, args, query in cases:
        client = clients[role_for(name)]
        url = reverse(name, args=args) + query
        figures = interleaved(ways, lambda _, c=client, u=url: lambda: c.get(u), status=200, repeats=repeats)
        pages.append(_page(label, url, figures, budget, _budget_for(name)))
        print(json.dumps({"measuring": piece, **pages[-1]}), file=sys.stderr)
    return pages


def _page(label, url, figures, budget, max_queries) -> dict:
    return {
        "page": label,
        "url": url,
        **figures,
        "standard_minus_piece_ms": round(figures["standard"]["p50_ms"] - figures["piece"]["p50_ms"], 1),
        "piece_holds": holds(figures["piece"], budget, max_queries),
        "standard_holds": holds(figures["standard"], budget, max_queries),
    }


def measure_live(clients, ids, budget: float, repeats: int) -> list[dict]:
    from django.urls import reverse
    from sweep import role_for

    pages = []
    for label, name, key in LIVE_PAGES:
        client = clients[role_for(name)]
        page_url = reverse(name, args=[ids[key]] if key else [])
        ways = {"piece": contextlib.nullcontext, "standard": live_standard}
        # Each way's poller as its own page gives it (the version, computed its way).
        urls = {}
        for name, way in ways.items():
            with way():
                urls[name] = live_poll_url(client, page_url, BELL if "bell" in label else POLLER)
        figures = interleaved(
            ways,
            lambda way, c=client, u=urls: lambda: c.get(u[way], headers={"HX-Request": "true"}),
            status=304,
            repeats=repeats,
        )
        pages.append(_page(label, urls["piece"].split("?")[0], figures, budget, MAX_QUERIES))
        print(json.dumps({"measuring": "live", **pages[-1]}), file=sys.stderr)
    return pages


def export_url(rows: int) -> str:
    """The transactions export of the newest `rows` or so (whole days, by the list's own
    `created_from` filter; all of them when there are fewer)."""
    from django.urls import reverse
    from django.utils import timezone

    from payments.models import Transaction

    newest = Transaction.objects.order_by("-created_upstream_at", "-id")
    edge = newest.values_list("created_upstream_at", flat=True)[rows - 1 : rows].first()
    url = reverse("payments-export-transactions")
    return url if edge is None else f"{url}?created_from={timezone.localdate(edge).isoformat()}"


def measure_exports(clients, rows: int, rounds: int, target: float) -> list[dict]:
    from _setup import count_queries
    from sweep import role_for

    client = clients[role_for("payments-export-transactions")]
    url, expected = export_url(rows), None
    ways = {"piece": contextlib.nullcontext, "standard": exports_standard}

    def download() -> tuple[int, float]:
        started = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200 and response.streaming
        lines = sum(chunk.count(b"\n") for chunk in response.streaming_content)
        return lines - 1, time.perf_counter() - started

    speeds = {name: [] for name in ways}
    counted = {}
    for round_ in range(rounds):
        for name in list(ways) if round_ % 2 == 0 else reversed(list(ways)):
            with ways[name]():
                got, seconds = download()
            expected = got if expected is None else expected
            assert got == expected, (name, got, expected)  # both ways export the same rows
            speeds[name].append(got / seconds)
    for name in ways:
        with ways[name]():
            counted[name] = count_queries(lambda: b"".join(client.get(url).streaming_content))
    figures = {
        name: {
            "rows": expected,
            "rows_per_second_median": round(sorted(speeds[name])[len(speeds[name]) // 2]),
            "rows_per_second_best": round(max(speeds[name])),
            "queries": counted[name],
        }
        for name in ways
    }
    page = {
        "page": "transactions export",
        "url": url,
        **figures,
        "target_rows_per_second": round(target),
        "piece_holds": figures["piece"]["rows_per_second_median"] >= target,
        "standard_holds": figures["standard"]["rows_per_second_median"] >= target,
    }
    print(json.dumps({"measuring": "exports", **page}), file=sys.stderr)
    return [page]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="bench_sweep")
    parser.add_argument("--reuse", action="store_true", help="the sweep's kept database (required)")
    parser.add_argument("--repeats", type=int, default=20, help="timed requests per way and page")
    parser.add_argument("--export-rows", type=int, default=1_000_000)
    parser.add_argument("--export-rounds", type=int, default=2)
    parser.add_argument("--only", action="append", choices=list(STANDARD), help="only this piece (repeatable)")
    args = parser.parse_args()

    from _setup import database_exists, machine_speed, pages_without_upstream, scaled_target

    if not args.reuse or not database_exists(args.database):
        parser.error(f"--reuse with an existing database (bench/sweep.py --keep --database {args.database})")
    pages_without_upstream(args.database, reuse=True)
    from sweep import budget_ms, known_ids, staff_clients

    from customers.models import Customer

    only = set(args.only or STANDARD)
    clients = staff_clients()
    ids = known_ids([])
    yardstick_before = machine_speed()
    yardstick_now = yardstick_before
    budget = budget_ms(yardstick_now)
    results = {}
    cases = page_cases(ids)
    for piece in STANDARD:
        if piece not in only:
            continue
        if piece in cases:
            pages = measure_pages(piece, cases[piece], clients, budget, args.repeats)
        elif piece == "live":
            pages = measure_live(clients, ids, budget, args.repeats)
        else:
            target = scaled_target(EXPORT_TARGET_ROWS_PER_S, [yardstick_now])
            pages = measure_exports(clients, args.export_rows, args.export_rounds, target)
        results[piece] = {"piece": PIECES[piece], "pages": pages}
    yardstick_after = machine_speed()
    yardstick = round((yardstick_before + yardstick_after) / 2, 1)
    budget = budget_ms(yardstick)
    # The verdicts against the run's yardstick (before and after), as bench/sweep.py judges.
    for piece, result in results.items():
        for page in result["pages"]:
            if piece == "exports":
                target = scaled_target(EXPORT_TARGET_ROWS_PER_S, [yardstick])
                page["target_rows_per_second"] = round(target)
                page["piece_holds"] = page["piece"]["rows_per_second_median"] >= target
                page["standard_holds"] = page["standard"]["rows_per_second_median"] >= target
            else:
                limit = MAX_QUERIES_HOME if page["page"] == "home" else MAX_QUERIES
                page["piece_holds"] = holds(page["piece"], budget, limit)
                page["standard_holds"] = holds(page["standard"], budget, limit)
        result.update(verdict(result["pages"]))
    summary = {
        "database": args.database,
        "customers": Customer.objects.count(),
        "repeats": args.repeats,
        "load_average": os.getloadavg()[0],
        "machine_speed_ms": yardstick,
        "machine_speed_ms_before_after": [yardstick_before, yardstick_after],
        "budget_ms": budget,
        "max_queries": MAX_QUERIES,
        "verdicts": {piece: result["verdict"] for piece, result in results.items()},
    }
    print(json.dumps({"summary": summary, "pieces": results}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
