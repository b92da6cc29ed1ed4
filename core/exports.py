"""Exports of what staff look at: the list's own filtered queryset as CSV, streamed.

One helper for every list (`csv_response`): the view builds the queryset exactly as its page
does (same filters, same access check) and names its columns. On PostgreSQL the rows leave the
database through `COPY (SELECT ...) TO STDOUT` on psycopg 3's `cursor.copy`, the queryset's own
SQL inside, already as CSV text: hundreds of thousands of rows a second, memory flat. Elsewhere
(SQLite, one machine) the rows are read with `iterator(chunk_size=...)` and written by `csv`.

A view whose filters are refused answers `refused_filters` (400, the list's own message)
instead of a download. Once the download has begun its status is sent: an error midway ends
the file with INCOMPLETE_LINE rather than a cut connection.

Both ways the cells are the same: times in UTC (ISO 8601), booleans `true`/`false`, JSON as
its text, and a text cell a spreadsheet would run as a formula (starting with = + - @, tab or
carriage return) gets a leading apostrophe.

A code staff read in words (a status, an issue code, a payment method, an event) is exported
twice: the code, for spreadsheets and scripts, and beside it a column of its staff word
(`Column(..., words=labels.STATUS)`, headed "<name>Label"). The word is computed by the
database, both ways, from the vocabulary of `core.labels` (`word_expression`: a jsonb lookup on
PostgreSQL, a CASE elsewhere): COPY stays one statement, with no row read back into Python.
"""

import contextlib
import csv
import datetime as dt
import json
import logging
from dataclasses import dataclass

from django.db import DatabaseError, connection, models
from django.db.models import Aggregate, Case, F, Func, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone

from . import labels

logger = logging.getLogger(__name__)

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# The last line of an export that stopped midway: a spreadsheet shows it below the rows it got.
INCOMPLETE_LINE = (
    b"EXPORT INCOMPLETE: an error stopped it here; the rows above are only part of the list. Export again.\n"
)
CHUNK_ROWS = 2000
CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True)
class Column:
    path: str  # an ORM path, as values_list takes it ("customer__name"), or an annotation's name
    header: str
    # A vocabulary of core.labels: the cell is the staff word of the code at `path`.
    words: str = ""


def with_words(path: str, header: str, words: str) -> list[Column]:
    """The code at `path` under `header`, and its staff word beside it under "<header>Label"."""
    return [Column(path, header), Column(path, f"{header}Label", words=words)]


def formula_safe(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


# --- Staff words, computed by the database ------------------------------------------------------


class _Humanized(Func):
    """core.labels.humanize in SQL (SQLite and PostgreSQL alike), for a code no vocabulary
    knows yet: "NEW_CODE" -> "New code". No parameter: the expression appears twice."""

    template = (
        "UPPER(SUBSTR(TRIM(REPLACE(REPLACE(%(expressions)s, '_', ' '), '.', ' ')), 1, 1)) || "
        "LOWER(SUBSTR(TRIM(REPLACE(REPLACE(%(expressions)s, '_', ' '), '.', ' ')), 2))"
    )
    output_field = models.TextField()


class _JsonWord(Func):
    """The value of the key `code` in a JSON object given as text: on PostgreSQL, one lookup in
    a jsonb object (its keys sorted, a binary search) in place of a CASE of every code."""

    arg_joiner = "::jsonb ->> "
    template = "(%(expressions)s)"
    output_field = models.TextField()


def word_expression(path: str, kind: str, *, safe: bool = False):
    """The staff word of the code at `path` (vocabulary `kind` of core.labels), computed by the
    database: a lookup in the vocabulary as one jsonb parameter on PostgreSQL, a CASE elsewhere;
    a code the vocabulary lacks in words all the same. `safe` applies the formula rule, in SQL,
    to such a code (COPY, joined())."""
    unknown = _Humanized(F(path))
    default = _SafeText(unknown) if safe else unknown
    vocabulary = dict(labels.words(kind))
    if connection.vendor == "postgresql":
        return Coalesce(_JsonWord(Value(json.dumps(vocabulary)), F(path)), default, output_field=models.TextField())
    whens = [When(**{path: code}, then=Value(word)) for code, word in vocabulary.items()]
    return Case(*whens, default=default, output_field=models.TextField())


class _Joined(Aggregate):
    function = "STRING_AGG"
    template = "%(function)s(%(expressions)s, '; ')"
    output_field = models.TextField()

    def as_sqlite(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="GROUP_CONCAT", **extra)


def joined(rows: QuerySet, path: str, *, by: str, words: str = "") -> Subquery:
    """One cell for many related rows, to annotate the exported queryset with: the values at
    `path` of `rows` (filtered on the outer row, `OuterRef("pk")`, grouped `by` that foreign
    key), or their staff words (vocabulary `words`), joined by "; ", each formula-safe. Export
    the annotation under its name: its cells are ready."""
    cell = word_expression(path, words, safe=True) if words else _SafeText(F(path))
    return Subquery(rows.order_by().values(by).annotate(cell=_Joined(cell)).values("cell"))


# --- PostgreSQL: COPY of the queryset's SQL -----------------------------------------------------


# FORMULA_START as code points: the first character's code is compared, not a one-character
# string cut from each cell (which doubled the cost of a text column).
_FORMULA_CODES = ", ".join(str(ord(c)) for c in FORMULA_START)


class _SafeText(Func):
    """The formula rule in SQL; the column appears thrice, so it must carry no parameter."""

    template = (
        f"CASE WHEN ascii(%(expressions)s) IN ({_FORMULA_CODES}) THEN '''' || %(expressions)s ELSE %(expressions)s END"
    )
    output_field = models.TextField()

    def as_sqlite(self, compiler, connection, **extra):
        # For joined() cells, which both ways compute in SQL.
        template = (
            f"CASE WHEN unicode(%(expressions)s) IN ({_FORMULA_CODES}) "
            "THEN '''' || %(expressions)s ELSE %(expressions)s END"
        )
        return super().as_sql(compiler, connection, template=template, **extra)


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


def _cell_sql(queryset: QuerySet, column: Column):
    if column.words:
        return word_expression(column.path, column.words, safe=True)
    if column.path in queryset.query.annotations:
        return F(column.path)  # the view's own cell (joined())
    field = _field(queryset.model, column.path)
    if isinstance(field, models.DateTimeField):
        return _UtcIso(F(column.path))
    if isinstance(field, models.BooleanField):
        return _Boolean(F(column.path))
    if isinstance(field, models.CharField | models.TextField):
        return _SafeText(F(column.path))
    if isinstance(field, models.JSONField):
        return _SafeText(_AsText(F(column.path)))
    return F(column.path)


# Kept: several times the rows a second of the iterator (docs/benchmarks.md, "Keep or remove").
def _copy_chunks(queryset: QuerySet, columns: list[Column]):
    cells = {f"export_{i}": _cell_sql(queryset, column) for i, column in enumerate(columns)}
    query = queryset.annotate(**cells).values_list(*cells)
    if query.query.is_empty():
        return  # .none() has no SQL to run (EmptyResultSet): no row
    sql, params = query.query.sql_with_params()
    buffer = bytearray()
    with connection.cursor() as cursor:
        # A million rows' cost estimate makes PostgreSQL compile the cells' expressions (JIT)
        # first, which costs more than it saves on these simple ones (docs/benchmarks.md).
        cursor.execute("SET jit = off")
        try:
            with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)", params) as copy:
                # COPY hands over a row at a time: sent on in blocks, not one write per row.
                for row in copy:
                    buffer += row
                    if len(buffer) >= CHUNK_BYTES:
                        yield bytes(buffer)
                        buffer.clear()
        finally:
            # A download broken off cancels the COPY: Django then closes the errored connection
            # at the request's end, and the setting goes with it.
            with contextlib.suppress(DatabaseError):
                cursor.execute("RESET jit")
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
    # "\r\n" so that csv quotes a cell holding a carriage return (it quotes only the characters
    # of its line ending), as COPY does; each line then ends in "\n", as COPY's do.
    writer = csv.writer(_Echo(), lineterminator="\r\n")
    # A word column reads the database's CASE, as COPY does; the other columns their path.
    words = {f"export_{i}": word_expression(c.path, c.words) for i, c in enumerate(columns) if c.words}
    paths = [f"export_{i}" if c.words else c.path for i, c in enumerate(columns)]
    rows = queryset.annotate(**words).values_list(*paths).iterator(chunk_size=CHUNK_ROWS)
    batch = []
    for row in rows:
        batch.append(writer.writerow([_cell_text(value) for value in row])[:-2] + "\n")
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
    try:
        with timezone.override(zone or timezone.get_current_timezone()):
            if connection.vendor == "postgresql":
                yield from _copy_chunks(queryset, columns)
            else:
                yield from _iterated_lines(queryset, columns)
    except Exception:
        # The headers are sent: a 500 can no longer be answered, and a cut connection looks like
        # a network fault. The file says it is incomplete instead; the error goes to the log.
        logger.exception("An export stopped midway")
        yield INCOMPLETE_LINE


def csv_response(queryset: QuerySet, columns: list[Column], name: str) -> StreamingHttpResponse:
    """`queryset` as a streamed CSV download named `<name>-<UTC time>.csv`."""
    lines = csv_lines(queryset, columns, timezone.get_current_timezone())
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.csv"'
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy passes the chunks on as they come
    return response


def refused_filters(request, errors) -> HttpResponse:
    """The answer to an export whose filters the list refuses: 400 with the list's message, and
    a way back to the list with the same filters (it is the export's parent address)."""
    context = {"errors": errors, "list_url": request.path.rsplit("/", 1)[0] + "/"}
    return render(request, "core/export_refused.html", context, status=400)


def filtered_export(request, filterset_class, queryset: QuerySet, ordering, columns: list[Column], name: str):
    """A list's export: its filters from the request (refused ones answer 400, as the page
    would), its rows in the page's `ordering`, as `csv_response`."""
    filterset = filterset_class(request.GET, queryset=queryset)
    if not filterset.is_valid():
        return refused_filters(request, filterset.errors)
    return csv_response(filterset.qs.order_by(*ordering), columns, name)
