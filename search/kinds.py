"""The kinds of record the search box finds, each with the permission its list page asks for
and the ways staff type it. A new kind of record joins the search here, in KINDS: its
finder, the permission of its list, and (when the list can be filtered to the same matches)
the list's address.

Every way is one bounded select on an index made for it (see docs/architecture.md, "Search"):
prefixes of ids by the `_like` (varchar_pattern_ops) indexes PostgreSQL gets for unique text
columns, names and e-mails by the `UPPER(...) text_pattern_ops` ones, words inside a name by
a trigram index, the end of an account number and a wallet address by expression indexes
(payments/0008). None sorts: a LIMIT on an index range stops at the first rows, whatever the
prefix; the few rows found are put in order here. A kind's ways are values() querysets, and
the ways of every kind the member may see run as one statement (search.results,
core.together.rows_together); each kind then reads its rows into hits.
"""

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Concat
from django.urls import reverse
from django.utils import timezone

from core import labels
from customers.models import Customer
from payments.models import AutomationRule, PaymentAccount, Quote, Transaction
from payments.templatetags.tx_display import amount

from .query import TRIGRAM, Query

# The end of an account's number (the mask "****6789") or of its wallet address, reversed and
# lower-cased: its start is what staff typed last. The same text builds the index
# (payments/migrations/0010_search_indexes.py), so that PostgreSQL matches the two.
ACCOUNT_TAIL_SQL = (
    "reverse(lower(coalesce(\"details\" ->> 'bankAccountMask', \"details\" -> 'address' ->> 'address', '')))"
)
ACCOUNT_ADDRESS_SQL = "lower(\"details\" -> 'address' ->> 'address')"
# Words inside a name ("Lovelace" in "Ada Lovelace") are looked for only when no name, e-mail
# or id starts with what was typed, and only from this many letters (a trigram index, whose
# cost grows with how common the typed letters' trigrams are: a last resort, not a first way).
WORD_MIN = TRIGRAM
WORD_CANDIDATES = 2000
# A quote made outside the back-office is found by its whole id only (this long at least: a
# UUID has 36 characters), from the transaction that used it.
FULL_ID = 20


@dataclass(frozen=True)
class Hit:
    title: str
    detail: str
    status: str  # in staff words
    code: str  # the code behind the status (its title, its badge's colour); "" when none
    url: str
    exact: bool = False  # the query is this record's id: the search goes straight to it


@dataclass(frozen=True)
class Kind:
    key: str
    title: str
    permission: str  # the one the kind's list page asks for (core.access.role_required)
    # The bounded selects (values() querysets) of what was typed, at most `limit` rows each.
    ways: Callable[[Query, int], list[QuerySet]]
    # Their rows (a list per way, in the same order) as hits, at most `limit`.
    hits: Callable[[Query, list[list[dict]], int], list[Hit]]
    # The list page showing the same matches, when it has such a filter; else the search
    # page itself lists more of this kind.
    list_url: Callable[[Query], str] | None = None


def _joined(*parts) -> str:
    return " · ".join(str(part) for part in parts if part)


def _first(found: list[list[dict]], limit: int, key: str = "pk") -> list[dict]:
    """The rows of the ways, the first way's first, without repeats, at most `limit`."""
    seen, rows = set(), []
    for way in found:
        for row in way:
            if row[key] not in seen:
                seen.add(row[key])
                rows.append(row)
    return rows[:limit]


def _customer_name(row: dict) -> str:
    """The name of the row's customer (`customer__name`, `customer__customer_id`); "" when none."""
    return (row["customer__name"] or row["customer__customer_id"]) if row["customer__customer_id"] else ""


CUSTOMER_OF = ("customer__name", "customer__customer_id")


# --- Customers ---------------------------------------------------------------------------


def customer_ways(q: Query, limit: int) -> list[QuerySet]:
    base = Customer.objects.values("pk", "customer_id", "name", "email", "status", "customer_type")
    ways = []
    if q.id_like:
        ways.append(base.filter(customer_id__startswith=q.text))
    if not q.has_at:
        ways.append(base.filter(name__istartswith=q.text))
    ways.append(base.filter(email__istartswith=q.text))
    bounded = [way[:limit] for way in ways]
    if len(q.text) >= WORD_MIN and not q.has_at:
        # Words inside a name, only when nothing starts with what was typed: each NOT EXISTS is
        # one of the ways above (an index range, one row read), decided before the trigram scan.
        nothing_starts = [~Exists(way.values("pk")) for way in ways]
        # The names holding the rarest word, by the trigram index when few names hold it, else
        # by the primary key (a common word is dense: its first names come early); the planner
        # picks by its estimate. With more words, the whole text is checked on the first
        # WORD_CANDIDATES of them only: at most that many rows are read, as the review queue's
        # search stops at its candidates.
        inside = base.filter(*nothing_starts, name__icontains=q.rarest_word).order_by("pk")
        if q.rarest_word != q.text:
            candidates = inside.values("pk")[:WORD_CANDIDATES]
            inside = base.filter(_one_of(candidates)).alias(whole=Concat("name", Value("")))
            inside = inside.filter(whole__icontains=q.text)
        bounded.append(inside[:limit])
    return bounded


class _KeyAmong(Func):
    """key = ANY(ARRAY(subquery)): the subquery's "(SELECT ...)" completes the ARRAY."""

    arg_joiner = " = ANY(ARRAY"
    template = "%(expressions)s)"
    output_field = BooleanField()


def _one_of(rows: QuerySet):
    """The rows whose key is one of `rows`' keys, looked up one by one by key. On PostgreSQL as
    `= ANY(ARRAY(...))`, a condition of the key's index: an IN would let the planner walk the
    whole key to meet them (a merge or hash join)."""
    if connection.vendor == "postgresql":
        return _KeyAmong(F("pk"), Subquery(rows))
    return Q(pk__in=rows)


def customer_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    return [
        Hit(
            title=row["name"] or row["customer_id"],
            detail=_joined(row["email"], labels.label(labels.CUSTOMER_TYPE, row["customer_type"])),
            status=labels.label(labels.STATUS, row["status"]),
            code=row["status"],
            url=reverse("customers-view-customer", args=[row["customer_id"]]),
            exact=row["customer_id"] == q.text,
        )
        for row in _first(found, limit)
    ]


def customers_list_url(q: Query) -> str:
    return reverse("customers-list-customers") + "?" + urlencode({"view": "all", "q": q.text})


# --- Payments ------------------------------------------------------------------------------


def _money(value, currency: str) -> str:
    return f"{amount(value)} {currency}".strip() if value is not None else currency


def transaction_ways(q: Query, limit: int) -> list[QuerySet]:
    if not q.id_like:
        return []
    rows = Transaction.objects.values(
        "pk",
        "transaction_id",
        "status",
        "source_amount",
        "source_currency",
        "destination_amount",
        "destination_currency",
        *CUSTOMER_OF,
    )
    return [rows.filter(transaction_id__startswith=q.text)[:limit]]


def transaction_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    return [
        Hit(
            title=row["transaction_id"],
            detail=_joined(
                f"{_money(row['source_amount'], row['source_currency'])} → "
                f"{_money(row['destination_amount'], row['destination_currency'])}",
                _customer_name(row),
            ),
            status=labels.label(labels.STATUS, row["status"]),
            code=row["status"],
            url=reverse("payments-view-transaction", args=[row["transaction_id"]]),
            exact=row["transaction_id"] == q.text,
        )
        for row in _first(found, limit)
    ]


def quote_ways(q: Query, limit: int) -> list[QuerySet]:
    """Quotes made here by their id or its start; a quote made elsewhere by the exact id its
    transaction carries (its page shows the terms from the transaction)."""
    if not q.id_like:
        return []
    ways = [
        Quote.objects.filter(quote_id__startswith=q.text).values(
            "pk",
            "quote_id",
            "source_amount",
            "destination_amount",
            "request",
            *CUSTOMER_OF,
            used=Exists(Transaction.objects.filter(quote_id=OuterRef("quote_id"))),
            expired=ExpressionWrapper(Q(expires_at__lte=timezone.now()), output_field=BooleanField()),
        )[:limit]
    ]
    if len(q.text) >= FULL_ID:
        ways.append(Transaction.objects.filter(quote_id=q.text).values("transaction_id", "quote_id")[:1])
    return ways


def quote_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    hits = [
        Hit(
            title=row["quote_id"],
            detail=_joined(_quote_terms(row), _customer_name(row)),
            status="Used" if row["used"] else ("Expired" if row["expired"] else "Open"),
            code="COMPLETED" if row["used"] else ("EXPIRED" if row["expired"] else "PENDING"),
            url=reverse("payments-view-quote", args=[row["quote_id"]]),
            exact=row["quote_id"] == q.text,
        )
        for row in found[0]
    ]
    used = found[1][0] if len(found) > 1 and found[1] else None
    if used and not any(hit.exact for hit in hits):
        hits.insert(
            0,
            Hit(
                title=used["quote_id"],
                detail=f"Made outside the back-office · used by transaction {used['transaction_id']}",
                status="Used",
                code="COMPLETED",
                url=reverse("payments-view-quote", args=[used["quote_id"]]),
                exact=True,
            ),
        )
    return hits[:limit]


def _quote_terms(row: dict) -> str:
    request = row["request"] if isinstance(row["request"], dict) else {}
    source = (request.get("source") or {}).get("currency", "")
    destination = (request.get("destination") or {}).get("currency", "")
    return f"{_money(row['source_amount'], source)} → {_money(row['destination_amount'], destination)}"


def rule_ways(q: Query, limit: int) -> list[QuerySet]:
    matches = Q(name__istartswith=q.text)
    if q.id_like:
        matches |= Q(rule_id__startswith=q.text)
    return [
        AutomationRule.objects.filter(matches).values("pk", "rule_id", "name", "missing_upstream", *CUSTOMER_OF)[:limit]
    ]


def rule_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    return [
        Hit(
            title=row["name"] or row["rule_id"],
            detail=_joined(row["rule_id"], _customer_name(row)),
            status="Gone from the Payments API" if row["missing_upstream"] else "In force",
            code="DEACTIVATED" if row["missing_upstream"] else "ACTIVE",
            url=reverse("payments-view-automation-rule", args=[row["pk"]]),
            exact=row["rule_id"] == q.text,
        )
        for row in _first(found, limit)
    ]


def _like(sql: str, prefix: str) -> RawSQL:
    # `sql` is one of the constants above, `prefix` a parameter of letters and digits only
    # (Query.alnum): nothing to escape in a LIKE.
    return RawSQL(f"{sql} LIKE %s", [prefix + "%"], output_field=BooleanField())  # noqa: S611


ACCOUNT_FIELDS = ("account_id", "account_type", "status", "nickname", "details")


def account_ways(q: Query, limit: int) -> list[QuerySet]:
    base = PaymentAccount.objects.values("pk", *ACCOUNT_FIELDS, *CUSTOMER_OF)
    ways = []
    if q.id_like:
        ways.append(base.filter(account_id__startswith=q.text)[:limit])
    if q.tail:
        ways.append(base.filter(_like(ACCOUNT_TAIL_SQL, q.tail[::-1]))[:limit])
    if q.id_like and len(q.alnum) >= 4 and not q.alnum.isdigit():
        ways.append(base.filter(_like(ACCOUNT_ADDRESS_SQL, q.alnum))[:limit])
    return ways


def account_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    hits = []
    for row in _first(found, limit):
        account = PaymentAccount(id=row["pk"], **{name: row[name] for name in ACCOUNT_FIELDS})
        hits.append(
            Hit(
                title=account.display_name,
                detail=_joined(row["account_id"] or "pending", _customer_name(row)),
                status=labels.label(labels.STATUS, row["status"]),
                code=row["status"],
                url=reverse("payments-view-payment-account", args=[row["pk"]]),
                exact=bool(row["account_id"]) and row["account_id"] == q.text,
            )
        )
    return hits


# --- Staff ---------------------------------------------------------------------------------


def staff_ways(q: Query, limit: int) -> list[QuerySet]:
    """The members found, and the roles of those members (a second select of the same statement)."""
    first, _, rest = q.text.partition(" ")
    matches = Q(username__istartswith=q.text) | Q(last_name__istartswith=q.text) | Q(email__istartswith=q.text)
    matches |= (
        Q(first_name__istartswith=first, last_name__istartswith=rest) if rest else Q(first_name__istartswith=q.text)
    )
    members = get_user_model().objects.filter(matches).order_by("username")[:limit]
    roles = get_user_model().groups.through.objects.filter(user__in=members.values("pk"))
    return [
        members.values("pk", "username", "first_name", "last_name", "is_active"),
        roles.order_by("group__name").values("user_id", "group__name"),
    ]


def staff_hits(q: Query, found: list[list[dict]], limit: int) -> list[Hit]:
    members, roles = found
    held: dict[int, list[str]] = {}
    for role in roles:
        held.setdefault(role["user_id"], []).append(labels.label(labels.ROLE, role["group__name"]))
    hits = []
    for row in members[:limit]:
        full_name = f"{row['first_name']} {row['last_name']}".strip()
        hits.append(
            Hit(
                title=row["username"] + (f" ({full_name})" if full_name else ""),
                detail=", ".join(held.get(row["pk"], [])) or "No role",
                status="Active" if row["is_active"] else "Deactivated",
                code="ACTIVE" if row["is_active"] else "DEACTIVATED",
                url=reverse("staff-view-staff", args=[row["pk"]]),
            )
        )
    return hits


KINDS = [
    Kind("customers", "Customers", "view_customers", customer_ways, customer_hits, customers_list_url),
    Kind("transactions", "Transactions", "view_payments", transaction_ways, transaction_hits),
    Kind("quotes", "Quotes", "view_payments", quote_ways, quote_hits),
    Kind("accounts", "Payment accounts", "view_payments", account_ways, account_hits),
    Kind("rules", "Automation rules", "view_payments", rule_ways, rule_hits),
    Kind("staff", "Staff", "manage_staff", staff_ways, staff_hits),
]
