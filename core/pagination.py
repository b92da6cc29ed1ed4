"""Keyset pagination: pages as deep as you like at the cost of the first.

The cursor carries the sort key of the last row shown; the next page is the rows after it
in the index order. No OFFSET, no COUNT.
"""

import base64
import binascii
import json
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet


@dataclass
class KeysetPage:
    items: list
    next_cursor: str | None
    is_first: bool


def _encode(values: list) -> str:
    raw = json.dumps(values, separators=(",", ":"), default=str).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, fields: list) -> list | None:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        values = json.loads(raw)
        if not isinstance(values, list) or len(values) != len(fields):
            return None
        return [field.to_python(value) for field, value in zip(fields, values, strict=True)]
    except (ValueError, binascii.Error, ValidationError, TypeError):
        return None


def _after(names: list[str], descending: list[bool], values: list) -> Q:
    """Rows strictly after `values` in the order (a, b, ...): a>x OR (a=x AND b>y) ...

    The extra plain bound a>=x says the same, but lets the database seek the index to the
    cursor; with the OR alone PostgreSQL scans the index from its start.
    """
    clauses = []
    for i, name in enumerate(names):
        equal = {names[j]: values[j] for j in range(i)}
        lookup = "lt" if descending[i] else "gt"
        clauses.append(Q(**equal, **{f"{name}__{lookup}": values[i]}))
    bound = Q(**{f"{names[0]}__{'lte' if descending[0] else 'gte'}": values[0]})
    return bound & reduce(or_, clauses)


def paginate_keyset(queryset: QuerySet, *, ordering: tuple[str, ...], cursor: str | None, size: int) -> KeysetPage:
    """One page of `queryset` in `ordering`, which must end in a unique field (the pk).

    A cursor that does not decode starts again from the first page.
    """
    names = [o.lstrip("-") for o in ordering]
    descending = [o.startswith("-") for o in ordering]
    model_fields = [queryset.model._meta.get_field(name) for name in names]
    values = _decode(cursor, model_fields) if cursor else None
    qs = queryset.order_by(*ordering)
    if values is not None:
        qs = qs.filter(_after(names, descending, values))
    rows = list(qs[: size + 1])
    next_cursor = None
    if len(rows) > size:
        rows = rows[:size]
        last = rows[-1]
        next_cursor = _encode([field.value_from_object(last) for field in model_fields])
    return KeysetPage(items=rows, next_cursor=next_cursor, is_first=values is None)
