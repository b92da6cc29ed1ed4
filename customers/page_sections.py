"""Sections that other apps add to the customer page.

The customer page knows nothing of payments: the payments app registers, when it starts, a
function that gives its section of the page (a template and its context) for one customer.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import QuerySet

from core.together import fetch_together

from .models import Customer


@dataclass(frozen=True)
class Section:
    """A template and its context; a context value that is a queryset (ordered and limited)
    is read with the page's other lists and replaced by the list of its rows."""

    template: str
    context: dict = field(default_factory=dict)


_makers: list[Callable[[Customer], Section]] = []


def register(maker: Callable[[Customer], Section]) -> None:
    """Add a section to every customer page (registered once, however often called)."""
    if maker not in _makers:
        _makers.append(maker)


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
