"""One search over the kinds a staff member may see (search.kinds.KINDS)."""

from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db import connection, transaction
from django.urls import reverse

from core.together import rows_together

from .kinds import KINDS, Hit, Kind
from .query import Query

# Rows per kind: in the results page, in the drop-down under the box, and on the page of one
# kind ("see all").
PAGE_LIMIT = 8
DROPDOWN_LIMIT = 4
KIND_LIMIT = 50


@dataclass
class Group:
    kind: Kind
    hits: list[Hit]
    more: bool  # there are more than shown
    more_url: str  # the list (or this page) showing them
    in_list: bool  # more_url is the kind's list page


def kinds_for(user) -> list[Kind]:
    """The kinds whose list page the member may open; the others are neither searched nor shown."""
    return [kind for kind in KINDS if user.has_perm(f"core.{kind.permission}")]


@contextmanager
def index_plans():
    """Every way of the search has an index made for it; on PostgreSQL its statements run with
    sequential scans priced out. Left to itself the planner reads a common prefix ("Customer 1",
    a ninth of the customers by its estimate) by a sequential scan that stops at the LIMIT:
    quick while the matches are spread evenly through the table, a read of the whole table when
    they sit at its end. With the setting the index range is read, whatever the prefix.

    No savepoint of its own: the setting ends with the transaction (at once, outside one; the
    search is the request's last query)."""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(savepoint=False):
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
        yield


def search(user, q: Query, *, limit: int, only: str = "") -> list[Group]:
    if q.too_short:
        return []
    kinds = [kind for kind in kinds_for(user) if not only or kind.key == only]
    if not kinds:
        return []
    # Every way of every kind in one statement.
    planned = [(kind, kind.ways(q, limit + 1)) for kind in kinds]
    with index_plans():
        rows = iter(rows_together(*(way for _, ways in planned for way in ways)))
    groups = []
    for kind, ways in planned:
        hits = kind.hits(q, [next(rows) for _ in ways], limit + 1) if ways else []
        if not hits:
            continue
        own_page = reverse("search") + "?" + urlencode({"q": q.text, "kind": kind.key})
        groups.append(
            Group(
                kind=kind,
                hits=hits[:limit],
                more=len(hits) > limit,
                more_url=kind.list_url(q) if kind.list_url else own_page,
                in_list=kind.list_url is not None,
            )
        )
    return groups


def exact_match(groups: list[Group]) -> Hit | None:
    """The one record whose id is exactly the query, if there is one and only one."""
    exact = [hit for group in groups for hit in group.hits if hit.exact]
    return exact[0] if len(exact) == 1 else None
