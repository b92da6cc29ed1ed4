"""Reads of the compliance workspace that are more than a filter: the queue, its counts,
the next case, and a customer's timeline and case clock."""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import (
    BooleanField,
    Count,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.expressions import RawSQL
from django.utils import timezone

from audit.models import AuditEvent
from core.live import CompiledQuery, version_of
from core.together import sections_in

from .models import (
    CASE_OPEN_STATUSES,
    WAITING_ON_CUSTOMER,
    CaseDecision,
    Customer,
    CustomerNote,
    CustomerStatus,
    CustomerStatusChange,
    HostedLinkHandout,
    VerificationIssue,
)
from .prefix import starts_with

# Statuses that always need a person; CREATED joins them once it has waited too long.
NEEDS_PERSON = [CustomerStatus.UNDER_REVIEW, CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, CustomerStatus.REJECTED]
# Both orders end in the pk, as keyset pagination needs; each has an index.
ORDERINGS = {"age": ("status_since", "id"), "updated": ("-upstream_updated_at", "-id")}
# Above this many rows (PostgreSQL's own estimate), the header shows estimates.
EXACT_COUNT_LIMIT = 100_000
COUNTS_TTL = 60
# A search by prefix looks at this many customers at most (search_candidates).
SEARCH_CANDIDATES = 1000


def sla() -> dt.timedelta:
    return dt.timedelta(hours=settings.CUSTOMERS_REVIEW_SLA_HOURS)


def created_stale_before() -> dt.datetime:
    return timezone.now() - dt.timedelta(minutes=settings.CUSTOMERS_CREATED_STALE_MINUTES)


def needs_person_q() -> Q:
    """Customers whose case waits on a reviewer: in a state that needs a person, and not decided
    since their status or issues last changed (customers_upsert clears the decision then)."""
    waiting = Q(status__in=NEEDS_PERSON) | Q(status=CustomerStatus.CREATED, status_since__lt=created_stale_before())
    return waiting & Q(case_decision="")


def escalated_q() -> Q:
    return Q(case_decision=CaseDecision.Kind.ESCALATED)


# A decision of the review: the customer reached one of these states from another.
DECISION_STATUSES = [CustomerStatus.ACTIVE, CustomerStatus.REJECTED]
# "Due soon": the SLA ends within this long.
SLA_DUE_SOON = dt.timedelta(hours=2)


# Where the SLA of an open case counts from, as if its "waiting on us" clock had run without a
# pause: a running clock's start less the seconds it banked before, or the time in the current
# state for a row without a clock (null for a paused one). Its deadline is this plus sla(), so a
# window of deadlines is a range of it, which the PostgreSQL expression index customer_sla_start
# (migration 0010, the same expression) serves. In UTC without a time zone: PostgreSQL indexes
# immutable expressions only, and `timestamptz - interval` is not.
SLA_START_SQL = (
    "CASE WHEN waiting_on_us_seconds IS NULL THEN (status_since AT TIME ZONE 'UTC') "
    "ELSE (waiting_on_us_since AT TIME ZONE 'UTC') - make_interval(secs => waiting_on_us_seconds) END"
)


def _sla_start_between(start: dt.datetime, end: dt.datetime) -> Q:
    """Customers whose SLA start (SLA_START_SQL) is in [start, end), on PostgreSQL's index."""
    bounds = [start.astimezone(dt.UTC).replace(tzinfo=None), end.astimezone(dt.UTC).replace(tzinfo=None)]
    condition = f"({SLA_START_SQL}) >= CAST(%s AS timestamp) AND ({SLA_START_SQL}) < CAST(%s AS timestamp)"
    # A constant text: only the two bounds are parameters.
    return Q(RawSQL(condition, [b.isoformat() for b in bounds], output_field=BooleanField()))  # noqa: S611


def sla_q(state: str, now: dt.datetime) -> Q:
    """Cases whose "waiting on us" clock (the one row_clock reads) is over the SLA
    (`state="breached"`) or will be within SLA_DUE_SOON while it runs (`"due"`), in SQL.

    A running clock ends its SLA at waiting_on_us_since + (SLA - waiting_on_us_seconds); a
    paused one is over when its banked seconds are; a row without a clock counts its time in
    the current state, as row_clock does.
    """
    limit = sla()
    no_clock = Q(
        waiting_on_us_seconds__isnull=True,
        status__in=CASE_OPEN_STATUSES - WAITING_ON_CUSTOMER,
    )
    if state == "due" and connection.vendor == "postgresql":
        # A few rows of the expression index, not a walk of every open case.
        clocked = Q(waiting_on_us_seconds__isnull=False, status__in=CASE_OPEN_STATUSES)
        return _sla_start_between(now - limit, now - limit + SLA_DUE_SOON) & (clocked | no_clock)
    deadline = ExpressionWrapper(
        F("waiting_on_us_since")
        + ExpressionWrapper(
            (Value(int(limit.total_seconds())) - F("waiting_on_us_seconds")) * Value(dt.timedelta(seconds=1)),
            output_field=DurationField(),
        ),
        output_field=Customer._meta.get_field("waiting_on_us_since"),
    )
    qs = Customer.objects.alias(sla_deadline=deadline)
    running = Q(waiting_on_us_seconds__isnull=False, waiting_on_us_since__isnull=False)
    if state == "breached":
        matching = (
            (running & Q(sla_deadline__lt=now))
            | Q(waiting_on_us_seconds__gt=limit.total_seconds(), waiting_on_us_since__isnull=True)
            | (no_clock & Q(status_since__lt=now - limit))
        )
    else:
        matching = (running & Q(sla_deadline__gte=now, sla_deadline__lt=now + SLA_DUE_SOON)) | (
            no_clock & Q(status_since__gte=now - limit, status_since__lt=now - limit + SLA_DUE_SOON)
        )
    return Q(pk__in=qs.filter(matching, status__in=CASE_OPEN_STATUSES).values("pk"))


def decided_on_q(day: dt.date) -> Q:
    """Customers with a decision (a move to ACTIVE or REJECTED) seen on `day` (UTC)."""
    start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
    decisions = CustomerStatusChange.objects.filter(
        customer=OuterRef("pk"),
        new_status__in=DECISION_STATUSES,
        changed_at__gte=start,
        changed_at__lt=start + dt.timedelta(days=1),
    )
    return Q(Exists(decisions))


def with_issue(code: str, *, statuses=None) -> QuerySet:
    """The keys of customers with an open issue `code` (and, when given, one of `statuses`),
    read from the issues' own (code, customer_status, customer) index.

    The filter starts from the issues: a status that holds none of them (UNDER_REVIEW with a
    missing document) is an empty index range, where an EXISTS per customer walked every
    customer of that status. The issue rows carry their customer's status for this (the
    upsert keeps it), with statistics on (code, customer_status), so the planner knows which
    pairs are rare.
    """
    issues = VerificationIssue.objects.filter(code=code)
    if statuses:
        issues = issues.filter(customer_status__in=statuses)
    return issues.values("customer_id")


def with_issue_over_sla(code: str, *, statuses=None) -> QuerySet:
    """The keys of the customers with an open issue `code` (and one of `statuses`) that may be
    over the SLA, for sla_q("breached") to decide: two small sets instead of every customer with
    the issue.

    - The issues of `code` of customers whose case waits on us, from the issues' own index (the
      issue rows carry their customer's status, as with_issue reads them).
    - The customers the case waits on whose clock can be over: one still running (none, as
      customers_upsert keeps the clock) or seconds banked above the SLA, from the partial index
      customer_waiting_clock; those with the issue.

    An issue mostly waits on the customer (a missing document), whose clock is paused: "over
    SLA" with such an issue read every open case in the queue's order, one by one, and found
    none (a second on 1,000,000 customers, docs/benchmarks.md).
    """
    on_us = sorted(CASE_OPEN_STATUSES - WAITING_ON_CUSTOMER)
    waiting = sorted(WAITING_ON_CUSTOMER)
    if statuses:
        on_us, waiting = [s for s in on_us if s in statuses], [s for s in waiting if s in statuses]
    may_be_over = Q(waiting_on_us_since__isnull=False) | Q(
        waiting_on_us_since__isnull=True, waiting_on_us_seconds__gt=sla().total_seconds()
    )
    parts = [with_issue(code, statuses=on_us)] if on_us else []
    if waiting:
        clocks = Customer.objects.filter(may_be_over, status__in=waiting, pk__in=with_issue(code, statuses=waiting))
        parts.append(clocks.values("pk"))
    if not parts:
        return Customer.objects.none().values("pk")
    return parts[0].union(*parts[1:], all=True)


def search_candidates(q: str) -> QuerySet:
    """The customers a search looks at: the first SEARCH_CANDIDATES whose name or e-mail starts
    with `q` (an e-mail only when `q` holds an @), by the Upper() prefix indexes (customers.prefix).

    A bounded set whatever the prefix: a common one ("Customer 1") matches a tenth of the
    customers, which the queue's order would otherwise walk or sort. The page then filters and
    orders these few; the page says a search looks at that many.
    """
    matches = starts_with("email", q) if "@" in q else starts_with("name", q) | starts_with("email", q)
    return Customer.objects.filter(matches).values("pk")[:SEARCH_CANDIDATES]


def customers_search(*, query: str, active_only: bool = True, limit: int = 10) -> QuerySet[Customer]:
    """Customers whose name or e-mail starts with `query`, or whose id is `query`: the ACTIVE
    ones (whom money may move for), or all of them (to filter lists by)."""
    query = query.strip()
    if not query:
        return Customer.objects.none()
    matches = starts_with("name", query) | starts_with("email", query) | Q(customer_id=query)
    found = Customer.objects.filter(matches, missing_upstream=False)
    if active_only:
        found = found.filter(status=CustomerStatus.ACTIVE)
    # Bounded as the queue's search is (search_candidates): the first SEARCH_CANDIDATES matches
    # by the prefix indexes, of which the page orders the first `limit` by name. A common prefix
    # ("Customer 12", a hundredth of the customers) then costs what a rare one does, where
    # ordering every match read and sorted them all.
    candidates = found.values("pk")[:SEARCH_CANDIDATES]
    return Customer.objects.filter(pk__in=candidates).order_by("name", "pk")[:limit]


def one_issue_per_code(issues: QuerySet[VerificationIssue]) -> QuerySet[VerificationIssue]:
    """The first of a customer's issues of each code: the API may raise a code more than once
    (on several fields, or on the KYC and the KYB), which a row names once."""
    earlier = VerificationIssue.objects.filter(
        customer=OuterRef("customer"), code=OuterRef("code"), pk__lt=OuterRef("pk")
    )
    return issues.exclude(Exists(earlier))


def queue_rows() -> QuerySet:
    """The queue's rows before its filters (customers.filters.QueueFilter): the assignee joined.
    A page's issues come after, for its rows only (attach_issue_lists)."""
    return Customer.objects.select_related("assignee")


def attach_issue_lists(customers: list[Customer]) -> None:
    """Each customer's open issues (their `code`) as a plain list on `issue_list`, each code once (the first:
    the API may raise a code on several fields, which a row names once, as one_issue_per_code):
    one query of two columns for a page of rows, none for an empty page. A prefetch of
    one_issue_per_code built and compiled its subquery on every request, 1.5-2 ms of the queue's
    processor per page at full size (docs/benchmarks.md)."""
    lists: dict[int, list] = {customer.pk: [] for customer in customers}
    seen = set()
    issues = VerificationIssue.objects.filter(customer_id__in=lists).order_by("pk")
    for issue in issues.values_list("customer_id", "code", named=True) if lists else ():
        if (issue.customer_id, issue.code) not in seen:
            seen.add((issue.customer_id, issue.code))
            lists[issue.customer_id].append(issue)
    for customer in customers:
        customer.issue_list = lists[customer.pk]


@dataclass
class StatusCounts:
    counts: dict[str, int]
    estimated: bool
    as_of: dt.datetime


def _newest(queryset) -> Subquery:
    return Subquery(queryset.order_by("-created_at", "-id").values("id")[:1])


# The customer page's template: it names the other apps' sections the page shows (their tags).
CUSTOMER_PAGE = "customers/view_customer.html"


def _customer_version_query(customer_id):
    sections = {name: column for tag in sections_in(CUSTOMER_PAGE) for name, column in tag.section_version().items()}
    return (
        Customer.objects.filter(customer_id=customer_id)
        .annotate(
            newest_note=_newest(CustomerNote.objects.filter(customer=OuterRef("pk"))),
            newest_handout=_newest(HostedLinkHandout.objects.filter(customer=OuterRef("pk"))),
            newest_event=_newest(AuditEvent.objects.filter(target_kind="customer", target_id=OuterRef("customer_id"))),
            **sections,
        )
        .values_list(
            "synced_at",
            "upstream_updated_at",
            "status",
            "missing_upstream",
            "assignee_id",
            "claimed_at",
            "newest_note",
            "newest_handout",
            "newest_event",
            *sections,
        )[:1]
    )


_CUSTOMER_VERSION = CompiledQuery(_customer_version_query, arity=1)
_COUNTS_VERSION = CompiledQuery(
    lambda: (
        Customer.objects.filter(upstream_updated_at__isnull=False)
        .order_by("-upstream_updated_at", "-id")
        .values_list("upstream_updated_at", "id")[:1]
    )
)


def customer_version(customer_id: str) -> str:
    """What the customer page shows changes only with one of these (one query on indexes): a
    webhook, sync or refresh stamps `synced_at` (status, issues, history); case work moves the
    assignee or adds a note, a handout or an audit event (the timeline); the other apps'
    sections the page's template draws add their own columns (core.together.page_section)."""
    return version_of(_CUSTOMER_VERSION.first_row(customer_id))


def counts_version() -> str:
    """The per-status counts move only when a customer is created or changes upstream, which
    moves the newest `upstream_updated_at` (read from its index)."""
    return version_of(_COUNTS_VERSION.first_row())


def status_counts(version: str = "") -> StatusCounts:
    """Customers per status for the queue's header, cached for a minute.

    A COUNT over a million rows costs a table scan; above EXACT_COUNT_LIMIT rows PostgreSQL's
    statistics (pg_stats' most common values and their frequencies, kept by autovacuum's
    ANALYZE) give the figures in one cheap query, and the page labels them "≈".
    """
    key = f"customers:status-counts:{version}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    result = _estimated_counts() if connection.vendor == "postgresql" else None
    if result is None:
        rows = Customer.objects.values_list("status").annotate(n=Count("id")).order_by()
        result = StatusCounts(counts=dict(rows), estimated=False, as_of=timezone.now())
    cache.set(key, result, COUNTS_TTL)
    return result


def _estimated_counts() -> StatusCounts | None:
    table = Customer._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.reltuples, s.most_common_vals::text::text[], s.most_common_freqs
            FROM pg_class c
            LEFT JOIN pg_stats s ON s.tablename = c.relname AND s.attname = 'status' AND s.schemaname = current_schema()
            WHERE c.relname = %s AND c.relnamespace = current_schema()::regnamespace
            """,
            [table],
        )
        row = cursor.fetchone()
    if not row or row[0] < EXACT_COUNT_LIMIT or not row[1]:
        return None
    total, values, freqs = row
    return StatusCounts(
        counts={value: round(total * freq) for value, freq in zip(values, freqs, strict=True)},
        estimated=True,
        as_of=timezone.now(),
    )


def next_case(cases: QuerySet) -> Customer | None:
    """The oldest unclaimed case of the queue's current filter (`cases`, a QueueFilter's rows),
    row-locked where the database can."""
    qs = cases.filter(assignee__isnull=True).prefetch_related(None).select_related(None).order_by("status_since", "id")
    if connection.features.has_select_for_update_skip_locked:
        # Two reviewers pressing "Next case" together get two different cases.
        qs = qs.select_for_update(skip_locked=True, of=("self",))
    return qs.first()
