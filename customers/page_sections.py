"""Sections that other apps add to the customer page.

The customer page knows nothing of payments: the payments app registers, when it starts, a
function that gives its section of the page (a template and its context) for one customer.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from .models import Customer


@dataclass(frozen=True)
class Section:
    template: str
    context: dict = field(default_factory=dict)


_makers: list[Callable[[Customer], Section]] = []


def register(maker: Callable[[Customer], Section]) -> None:
    """Add a section to every customer page (registered once, however often called)."""
    if maker not in _makers:
        _makers.append(maker)


def sections_for(customer: Customer) -> list[Section]:
    return [maker(customer) for maker in _makers]
