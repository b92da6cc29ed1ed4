"""Several short lists of a page in one query.

A detail page shows a handful of short lists from different tables (the newest 20 of
this, 50 of that). `fetch_together` reads them with one UNION ALL: each part selects its
rows by primary key from the list's own ordered, limited queryset (a subquery the part's
index serves), with every column packed into one JSON object; the rows come back as model
instances in each list's order. Decimals travel as text, so money stays exact.
"""

import datetime as dt
import json

from django.db import models
from django.db.models import CharField, Value
from django.db.models.functions import Cast, JSONObject
from django.utils import timezone


def _packed(field: models.Field):
    if isinstance(field, models.DecimalField):
        return Cast(field.attname, CharField())
    return models.F(field.attname)


def _instance(model, row: dict):
    values = {}
    for field in model._meta.concrete_fields:
        value = row.get(field.attname)
        if isinstance(field, models.JSONField):
            # SQLite packs a JSON column as its text; PostgreSQL nests it.
            value = json.loads(value) if isinstance(value, str) else value
        elif value is not None:
            value = field.to_python(value)
            if isinstance(field, models.DateTimeField) and timezone.is_naive(value):
                value = timezone.make_aware(value, dt.UTC)  # SQLite keeps UTC without an offset
        values[field.attname] = value
    instance = model(**values)
    instance._state.adding = False
    instance._state.db = "default"
    return instance


def _ordering(queryset) -> list[str]:
    return list(queryset.query.order_by or queryset.model._meta.ordering or ["pk"])


def _sort(rows: list, ordering: list[str]) -> list:
    for name in reversed(ordering):
        attr = name.lstrip("-")
        attr = "pk" if attr == "id" else attr
        rows.sort(key=lambda r, a=attr: (getattr(r, a) is not None, getattr(r, a)), reverse=name.startswith("-"))
    return rows


def fetch_together(*querysets) -> list[list]:
    """The rows of each ordered, sliced queryset, as lists of instances, in one query."""
    parts = []
    for index, queryset in enumerate(querysets):
        model = queryset.model
        row = JSONObject(**{field.attname: _packed(field) for field in model._meta.concrete_fields})
        parts.append(
            model._default_manager.filter(pk__in=queryset.values("pk"))
            .order_by()
            .annotate(part=Value(index), row=row)
            .values_list("part", "row")
        )
    combined = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    found: list[list] = [[] for _ in querysets]
    for index, row in combined:
        row = json.loads(row) if isinstance(row, str) else row
        found[index].append(_instance(querysets[index].model, row))
    return [_sort(rows, _ordering(qs)) for rows, qs in zip(found, querysets, strict=True)]
