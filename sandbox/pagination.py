"""Pages of every list of the sandbox (customers, payment accounts, webhook endpoints, deliveries).

A page is read by keyset, never OFFSET: rows in (time, id) order, after the last row of the
previous page. The page token is opaque to the client: base64url of "<ISO time>|<id>" of that
last row. `keyset_page` answers a page and the next token; the lists' queries read pageToken
and pageSize with serializers.pages.PageQuery.
"""

import base64
import binascii
import datetime as dt
from typing import NamedTuple

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Model, Q, QuerySet

from .errors import detail, validation_error

UNKNOWN_PAGE = "Invalid page token: pass nextPageToken of the previous page."


class PageToken(NamedTuple):
    """Where the previous page ended: the time and id of its last row."""

    at: dt.datetime
    row_id: str


def encode_page_token(at: dt.datetime, row_id) -> str:
    raw = f"{at.isoformat()}|{row_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str) -> PageToken:
    """ValueError when `token` is no page token."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ValueError(UNKNOWN_PAGE) from exc
    at, _, row_id = raw.partition("|")
    if not row_id:
        raise ValueError(UNKNOWN_PAGE)
    return PageToken(dt.datetime.fromisoformat(at), row_id)


def keyset_page(
    rows: QuerySet, *, order: str, token: PageToken | None, size: int, newest_first: bool = False
) -> tuple[list, str | None]:
    """One page of `rows` in (`order`, pk) order, oldest first unless `newest_first`, after the
    row `token` names: (the rows, nextPageToken or None on the last page)."""
    if token:
        at, last = token.at, _row_pk(rows.model, token.row_id)
        # The plain bound lets PostgreSQL seek the index; the OR alone would make it scan from the start.
        if newest_first:
            rows = rows.filter(**{f"{order}__lte": at}).filter(
                Q(**{f"{order}__lt": at}) | Q(**{order: at, "pk__lt": last})
            )
        else:
            rows = rows.filter(**{f"{order}__gte": at}).filter(
                Q(**{f"{order}__gt": at}) | Q(**{order: at, "pk__gt": last})
            )
    ordering = (f"-{order}", "-pk") if newest_first else (order, "pk")
    # One row more than the page: it only tells that another page exists.
    page = list(rows.order_by(*ordering)[: size + 1])
    if len(page) <= size:
        return page, None
    last_row = page[size - 1]
    return page[:size], encode_page_token(getattr(last_row, order), last_row.pk)


def _row_pk(model: type[Model], row_id: str):
    """The id of a token as the model's primary key (a UUID or an integer)."""
    try:
        return model._meta.pk.to_python(row_id)
    except DjangoValidationError:
        raise validation_error([detail(["pageToken"], UNKNOWN_PAGE, "query")]) from None
