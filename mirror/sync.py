"""Full syncs of the mirror and the refresh of open transactions.

One lock for all syncs: two never run at once, on one machine or many. Pages are written
as they arrive, so a sync that fails or is killed half-way keeps what it stored, and the
next run simply goes over everything again (upserts are idempotent).
"""

import datetime as dt
import logging
from collections.abc import Callable

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from core.models import hold_lock
from customers.models import Customer
from customers.upserts import customers_mark_missing, customers_upsert
from payments.models import TERMINAL_TRANSACTION_STATUSES, AutomationRule, PaymentAccount, Transaction
from payments.upserts import (
    automation_rules_mark_missing,
    automation_rules_upsert,
    payment_accounts_mark_missing,
    payment_accounts_merge_completed_forms,
    payment_accounts_upsert,
    transactions_upsert,
)
from paymentsapi import PaymentsApiError
from upstream.client import get_client
from upstream.mirrored import Source
from upstream.upsert import UpsertCounts

from .models import SyncRun

log = logging.getLogger(__name__)

PAGE_SIZE = 100
# The kinds of sync the mirror runs (SyncRun.kind), as below.
SYNC_KINDS = ("customers", "payment-accounts", "automation-rules", "transactions")
LOCK_TTL = dt.timedelta(minutes=10)

Progress = Callable[[int], None]


def _noop(_n: int) -> None:
    pass


INTERRUPTED = "Interrupted: the process ended before the run finished (closed by the next run)."


def _run(kind: str, work: Callable[[SyncRun, object], UpsertCounts]) -> SyncRun:
    """One run under the sync lock (LockHeld when another holds it; no run is recorded then)."""
    with hold_lock("mirror-sync", ttl=LOCK_TTL) as lease:
        _close_interrupted_runs()
        run = SyncRun.objects.create(kind=kind)
        try:
            counts = work(run, lease)
        except PaymentsApiError as exc:
            run.outcome, run.error = SyncRun.Outcome.FAILED, str(exc)[:500]
            log.warning("The %s sync failed: %s", kind, exc)
        else:
            run.outcome = SyncRun.Outcome.SUCCEEDED
            run.counts = counts.as_dict()
        run.finished_at = timezone.now()
        run.save()
    return run


def _close_interrupted_runs() -> None:
    """Runs still "running" when the lock is ours died with their process (killed, OOM,
    deploy): every run holds the one lock, so none of them is alive. Marked failed, they no
    longer pretend to run; what they stored stays, and this run goes over everything again."""
    closed = SyncRun.objects.filter(outcome=SyncRun.Outcome.RUNNING).update(
        outcome=SyncRun.Outcome.FAILED, error=INTERRUPTED, finished_at=timezone.now()
    )
    if closed:
        log.warning("Closed %d sync run(s) left running by a process that died", closed)


class _Statistics:
    """Keeps the planner's statistics of a table true while a sync grows it.

    PostgreSQL plans the foreign-key checks of a page's rows once per connection, from the
    statistics of the moment; a table analysed when empty (a new deployment's first sync, or any
    server without autovacuum) keeps a full-scan plan, and each page then costs as much as the
    table is large. So once the rows made since the last ANALYZE reach those it knew of (the
    table has doubled, and by MIN_ROWS at least), the table and those that point at it are
    analysed again: an estimate is never more than twice off, and the rounds stay few as the
    table grows (their cost: docs/benchmarks.md, "exports and sync on a faster machine")."""

    MIN_ROWS = 1000
    SHARE = 1.0

    def __init__(self, model):
        self.tables = [model._meta.db_table] + [
            rel.related_model._meta.db_table
            for rel in model._meta.related_objects
            if rel.one_to_many and rel.related_model._meta.app_label == model._meta.app_label
        ]
        self.on = connection.vendor == "postgresql"
        self.known = self._rows() if self.on else 0
        self.made = 0

    def _rows(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [self.tables[0]])
            (rows,) = cursor.fetchone()
        return max(int(rows), 0)  # -1: never analysed

    def grew(self, created: int) -> None:
        self.made += created
        if self.on and self.made >= max(self.MIN_ROWS, self.SHARE * self.known):
            with connection.cursor() as cursor:
                for table in self.tables:
                    cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
            self.known, self.made = self.known + self.made, 0


def _paged(run, lease, list_page, upsert, mark_missing, progress, *, model) -> UpsertCounts:
    counts, token, statistics = UpsertCounts(), None, _Statistics(model)
    while True:
        # The client retries a failed GET with backoff; what still fails ends the run,
        # and the pages already stored stay stored.
        try:
            page = list_page(token)
        except PaymentsApiError:
            counts.failed += 1
            run.counts = counts.as_dict()
            raise
        page_counts = upsert(page.items)
        counts.add(page_counts)
        statistics.grew(page_counts.created)
        progress(len(page.items))
        lease.extend()
        token = page.next_page_token
        if not token:
            break
    # Only a complete pass may say what vanished upstream.
    counts.missing = mark_missing(not_seen_since=run.started_at)
    return counts


def _full_sync(kind: str, resource, upsert, mark_missing, progress: Progress, model) -> SyncRun:
    """Every record of `resource` (a client resource with a paged list) upserted as the sync saw it."""
    return _run(
        kind,
        lambda run, lease: _paged(
            run,
            lease,
            lambda token: resource.list(page_token=token, page_size=PAGE_SIZE),
            lambda items: upsert(items=items, seen_by=Source.SYNC),
            mark_missing,
            progress,
            model=model,
        ),
    )


def sync_customers(*, client=None, progress: Progress = _noop) -> SyncRun:
    client = client or get_client()
    return _full_sync("customers", client.customers, customers_upsert, customers_mark_missing, progress, Customer)


def sync_payment_accounts(*, client=None, progress: Progress = _noop) -> SyncRun:
    client = client or get_client()
    resource, upsert = client.payment_accounts, payment_accounts_upsert
    return _full_sync("payment-accounts", resource, upsert, _merge_then_mark_missing, progress, PaymentAccount)


def sync_automation_rules(*, client=None, progress: Progress = _noop) -> SyncRun:
    """Every rule of the organization (the API lists them all without a customer filter)."""
    client = client or get_client()
    resource, upsert = client.automation_rules, automation_rules_upsert
    return _full_sync("automation-rules", resource, upsert, automation_rules_mark_missing, progress, AutomationRule)


def _merge_then_mark_missing(*, not_seen_since) -> int:
    payment_accounts_merge_completed_forms(not_seen_since=not_seen_since)
    return payment_accounts_mark_missing(not_seen_since=not_seen_since)


def refresh_open_transactions(*, client=None, progress: Progress = _noop) -> SyncRun:
    """Re-read every transaction that is not in a final state (the API has no list of them)."""
    client = client or get_client()

    def work(run, lease):
        counts = UpsertCounts()
        open_ids = (
            Transaction.objects.exclude(status__in=TERMINAL_TRANSACTION_STATUSES)
            .order_by("id")
            .values_list("transaction_id", flat=True)
        )
        for transaction_id in open_ids.iterator(chunk_size=500):
            try:
                item = client.transactions.get(transaction_id=transaction_id)
            except PaymentsApiError as exc:
                counts.failed += 1
                log.warning("Could not refresh transaction %s: %s", transaction_id, exc)
                continue
            counts.add(transactions_upsert(items=[item], seen_by=Source.SYNC))
            progress(1)
            lease.extend()
        return counts

    return _run("transactions", work)


def refresh_customer(*, customer_id: str, seen_by: Source = Source.STAFF, client=None) -> Customer:
    """Re-read one customer from the API into the mirror (Refresh button, webhook)."""
    client = client or get_client()
    item = client.customers.get(customer_id=customer_id, include_payment_methods=True)
    customers_upsert(items=[item], seen_by=seen_by)
    return Customer.objects.get(customer_id=customer_id)


def last_successes(kinds=SYNC_KINDS) -> dict[str, dt.datetime]:
    """When each of `kinds` last finished a successful run (a kind that never did is absent),
    in one grouped query on the (kind, outcome, finished_at) index."""
    runs = SyncRun.objects.filter(outcome=SyncRun.Outcome.SUCCEEDED, kind__in=kinds)
    return dict(runs.values_list("kind").annotate(at=Max("finished_at")).order_by())
