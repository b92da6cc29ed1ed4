"""Exports of what staff look at: the list's own filtered queryset as CSV, streamed.

One helper for every list (`csv_response`): the view builds the queryset exactly as its page
does (same filters, same access check) and names its columns. On PostgreSQL the rows leave the
database through `COPY (SELECT ...) TO STDOUT` on psycopg 3's `cursor.copy`, the queryset's own
SQL inside, already as CSV text: hundreds of thousands of rows a second, memory flat. Elsewhere
(SQLite, one machine) the rows are read with `iterator(chunk_size=...)` and written by `csv`.

Both ways the cells are the same: times in UTC (ISO 8601), booleans `true`/`false`, JSON as
its text, and a text cell a spreadsheet would run as a formula (starting with = + - @, tab or
carriage return) gets a leading apostrophe.
"""

import csv
import datetime as dt
import json
from dataclasses import dataclass

from django.db import connection, models
from django.db.models import F, Func, QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CHUNK_ROWS = 2000
CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True)
class Column:
    path: str  # an ORM path, as values_list takes it ("customer__name")
    header: str


def formula_safe(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


# --- PostgreSQL: COPY of the queryset's SQL -----------------------------------------------------


class _SafeText(Func):
    """The formula rule in SQL; the column appears twice, so it must carry no parameter."""

    template = (
        "CASE WHEN left(%(expressions)s, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) "
        "THEN '''' || %(expressions)s ELSE %(expressions)s END"
    )
    output_field = models.TextField()


class _AsText(Func):
    template = "(%(expressions)s)::text"
    output_field = models.TextField()


class _UtcIso(Func):
    template = """to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')"""
    output_field = models.TextField()


class _Boolean(Func):
    template = "CASE WHEN %(expressions)s THEN 'true' WHEN NOT %(expressions)s THEN 'false' END"
    output_field = models.TextField()


def _field(model, path: str) -> models.Field:
    *joins, name = path.split("__")
    for step in joins:
        model = model._meta.get_field(step).related_model
    return model._meta.get_field(name)


def _cell_sql(model, column: Column):
    field = _field(model, column.path)
    if isinstance(field, models.DateTimeField):
        return _UtcIso(F(column.path))
    if isinstance(field, models.BooleanField):
        return _Boolean(F(column.path))
    if isinstance(field, models.CharField | models.TextField):
        return _SafeText(F(column.path))
    if isinstance(field, models.JSONField):
        return _SafeText(_AsText(F(column.path)))
    return F(column.path)


def _copy_chunks(queryset: QuerySet, columns: list[Column]):
    cells = {f"export_{i}": _cell_sql(queryset.model, column) for i, column in enumerate(columns)}
    query = queryset.annotate(**cells).values_list(*cells)
    sql, params = query.query.sql_with_params()
    buffer = bytearray()
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)", params) as copy:
        # COPY hands over a row at a time: sent on in blocks, not one write per row.
        for row in copy:
            buffer += row
            if len(buffer) >= CHUNK_BYTES:
                yield bytes(buffer)
                buffer.clear()
    if buffer:
        yield bytes(buffer)


# --- Elsewhere: the ORM's iterator and csv ------------------------------------------------------


class _Echo:
    def write(self, value):
        return value


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat(timespec="microseconds")  # as COPY writes it
    if isinstance(value, dict | list):
        return formula_safe(json.dumps(value))
    if isinstance(value, str):
        return formula_safe(value)
    return str(value)


def _iterated_lines(queryset: QuerySet, columns: list[Column]):
    writer = csv.writer(_Echo(), lineterminator="\n")
    rows = queryset.values_list(*[c.path for c in columns]).iterator(chunk_size=CHUNK_ROWS)
    batch = []
    for row in rows:
        batch.append(writer.writerow([_cell_text(value) for value in row]))
        if len(batch) == CHUNK_ROWS:
            yield "".join(batch).encode()
            batch = []
    if batch:
        yield "".join(batch).encode()


def csv_lines(queryset: QuerySet, columns: list[Column], zone=None):
    """The header, then the rows of `queryset` (in its order) as CSV bytes, chunk by chunk.

    The rows are read while the response streams, after the view (and the middleware that
    set the staff member's time zone) returned: `zone` keeps the filters' dates in the zone
    the page used. The cells themselves are UTC.
    """
    yield csv.writer(_Echo(), lineterminator="\n").writerow([c.header for c in columns]).encode()
    with timezone.override(zone or timezone.get_current_timezone()):
        if connection.vendor == "postgresql":
            yield from _copy_chunks(queryset, columns)
        else:
            yield from _iterated_lines(queryset, columns)


def csv_response(queryset: QuerySet, columns: list[Column], name: str) -> StreamingHttpResponse:
    """`queryset` as a streamed CSV download named `<name>-<UTC time>.csv`."""
    lines = csv_lines(queryset, columns, timezone.get_current_timezone())
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.csv"'
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy passes the chunks on as they come
    return response
