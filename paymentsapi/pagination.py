"""Cursor paging: follow `nextPageToken` until the API says there is no next page.

A resource's `list` returns one `Page`; its `iter` uses `iter_items` to yield every item
across pages.
"""

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .errors import UnexpectedResponse
from .types import Page

T = TypeVar("T")

MAX_PAGE_SIZE = 100


def next_token(body: dict[str, Any]) -> str | None:
    """null, "" and an absent field all mean "last page"."""
    token = body.get("nextPageToken")
    return token if isinstance(token, str) and token else None


def iter_items(fetch_page: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """Yield the items of fetch_page(None), then of each next page, lazily."""
    token: str | None = None
    seen: set[str] = set()
    while True:
        page = fetch_page(token)
        yield from page.items
        token = page.next_page_token
        if not token:
            return
        # A server handing back a token it already gave would otherwise loop for ever.
        if token in seen:
            raise UnexpectedResponse(f"The Payments API repeated the page token {token!r}")
        seen.add(token)
