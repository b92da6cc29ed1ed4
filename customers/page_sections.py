"""Sections that other apps add to the customer page.

The customer page knows nothing of payments: the payments app registers, when it starts, a
function that gives its section of the page (a template and its context) for one customer,
and the columns its section adds to the page's version (core/live.py), so that the open page
follows a change of what the section shows as it follows the customer's own.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Expression, QuerySet

from core.together import fetch_together

from .models import Customer


@dataclass(frozen=True)
class Section:
    """A template and its context; a context value that is a queryset (ordered and limited)
    is read with the page's other lists and replaced by the list of its rows."""

    template: str
    context: dict = field(default_factory=dict)


_makers: list[Callable[[Customer], Section]] = []
_versions: list[Callable[[], dict[str, Expression]]] = []


def register(maker: Callable[[Customer], Section], version: Callable[[], dict[str, Expression]] | None = None) -> None:
    """Add a section to every customer page (registered once, however often called).

    `version()` gives the columns the section adds to the page's version query, as
    expressions on the customer's row (subqueries on OuterRef("pk")), named uniquely: when
    one of their values moves, the open page gets the section anew."""
    if maker not in _makers:
        _makers.append(maker)
    if version is not None and version not in _versions:
        _versions.append(version)


def version_columns() -> dict[str, Expression]:
    return {name: column for version in _versions for name, column in version().items()}


def sections_for(customer: Customer) -> list[Section]:
    return [maker(customer) for maker in _makers]


def read_lists(sections: list[Section], *own: QuerySet) -> list[list]:
    """The page's own lists and every queryset of the sections' contexts, in one query; the
    sections' contexts get their rows in place, the page's lists are returned in order."""
    pending = [
        (section, key) for section in sections for key, value in section.context.items() if isinstance(value, QuerySet)
    ]
    rows = fetch_together(*own, *(section.context[key] for section, key in pending))
    for (section, key), found in zip(pending, rows[len(own) :], strict=True):
        section.context[key] = found
    return rows[: len(own)]
