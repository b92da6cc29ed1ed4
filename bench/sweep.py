"""Every staff page over skewed data at full size: no slow corner, against a budget that travels.

Builds skewed mirror data on PostgreSQL (bench/sweep_data.py: one organization holding most
customers, rare type/status/issue combinations, a few customers holding most transactions, a
year of audit events, inbox events, a payment account per customer, quotes, rules, approval
requests, monitoring rules and alerts, a watch list, notifications), then requests as a role
that sees it:

- every list of the role matrix (tests/matrix.py) with no filter, every value of every filter
  alone (each choice the page's own filter form offers, and samples for the typed ones: a
  common, a rare and an empty one, a common search prefix among them), every pair of filters
  with their first two values, the second page and, for the two largest lists, a deep one;
- the search box's cases (bench/search_box.py);
- the detail pages and the forms.

tests/core/test_sweep_cases.py fails when a page or a typed filter has no case here.

The budget travels with the machine: a case holds when its p50 is at most
20 ms x machine_speed_ms / 28.4 (28.4 was the yardstick on the day the 20 ms budget was set) and
it runs at most 6 queries. The yardstick is read before and after the run, and printed.
Prints one JSON object: {"summary": {...}, "cases": [...], "slowest": [ten cases]}.

    .venv/bin/python bench/sweep.py --customers 50000 --transactions 250000   # small
    .venv/bin/python bench/sweep.py --keep   # 1,000,000 customers, 5,000,000 transactions, kept
    .venv/bin/python bench/sweep.py --reuse --only customers-list-customers   # one list again
"""

import argparse
import datetime as dt
import itertools
import json
import os
import sys
import time
import warnings
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlencode, urlsplit

warnings.filterwarnings("ignore", message="No directory at")

# The yardstick (bench/_setup.machine_speed, ms) on the day the 20 ms budget was set.
YARDSTICK_OF_BUDGET = 28.4
BUDGET_MS = 20.0
MAX_QUERIES = 6


def budget_ms(machine_speed_ms: float) -> float:
    """The 20 ms p50 budget on a machine whose yardstick reads `machine_speed_ms`."""
    return round(BUDGET_MS * machine_speed_ms / YARDSTICK_OF_BUDGET, 1)


# Pages the sweep does not time, each with the reason; every other page of the role matrix
# is a list, a detail or a form below (tests/core/test_sweep_cases.py).
SKIPPED = {
    "customers-export-customers": "an export: bench/exports.py",
    "audit-export-events": "an export: bench/exports.py",
    "payments-export-payment-accounts": "an export: bench/exports.py",
    "payments-export-transactions": "an export: bench/exports.py",
    "mirror-export-inbox-events": "an export: bench/exports.py",
    "monitoring-export-alerts": "an export: bench/exports.py",
    "customers-view-customer-live": "a live part: bench/live_poll.py",
    "customers-list-counts-live": "a live part: bench/live_poll.py",
    "payments-view-transaction-live": "a live part: bench/live_poll.py",
    "payments-list-stuck-transactions-live": "a live part: bench/live_poll.py",
    "notifications-bell": "a live part: bench/live_poll.py",
    "customers-add-row": "a form row answered to htmx, no query",
    "customers-remove-row": "a form row answered to htmx, no query",
    "customers-add-new-row": "a form row answered to htmx, no query",
    "customers-remove-new-row": "a form row answered to htmx, no query",
    "payments-calculate-exchange-rate": "asks the Payments API (the sweep runs without one)",
    "payments-preview-quote": "asks the Payments API (the sweep runs without one)",
    "payments-view-payment-account-balances": "asks the Payments API (the sweep runs without one)",
    "payments-execute-quote": "a confirmation that asks the Payments API for a fresh rate",
    "monitoring-view-backtest": "a backtest's progress, one row by key",
    "notifications-change-destination": "one destination by key, an admin form",
    "staff-change-staff-roles": "a confirmation of one member by key (the staff page's query)",
    "staff-deactivate-staff": "a confirmation of one member by key (the staff page's query)",
    "staff-reactivate-staff": "a confirmation of one member by key (the staff page's query)",
    "staff-reset-staff-mfa": "a confirmation of one member by key (the staff page's query)",
    "staff-unlock-staff": "a confirmation of one member by key (the staff page's query)",
    "staff-create-staff-password-link": "a confirmation of one member by key (the staff page's query)",
    "payments-edit-automation-rule": "the rule form of one rule by key (payments-create-automation-rule)",
    "monitoring-edit-rule": "the rule form of one rule by key (monitoring-create-rule)",
    "payments-cancel-transaction": "a confirmation of one transaction by key (its page's query)",
    "payments-reject-approval-request": "a confirmation of one request by key (its page's query)",
}

# Detail pages: URL name -> the key of `ids` its one argument comes from (two customers).
DETAILS = {
    "customers-view-customer": ("big", "small"),
    "payments-view-transaction": ("transaction",),
    "staff-view-staff": ("staff",),
    "payments-view-payment-account": ("account",),
    "payments-view-quote": ("quote",),
    "payments-view-automation-rule": ("rule",),
    "payments-view-approval-request": ("approval",),
    "monitoring-view-alert": ("alert",),
    "monitoring-view-rule": ("monitoring_rule",),
    "monitoring-view-watchlist": ("watchlist",),
}

# Forms: URL name -> (argument key or None, query string).
FORMS = {
    "customers-create-customer": (None, {}),
    "customers-create-customer#business": (None, {"customer_type": "BUSINESS"}),
    "customers-edit-kyc": ("small", {}),
    "customers-edit-kyb": ("business", {}),
    "payments-create-quote": (None, {}),
    "payments-create-quote#customer": (None, {"customer": "big"}),
    "payments-create-automation-rule": (None, {}),
    "payments-create-payment-account": (None, {}),
    "monitoring-create-rule": (None, {}),
    "monitoring-create-rule#kind": (None, {"kind": "structuring"}),
    "staff-create-staff": (None, {}),
    "staff-set-time-zone": (None, {}),
    "notifications-preferences": (None, {}),
    "notifications-list-destinations": (None, {}),
}

# Lists: URL name -> its typed (free-text) filters' sample values, common first, then rare,
# then one that matches nothing. A <select> of the page's filter form needs no entry: each of
# its choices is visited.
LISTS = (
    "home",
    "audit-list-events",
    "staff-list-staff",
    "customers-list-customers",
    "customers-list-escalations",
    "payments-list-payment-accounts",
    "payments-list-automation-rules",
    "payments-list-transactions",
    "payments-list-stuck-transactions",
    "payments-list-open-quotes",
    "payments-list-approval-requests",
    "payments-search-customers",
    "mirror-list-inbox-events",
    "monitoring-list-alerts",
    "monitoring-list-rules",
    "monitoring-list-watchlists",
    "notifications-list-notifications",
    "search",
)


def typed_samples(ids: dict) -> dict:
    """Per list, per typed filter of its filter form: values to try (common, rare, none)."""
    big = ids["big"]
    month_start, month_end, old_day = ids["month_start"], ids["month_end"], ids["old_day"]
    return {
        "audit-list-events": {
            "actor": ["staff-3", "nobody"],
            "action": ["customer.update", "transaction.cancel", "none.such"],
            "target_kind": ["customer", "transaction", "none"],
            "target_id": [big, "none"],
            "since": [month_start, old_day],
            "until": [month_end, old_day],
        },
        "payments-list-transactions": {
            "q": ["Customer 12", "c123@", "none"],
            "created_from": [month_start],
            "created_until": [month_end],
            "correlation_id": ["corr-77", "none"],
            "expires_within": ["60"],
        },
        "customers-list-customers": {
            "q": ["Customer 12", "c123@", "Zed"],
            "organization": ["org-big", "org-7", "org-none"],
            "issue": ["DOCUMENT_MISSING_BACK", "SELFIE_MISMATCH", "NONE_SUCH"],
            "updated_since": [month_start, old_day],
            "decided": [month_end],
        },
        "payments-list-payment-accounts": {"q": ["Customer 12", "none"]},
        "payments-list-automation-rules": {
            "q": ["Customer 12", "none"],
            "source": [ids.get("account_id") or "a", "none"],
        },
        "payments-list-stuck-transactions": {"processing_hours": ["4", "72"], "created_minutes": ["30"]},
        "monitoring-list-alerts": {"customer": [big, "none"]},
        "search": {"q": [q for _, q, _ in ids["search_cases"]]},
    }


def link_filters(ids: dict) -> dict:
    """Per list, the filters its links set rather than its form (a customer's page links to
    its transactions, the stuck view's tabs name a rule, a type-ahead takes `q`)."""
    big, small = ids["big"], ids["small"]
    return {
        "payments-list-transactions": {"customer": [big, small, "none"]},
        "payments-list-payment-accounts": {"customer": [big, "none"]},
        "payments-list-automation-rules": {"customer": [big, "none"]},
        "payments-list-stuck-transactions": {"rule": ["awaiting-expired", "processing-long", "created-long"]},
        "payments-search-customers": {"q": ["Customer 12", "Customer 4999", "c123@", "none"]},
    }


class FilterForm(HTMLParser):
    """The filter form of a list page (a GET form of class "filters"): each field's name ->
    the values of its <select> (without the empty one), or None for a typed field."""

    def __init__(self):
        super().__init__()
        self.fields: dict[str, list[str] | None] = {}
        self._in_form = False
        self._select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._in_form = (
                "filters" in (attrs.get("class") or "").split() and (attrs.get("method") or "").lower() == "get"
            )
        elif not self._in_form or (not attrs.get("name") and tag != "option"):
            return
        elif tag == "select":
            self._select = attrs["name"]
            self.fields.setdefault(self._select, [])
        elif tag == "option" and self._select and attrs.get("value"):
            self.fields[self._select].append(attrs["value"])
        elif tag == "input" and attrs.get("type", "text") in ("text", "search", "date", "number", "email"):
            self.fields.setdefault(attrs["name"], None)
        elif tag == "input" and attrs.get("type") in ("checkbox", "radio") and attrs.get("value"):
            values = self.fields.setdefault(attrs["name"], [])
            if values is not None and attrs["value"] not in values:
                values.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None


def filter_fields(html: str) -> dict:
    parser = FilterForm()
    parser.feed(html)
    return parser.fields


def filter_spec(fields: dict, samples: dict, links: dict | None = None) -> dict:
    """Each filter's values to visit: every choice of a select, the samples of a typed field
    (KeyError when a typed field has none: tests/core/test_sweep_cases.py), and the filters
    the list's links set."""
    spec = {name: (values if values is not None else samples[name]) for name, values in fields.items()}
    return {**spec, **(links or {})}


def combinations(spec: dict) -> list[dict]:
    """No filter, every filter alone with each value, every pair with their first two values."""
    cases = [{}]
    for name, values in spec.items():
        cases += [{name: v} for v in values]
    for (a, va), (b, vb) in itertools.combinations(spec.items(), 2):
        for x, y in itertools.product(va[:2], vb[:2]):
            cases.append({a: x, b: y})
    return cases


def next_page(html: str, path: str) -> str | None:
    """The list's "next" link (a keyset cursor or a page number), as a URL of `path`."""
    import re
    from html import unescape

    for href in re.findall(r'href="([^"]*[?&](?:cursor|page)=[^"]*)"', unescape(html)):
        parts = urlsplit(href)
        if parts.path in ("", path):
            return path + "?" + urlencode(parse_qsl(parts.query))
    return None


def deep_cursor(model, ordering: tuple[str, ...], depth: int) -> str | None:
    from core.views import _encode

    names = [o.lstrip("-") for o in ordering]
    row = model.objects.order_by(*ordering).values_list(*names)[depth : depth + 1].first()
    return _encode(list(row)) if row else None


def slowest_plan(client, url: str) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement one request of `url` runs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    sql = max(captured.captured_queries, key=lambda q: float(q["time"]))["sql"]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql.replace("%", "%%"))
        return [row[0] for row in cursor.fetchall()]


def role_for(name: str) -> str:
    from tests.matrix import MATRIX

    roles = MATRIX[name.split("#")[0]].roles
    return next(r for r in ("auditor", "compliance", "admin", "operations") if r in roles)


def known_ids(search_cases) -> dict:
    """The records the detail pages and the filters' samples name."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from customers.models import Customer
    from monitoring.models import Alert, MonitoringRule, WatchList
    from payments.models import ApprovalRequest, AutomationRule, PaymentAccount, Quote, Transaction

    today = timezone.now().date()
    big, small = Customer.objects.order_by("id").values_list("customer_id", flat=True)[:3:2]

    def first(queryset, field="pk"):
        return queryset.order_by("id").values_list(field, flat=True).first()

    return {
        "big": big,
        "small": small,
        "business": first(Customer.objects.filter(customer_type="BUSINESS"), "customer_id"),
        "transaction": first(Transaction.objects.filter(customer__customer_id=big), "transaction_id"),
        "staff": first(get_user_model().objects),
        "account": first(PaymentAccount.objects),
        "account_id": first(PaymentAccount.objects, "account_id"),
        "quote": first(Quote.objects, "quote_id"),
        "rule": first(AutomationRule.objects),
        "approval": first(ApprovalRequest.objects),
        "alert": first(Alert.objects),
        "monitoring_rule": first(MonitoringRule.objects),
        "watchlist": first(WatchList.objects),
        "month_start": (today - dt.timedelta(days=60)).isoformat(),
        "month_end": (today - dt.timedelta(days=30)).isoformat(),
        "old_day": (today - dt.timedelta(days=300)).isoformat(),
        "search_cases": search_cases,
    }


def page_urls(clients: dict, ids: dict, only: set | None = None) -> list[tuple[str, str, int]]:
    """(URL name, URL, status expected) of every case."""
    from django.urls import reverse

    from audit.models import AuditEvent
    from payments.models import Transaction

    urls = []
    samples, links = typed_samples(ids), link_filters(ids)
    for name in LISTS:
        if only and name not in only:
            continue
        path = reverse(name)
        first = clients[role_for(name)].get(path)
        html = first.content.decode()
        spec = filter_spec(filter_fields(html), samples.get(name, {}), links.get(name))
        if name == "search":
            urls += [(name, path + "?" + urlencode({"q": q}), status) for _, q, status in ids["search_cases"]]
            continue
        urls += [(name, path + ("?" + urlencode(params) if params else ""), 200) for params in combinations(spec)]
        following = next_page(html, path)
        if following:
            urls.append((name, following, 200))
    deep = {
        "audit-list-events": (AuditEvent, ("-created_at", "-id")),
        "payments-list-transactions": (Transaction, ("-created_upstream_at", "-id")),
    }
    for name, (model, ordering) in deep.items():
        cursor = deep_cursor(model, ordering, model.objects.count() // 2)
        if cursor and (not only or name in only):
            urls.append((name, reverse(name) + "?" + urlencode({"cursor": cursor}), 200))
    for name, keys in DETAILS.items():
        if not only or name in only:
            urls += [(name, reverse(name, args=[ids[key]]), 200) for key in keys if ids[key] is not None]
    for case, (key, query) in FORMS.items():
        name = case.split("#")[0]
        if only and name not in only:
            continue
        query = {k: ids.get(v, v) for k, v in query.items()}
        url = reverse(name, args=[ids[key]] if key else [])
        urls.append((case, url + ("?" + urlencode(query) if query else ""), 200))
    return urls


def staff_clients() -> dict:
    """A logged-in test client per role, as just after a password login: the pages that ask
    for a recent one open."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.test import Client

    from core.access import sync_role_groups

    sync_role_groups(Group, Permission)
    clients = {}
    for role in ("admin", "auditor", "compliance", "operations"):
        user, _ = get_user_model().objects.get_or_create(username=f"sweep-{role}")
        user.groups.add(Group.objects.get(name=role))
        clients[role] = Client()
        clients[role].force_login(user)
        session = clients[role].session
        session["account_authentication_methods"] = [
            {"method": "password", "at": time.time() + 86400, "username": user.username}
        ]
        session["account_authentication_methods_user"] = str(user.pk)
        session.save()
    return clients


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--transactions", type=int, default=5_000_000)
    parser.add_argument("--audit-events", type=int, default=2_000_000)
    parser.add_argument("--inbox-events", type=int, default=100_000)
    parser.add_argument("--big-share", type=float, default=0.05, help="share of transactions of the largest customer")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--database", default="bench_sweep")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN (ANALYZE, BUFFERS) the ten slowest")
    parser.add_argument("--keep", action="store_true", help="leave the database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="the data of an earlier --keep run: no build")
    parser.add_argument("--only", action="append", help="only this URL name (repeatable)")
    parser.add_argument("--build-only", action="store_true", help="build and keep the data, time nothing")
    args = parser.parse_args()

    from _setup import database_exists, machine_speed, pages_without_upstream, time_page
    from sweep_data import build, build_work

    if args.reuse and not database_exists(args.database):
        parser.error(f"--reuse: no database {args.database} (run with --keep first)")
    reuse = pages_without_upstream(args.database, keep=args.keep or args.build_only, reuse=args.reuse)
    from django.db import connection
    from search_box import cases as search_cases

    from audit.models import AuditEvent
    from customers.models import Customer
    from payments.models import Transaction

    clients = staff_clients()
    if reuse:
        seconds = 0.0
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    else:
        seconds = build(args.customers, args.transactions, args.audit_events, args.inbox_events, args.big_share)
        seconds += build_work(args.customers)
    if args.build_only:
        print(json.dumps({"database": args.database, "build_seconds": round(seconds, 1)}))
        return
    customers = Customer.objects.count() if reuse else args.customers
    ids = known_ids(search_cases(customers))

    yardstick_before = machine_speed()
    cases, errors = [], []
    for name, url, status in page_urls(clients, ids, set(args.only) if args.only else None):
        role = role_for(name)
        cases.append(
            {
                "name": name,
                "url": url,
                "role": role,
                **time_page(clients[role], url, status=status, repeats=args.repeats),
            }
        )
        print(json.dumps(cases[-1]), file=sys.stderr)
    yardstick = round((yardstick_before + machine_speed()) / 2, 1)
    budget = budget_ms(yardstick)
    for case in cases:
        case["within_budget"] = case["p50_ms"] <= budget and case["queries"] <= MAX_QUERIES
    slowest = sorted(cases, key=lambda c: c["p50_ms"], reverse=True)[:10]
    if args.explain:
        for case in slowest:
            case["plan"] = slowest_plan(clients[case["role"]], case["url"])
    p50s = sorted(c["p50_ms"] for c in cases)
    summary = {
        "customers": customers,
        "transactions": Transaction.objects.count() if reuse else args.transactions,
        "audit_events": AuditEvent.objects.count() if reuse else args.audit_events,
        "build_seconds": round(seconds, 1),
        "reused": reuse,
        "load_average": os.getloadavg()[0],
        "machine_speed_ms": yardstick,
        "machine_speed_ms_before_after": [yardstick_before, round(2 * yardstick - yardstick_before, 1)],
        "budget_ms": budget,
        "cases": len(cases),
        "median_p50_ms": p50s[len(p50s) // 2] if p50s else None,
        "over_budget": sum(1 for c in cases if c["p50_ms"] > budget),
        "over_20_ms": sum(1 for c in cases if c["p50_ms"] > BUDGET_MS),
        "over_6_queries": sum(1 for c in cases if c["queries"] > MAX_QUERIES),
        "errors": len(errors),
    }
    print(json.dumps({"summary": summary, "errors": errors, "cases": cases, "slowest": slowest}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
