"""What the audit log calls an event's target: each app names its own kinds of record.

An app registers, for a kind ("user", "customer", "quote"…), a function that takes the ids of a
page's events of that kind and answers {id: Target(name, url)} in one query; the page names
all its targets in one query per kind, whatever their number.

Why a registry: audit sits below every app that records events (the import contracts forbid it
to import customers, payments or staff), so each app fills in its own kinds in AppConfig.ready,
as it does its staff words in core.labels.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Target(NamedTuple):
    name: str
    url: str


Namer = Callable[[set[str]], dict[str, Target]]
_NAMERS: dict[str, Namer] = {}
# The permission a kind's pages need (codename of core.roles): without it the name shows, no link.
_PERMISSIONS: dict[str, str] = {}


def register(kind: str, namer: Namer, *, permission: str = "") -> None:
    _NAMERS[kind] = namer
    if permission:
        _PERMISSIONS[kind] = permission


def name_targets(events: Iterable, user) -> None:
    """Set `event.target` (a Target, or None for a kind no app names or a record gone) on each
    event, with one query per kind of target among them; a link only to pages `user` may open."""
    events = list(events)
    ids = defaultdict(set)
    for event in events:
        if event.target_id and event.target_kind in _NAMERS:
            ids[event.target_kind].add(event.target_id)
    names = {kind: _NAMERS[kind](kind_ids) for kind, kind_ids in ids.items()}
    for kind, named in names.items():
        if kind in _PERMISSIONS and not user.has_perm(f"core.{_PERMISSIONS[kind]}"):
            names[kind] = {i: target._replace(url="") for i, target in named.items()}
    for event in events:
        event.target = names.get(event.target_kind, {}).get(event.target_id)


def int_ids(ids: Iterable[str]) -> list[int]:
    """The ids that are row numbers (a user's or an approval's); others name nothing."""
    return [int(i) for i in ids if i.isdigit()]
