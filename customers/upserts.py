"""Writes of API data into the customer mirror: every one goes through customers_upsert, whether
it comes from a sync, a webhook or a staff action."""

from django.db import transaction
from django.utils import timezone

from paymentsapi import types as api
from upstream.mirrored import Source, announce_changes
from upstream.upsert import UpsertCounts, is_stale

from .models import CASE_OPEN_STATUSES, WAITING_ON_CUSTOMER, Customer, CustomerStatusChange, VerificationIssue

# Fields copied from the API on every upsert (besides the status bookkeeping).
_COPIED = [
    "organization_id",
    "customer_type",
    "status",
    "name",
    "email",
    "verification_link",
    "available_payment_methods",
    "upstream_updated_at",
]


def _fields_of(item: api.Customer, old: Customer | None) -> dict:
    methods = item.available_payment_methods
    return {
        "organization_id": item.organization_id or (old.organization_id if old else ""),
        "customer_type": str(item.customer_type or (old.customer_type if old else "")),
        "status": str(item.customer_status),
        "name": item.name or "",
        "email": item.email or "",
        "verification_link": item.verification_link or "",
        # The single-customer read leaves the methods out unless asked: keep what we had.
        "available_payment_methods": methods if methods is not None else (old.available_payment_methods if old else []),
        "upstream_updated_at": item.updated_at,
    }


def _clock_after(old: Customer | None, status: str, now) -> dict:
    """The "waiting on us" clock once the customer moves to `status` at `now` (the time the
    history records): the running part is banked; a case that opens starts from zero."""
    if status not in CASE_OPEN_STATUSES:
        return {"waiting_on_us_seconds": 0, "waiting_on_us_since": None}
    banked = 0
    if old is not None and old.status in CASE_OPEN_STATUSES:
        banked = int(old.waiting_on_us(now).total_seconds())
    return {
        "waiting_on_us_seconds": banked,
        "waiting_on_us_since": None if status in WAITING_ON_CUSTOMER else now,
    }


def _issues_of(item: api.Customer) -> list[tuple]:
    return sorted((i.code, i.message or "", i.timestamp) for i in item.verification_issues)


@transaction.atomic
def customers_upsert(*, items: list[api.Customer], seen_by: Source) -> UpsertCounts:
    """Insert or update these customers, their issues and their status history.

    A fixed number of queries per call whatever the number of items. Older copies than the
    mirror's are skipped (counted unchanged), so events and pages may arrive in any order.
    """
    now = timezone.now()
    counts = UpsertCounts()
    by_id = {item.customer_id: item for item in items}  # last copy of a duplicate wins
    existing = {c.customer_id: c for c in Customer.objects.filter(customer_id__in=by_id)}
    old_issues: dict[int, list[tuple]] = {}
    for issue in VerificationIssue.objects.filter(customer__in=existing.values()).order_by("id"):
        old_issues.setdefault(issue.customer_id, []).append((issue.code, issue.message, issue.timestamp))

    rows, history, new_issues, refresh_issues_of, reopened = [], [], {}, [], []
    # New customers and those whose name changed: what watch-list screening looks at.
    renamed = set()
    for customer_id, item in by_id.items():
        old = existing.get(customer_id)
        if old and is_stale(item.updated_at, old.upstream_updated_at):
            counts.unchanged += 1
            rows.append(_seen(old, now))
            continue
        values = _fields_of(item, old)
        issues = _issues_of(item)
        status_changed = old is None or old.status != values["status"]
        if old is None or old.name != values["name"]:
            renamed.add(customer_id)
        if old is None:
            counts.created += 1
        elif (
            status_changed
            or any(getattr(old, f) != v for f, v in values.items())
            or (sorted(old_issues.get(old.pk, [])) != issues)
        ):
            counts.updated += 1
        else:
            counts.unchanged += 1
        if status_changed or sorted(old_issues.get(old.pk, [])) != issues:
            # Written again on a move too: each issue row carries its customer's status.
            refresh_issues_of.append(customer_id)
            new_issues[customer_id] = (values["status"], issues)
        if old is not None and old.case_decision and (status_changed or customer_id in new_issues):
            reopened.append(customer_id)
        if status_changed:
            counts.changed_ids.append(customer_id)
            history.append((customer_id, old.status if old else "", values["status"], item.updated_at or now))
            # A customer first seen (a first sync, a seeded mirror) has been in its state at
            # least since the API last changed it: not "0 min" for every row.
            since = min(item.updated_at, now) if old is None and item.updated_at else now
            clock = _clock_after(old, values["status"], since)
        else:
            clock = {"waiting_on_us_seconds": old.waiting_on_us_seconds, "waiting_on_us_since": old.waiting_on_us_since}
        rows.append(
            Customer(
                customer_id=customer_id,
                status_since=since if status_changed else old.status_since,
                synced_at=now,
                missing_upstream=False,
                missing_since=None,
                **clock,
                **values,
            )
        )

    Customer.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["customer_id"],
        update_fields=[
            *_COPIED,
            "status_since",
            "synced_at",
            "missing_upstream",
            "missing_since",
            "waiting_on_us_seconds",
            "waiting_on_us_since",
        ],
        batch_size=500,
    )
    if refresh_issues_of or history:
        pks = dict(
            Customer.objects.filter(customer_id__in=set(refresh_issues_of) | {h[0] for h in history}).values_list(
                "customer_id", "pk"
            )
        )
        if refresh_issues_of:
            VerificationIssue.objects.filter(customer_id__in=[pks[c] for c in refresh_issues_of]).delete()
            VerificationIssue.objects.bulk_create(
                VerificationIssue(
                    customer_id=pks[cid], code=code, message=message, timestamp=timestamp, customer_status=status
                )
                for cid, (status, issues) in new_issues.items()
                for code, message, timestamp in issues
            )
        CustomerStatusChange.objects.bulk_create(
            CustomerStatusChange(customer_id=pks[cid], old_status=old, new_status=new, changed_at=at, seen_by=seen_by)
            for cid, old, new, at in history
        )
    announce_changes(Customer, (row.pk for row in rows if row.customer_id in renamed), seen_by)
    if reopened:
        # The customer moved on since the reviewer's decision: the case needs a person again.
        Customer.objects.filter(customer_id__in=reopened).update(case_decision="", escalation_level=0)
    return counts


def _seen(old: Customer, now) -> Customer:
    """The row as it is, marked as seen by this sync."""
    old.synced_at, old.missing_upstream, old.missing_since = now, False, None
    return old


def customers_mark_missing(*, not_seen_since) -> int:
    """After a complete sync: customers the sync did not see are marked, never deleted."""
    return Customer.objects.filter(missing_upstream=False, synced_at__lt=not_seen_since).update(
        missing_upstream=True, missing_since=timezone.now()
    )
