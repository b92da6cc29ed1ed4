"""Sections that other apps add to the customer page.

The customer page knows nothing of payments: the payments app registers, when it starts, a
function that gives its section of the page (a template and its context) for one customer,
and the columns its section adds to the page's version (core/live.py), so that the open page
follows a change of what the section shows as it follows the customer's own.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Expression, QuerySet

from .models import Customer


@dataclass(frozen=True)
class Section:
    """A template and its context; a context value that is a queryset (ordered and limited)
    is read with the page's other lists and replaced by the list of its rows. The querysets
    may depend on the customer's key and id, nothing else of it: the page compiles its one
    query once (core.together.CompiledTogether)."""

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


def _pending(sections: list[Section]) -> list[tuple[Section, str]]:
    return [
        (section, key) for section in sections for key, value in section.context.items() if isinstance(value, QuerySet)
    ]


def section_lists(sections: list[Section]) -> list[QuerySet]:
    """Every queryset of the sections' contexts, to be read with the page's own lists."""
    return [section.context[key] for section, key in _pending(sections)]


def fill(sections: list[Section], rows: list[list]) -> None:
    """Give the sections' contexts the rows read for `section_lists(sections)`, in place."""
    for (section, key), found in zip(_pending(sections), rows, strict=True):
        section.context[key] = found
