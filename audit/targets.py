"""What the audit log calls an event's target: each app names its own kinds of record.

An app registers, for a kind ("user", "customer", "quote"…), the rows that name a page's
targets of that kind (a values() queryset of the ids) and how a row reads ({id: Target(name,
url)}); the page names all its targets, of every kind, in one query (core.together), whatever
their number.

Why a registry: audit sits below every app that records events (the import contracts forbid it
to import customers, payments or staff), so each app fills in its own kinds in AppConfig.ready,
as it does its staff words in core.labels.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from django.db.models import QuerySet

from core.together import rows_together


class Target(NamedTuple):
    name: str
    url: str


class Namer(NamedTuple):
    rows: Callable[[set[str]], QuerySet]  # the values() rows of these ids
    names: Callable[[list[dict], set[str]], dict[str, Target]]  # those rows as {id: Target}


_NAMERS: dict[str, Namer] = {}
# The permission a kind's pages need (codename of core.access): without it the name shows, no link.
_PERMISSIONS: dict[str, str] = {}


def register(kind: str, rows, names, *, permission: str = "") -> None:
    _NAMERS[kind] = Namer(rows, names)
    if permission:
        _PERMISSIONS[kind] = permission


def name_targets(events: Iterable, user) -> None:
    """Set `event.target` (a Target, or None for a kind no app names or a record gone) on each
    event, with one query for every kind of target among them; a link only to pages `user` may
    open."""
    events = list(events)
    ids = defaultdict(set)
    for event in events:
        if event.target_id and event.target_kind in _NAMERS:
            ids[event.target_kind].add(event.target_id)
    kinds = list(ids)
    rows = rows_together(*(_NAMERS[kind].rows(ids[kind]) for kind in kinds))
    names = {kind: _NAMERS[kind].names(kind_rows, ids[kind]) for kind, kind_rows in zip(kinds, rows, strict=True)}
    for kind, named in names.items():
        if kind in _PERMISSIONS and not user.has_perm(f"core.{_PERMISSIONS[kind]}"):
            names[kind] = {i: target._replace(url="") for i, target in named.items()}
    for event in events:
        event.target = names.get(event.target_kind, {}).get(event.target_id)


def int_ids(ids: Iterable[str]) -> list[int]:
    """The ids that are row numbers (a user's or an approval's); others name nothing."""
    return [int(i) for i in ids if i.isdigit()]
