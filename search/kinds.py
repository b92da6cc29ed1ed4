"""The kinds of record the search box finds, each with the permission its list page asks for
and the ways staff type it. A new kind of record joins the search here, in KINDS: its
finder, the permission of its list, and (when the list can be filtered to the same matches)
the list's address.

Every way is one bounded query on an index made for it (see docs/architecture.md, "Search"):
prefixes of ids by the `_like` (varchar_pattern_ops) indexes PostgreSQL gets for unique text
columns, names and e-mails by the `UPPER(...) text_pattern_ops` ones, words inside a name by
a trigram index, the end of an account number and a wallet address by expression indexes
(payments/0008). None sorts: a LIMIT on an index range stops at the first rows, whatever the
prefix; the few rows found are put in order here.
"""

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Q
from django.db.models.expressions import RawSQL
from django.urls import reverse
from django.utils import timezone

from core import labels
from customers.models import Customer
from payments.models import AutomationRule, PaymentAccount, Quote, Transaction
from payments.templatetags.tx_display import amount

from .query import Query

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
WORD_MIN = 3
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
    find: Callable[[Query, int], list[Hit]]
    # The list page showing the same matches, when it has such a filter; else the search
    # page itself lists more of this kind.
    list_url: Callable[[Query], str] | None = None


def _joined(*parts) -> str:
    return " · ".join(str(part) for part in parts if part)


def _first(ways, limit: int) -> list:
    """The rows of the ways (sliced querysets of one model), the first way's first, without
    repeats, at most `limit`. Where the database runs a UNION of LIMITed selects (PostgreSQL)
    they are one statement; elsewhere one each, in turn, until `limit` rows are found."""
    if len(ways) > 1 and connection.features.supports_slicing_ordering_in_compound:
        ways = [ways[0].union(*ways[1:], all=True)]
    seen, rows = set(), []
    for way in ways:
        if len(rows) >= limit:
            break
        for row in way:
            if row.pk not in seen:
                seen.add(row.pk)
                rows.append(row)
    return rows[:limit]


# --- Customers ---------------------------------------------------------------------------


def find_customers(q: Query, limit: int) -> list[Hit]:
    base = Customer.objects.only("customer_id", "name", "email", "status", "customer_type")
    ways = []
    if q.id_like:
        ways.append(base.filter(customer_id__startswith=q.text)[:limit])
    if not q.has_at:
        ways.append(base.filter(name__istartswith=q.text)[:limit])
    ways.append(base.filter(email__istartswith=q.text)[:limit])
    rows = _first(ways, limit)
    if not rows and len(q.text) >= WORD_MIN and not q.has_at:
        rows = list(base.filter(name__icontains=q.text)[:limit])
    return [
        Hit(
            title=row.name or row.customer_id,
            detail=_joined(row.email, labels.label(labels.CUSTOMER_TYPE, row.customer_type)),
            status=labels.label(labels.STATUS, row.status),
            code=row.status,
            url=reverse("customers-view-customer", args=[row.customer_id]),
            exact=row.customer_id == q.text,
        )
        for row in rows
    ]


def customers_list_url(q: Query) -> str:
    return reverse("customers-list-customers") + "?" + urlencode({"view": "all", "q": q.text})


# --- Payments ------------------------------------------------------------------------------


def _money(value, currency: str) -> str:
    return f"{amount(value)} {currency}".strip() if value is not None else currency


def _customer_name(customer) -> str:
    return (customer.name or customer.customer_id) if customer else ""


def find_transactions(q: Query, limit: int) -> list[Hit]:
    if not q.id_like:
        return []
    rows = (
        Transaction.objects.select_related("customer")
        .only(
            "transaction_id",
            "status",
            "source_amount",
            "source_currency",
            "destination_amount",
            "destination_currency",
            "customer__name",
            "customer__customer_id",
        )
        .filter(transaction_id__startswith=q.text)[:limit]
    )
    return [
        Hit(
            title=row.transaction_id,
            detail=_joined(
                f"{_money(row.source_amount, row.source_currency)} → "
                f"{_money(row.destination_amount, row.destination_currency)}",
                _customer_name(row.customer),
            ),
            status=labels.label(labels.STATUS, row.status),
            code=row.status,
            url=reverse("payments-view-transaction", args=[row.transaction_id]),
            exact=row.transaction_id == q.text,
        )
        for row in rows
    ]


def find_quotes(q: Query, limit: int) -> list[Hit]:
    """Quotes made here by their id or its start; a quote made elsewhere by the exact id its
    transaction carries (its page shows the terms from the transaction)."""
    if not q.id_like:
        return []
    rows = list(
        Quote.objects.select_related("customer")
        .only(
            "quote_id",
            "source_amount",
            "destination_amount",
            "request",
            "expires_at",
            "customer__name",
            "customer__customer_id",
        )
        .annotate(used=Exists(Transaction.objects.filter(quote_id=OuterRef("quote_id"))))
        .filter(quote_id__startswith=q.text)[:limit]
    )
    now = timezone.now()
    hits = [
        Hit(
            title=row.quote_id,
            detail=_joined(_quote_terms(row), _customer_name(row.customer)),
            status="Used" if row.used else ("Expired" if row.expires_at <= now else "Open"),
            code="COMPLETED" if row.used else ("EXPIRED" if row.expires_at <= now else "PENDING"),
            url=reverse("payments-view-quote", args=[row.quote_id]),
            exact=row.quote_id == q.text,
        )
        for row in rows
    ]
    if len(q.text) >= FULL_ID and not any(hit.exact for hit in hits):
        used = Transaction.objects.only("transaction_id", "quote_id").filter(quote_id=q.text).first()
        if used:
            hits.insert(
                0,
                Hit(
                    title=used.quote_id,
                    detail=f"Made outside the back-office · used by transaction {used.transaction_id}",
                    status="Used",
                    code="COMPLETED",
                    url=reverse("payments-view-quote", args=[used.quote_id]),
                    exact=True,
                ),
            )
    return hits[:limit]


def _quote_terms(quote: Quote) -> str:
    request = quote.request if isinstance(quote.request, dict) else {}
    source = (request.get("source") or {}).get("currency", "")
    destination = (request.get("destination") or {}).get("currency", "")
    return f"{_money(quote.source_amount, source)} → {_money(quote.destination_amount, destination)}"


def find_rules(q: Query, limit: int) -> list[Hit]:
    matches = Q(name__istartswith=q.text)
    if q.id_like:
        matches |= Q(rule_id__startswith=q.text)
    rows = (
        AutomationRule.objects.select_related("customer")
        .only("rule_id", "name", "missing_upstream", "customer__name", "customer__customer_id")
        .filter(matches)[:limit]
    )
    return [
        Hit(
            title=row.name or row.rule_id,
            detail=_joined(row.rule_id, _customer_name(row.customer)),
            status="Gone from the Payments API" if row.missing_upstream else "In force",
            code="DEACTIVATED" if row.missing_upstream else "ACTIVE",
            url=reverse("payments-view-automation-rule", args=[row.pk]),
            exact=row.rule_id == q.text,
        )
        for row in rows
    ]


def _like(sql: str, prefix: str) -> RawSQL:
    # `sql` is one of the constants above, `prefix` a parameter of letters and digits only
    # (Query.alnum): nothing to escape in a LIKE.
    return RawSQL(f"{sql} LIKE %s", [prefix + "%"], output_field=BooleanField())  # noqa: S611


def find_accounts(q: Query, limit: int) -> list[Hit]:
    base = PaymentAccount.objects.select_related("customer").only(
        "account_id",
        "account_type",
        "status",
        "nickname",
        "details",
        "customer__name",
        "customer__customer_id",
    )
    ways = []
    if q.id_like:
        ways.append(base.filter(account_id__startswith=q.text)[:limit])
    if q.tail:
        ways.append(base.filter(_like(ACCOUNT_TAIL_SQL, q.tail[::-1]))[:limit])
    if q.id_like and len(q.alnum) >= 4 and not q.alnum.isdigit():
        ways.append(base.filter(_like(ACCOUNT_ADDRESS_SQL, q.alnum))[:limit])
    return [
        Hit(
            title=row.display_name,
            detail=_joined(row.account_id or "pending", _customer_name(row.customer)),
            status=labels.label(labels.STATUS, row.status),
            code=row.status,
            url=reverse("payments-view-payment-account", args=[row.pk]),
            exact=bool(row.account_id) and row.account_id == q.text,
        )
        for row in _first(ways, limit)
    ]


# --- Staff ---------------------------------------------------------------------------------


def find_staff(q: Query, limit: int) -> list[Hit]:
    first, _, rest = q.text.partition(" ")
    matches = Q(username__istartswith=q.text) | Q(last_name__istartswith=q.text) | Q(email__istartswith=q.text)
    matches |= (
        Q(first_name__istartswith=first, last_name__istartswith=rest) if rest else Q(first_name__istartswith=q.text)
    )
    rows = (
        get_user_model()
        .objects.filter(matches)
        .prefetch_related("groups")
        .only("username", "first_name", "last_name", "is_active")
        .order_by("username")[:limit]
    )
    return [
        Hit(
            title=row.username + (f" ({row.get_full_name()})" if row.get_full_name() else ""),
            detail=", ".join(labels.label(labels.ROLE, g.name) for g in row.groups.all()) or "No role",
            status="Active" if row.is_active else "Deactivated",
            code="ACTIVE" if row.is_active else "DEACTIVATED",
            url=reverse("staff-view-staff", args=[row.pk]),
        )
        for row in rows
    ]


KINDS = [
    Kind("customers", "Customers", "view_customers", find_customers, customers_list_url),
    Kind("transactions", "Transactions", "view_payments", find_transactions),
    Kind("quotes", "Quotes", "view_payments", find_quotes),
    Kind("accounts", "Payment accounts", "view_payments", find_accounts),
    Kind("rules", "Automation rules", "view_payments", find_rules),
    Kind("staff", "Staff", "manage_staff", find_staff),
]
