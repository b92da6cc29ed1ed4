"""Several short lists of a page in one query; several figures of a page in one query.

A detail page shows a handful of short lists from different tables (the newest 20 of
this, 50 of that). `fetch_together` reads them with one UNION ALL: each part selects its
rows by primary key from the list's own ordered, limited queryset (a subquery the part's
index serves), with every column packed into one JSON object; the rows come back as model
instances in each list's order. Decimals travel as text, so money stays exact.
"""

import datetime as dt
import functools
import json
from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, connection, models
from django.db.models import CharField, IntegerField, Subquery, Value
from django.db.models.functions import Cast, JSONObject
from django.db.models.sql import Query
from django.utils import timezone
from django.utils.dateparse import parse_datetime


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


def _combined(querysets):
    """The one UNION ALL of `querysets`: (part, row) pairs, row a JSON object of every column."""
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
    return parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]


def _lists(pairs, models: list, orderings: list[list[str]]) -> list[list]:
    found: list[list] = [[] for _ in models]
    for index, row in pairs:
        row = json.loads(row) if isinstance(row, str) else row
        found[index].append(_instance(models[index], row))
    return [_sort(rows, ordering) for rows, ordering in zip(found, orderings, strict=True)]


def fetch_together(*querysets) -> list[list]:
    """The rows of each ordered, sliced queryset, as lists of instances, in one query."""
    return _lists(_combined(querysets), [qs.model for qs in querysets], [_ordering(qs) for qs in querysets])


# Kept: the standard way (each list on its own) misses the query budget (docs/benchmarks.md, "Keep or remove").
class CompiledTogether:
    """`fetch_together` for a page whose lists differ from one request to the next only by a
    few values (a customer's key and id): the ORM compiles the UNION ALL once per process and
    shape, and each call runs that SQL with the new values. On the customer page the compile
    was most of the request (docs/benchmarks.md, "Where the figures in the code went").

    `build(*values, **shape)` returns the querysets. It is called with stand-in values (ints
    or strings, as the real ones) twice; the two compiles must differ exactly where a
    stand-in went, so a list that derives something from a value (str(pk), a date from the
    clock) is refused at the first call rather than answered with another page's rows.
    """

    def __init__(self, build):
        self.build = build
        self._compiled: dict = {}

    @staticmethod
    def _stand_ins(values, round_: int) -> list:
        stand_ins = []
        for slot, value in enumerate(values):
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise TypeError(f"CompiledTogether takes ints and strings, not {type(value).__name__}")
            stand_ins.append(
                -(2**62) - 1000 * round_ - slot if isinstance(value, int) else f"<together {round_}.{slot}>"
            )
        return stand_ins

    def _compile(self, values, shape: dict):
        firsts, seconds = self._stand_ins(values, 1), self._stand_ins(values, 2)
        querysets = self.build(*firsts, **shape)
        sql, params = _combined(querysets).query.sql_with_params()
        sql_again, params_again = _combined(self.build(*seconds, **shape)).query.sql_with_params()
        slots = []
        for param, again in zip(params, params_again, strict=True):
            if param in firsts and again == seconds[firsts.index(param)]:
                slots.append(firsts.index(param))
            elif param == again and param not in firsts:
                slots.append(("constant", param))
            else:
                raise ValueError(f"a list of {self.build.__qualname__} derives a value from its stand-in: {param!r}")
        if sql != sql_again:
            raise ValueError(f"the SQL of {self.build.__qualname__} depends on its values")
        return sql, slots, [qs.model for qs in querysets], [_ordering(qs) for qs in querysets]

    def fetch(self, *values, **shape) -> list[list]:
        key = (tuple(type(value) for value in values), tuple(sorted(shape.items())))
        if key not in self._compiled:
            self._compiled[key] = self._compile(values, shape)
        sql, slots, models, orderings = self._compiled[key]
        params = [values[slot] if isinstance(slot, int) else slot[1] for slot in slots]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return _lists(cursor.fetchall(), models, orderings)


# --- Sections other apps add to a page --------------------------------------------------------------
#
# A page shows sections owned by other apps (the customer page: payments' accounts and
# transactions, monitoring's alerts) as inclusion tags of those apps, loaded by the page's
# template: `{% load payments_sections %}{% customer_payments customer %}`. The template is
# the one list of a page's sections; the app that owns a section owns its query, its template
# and its words. A tag marked with `page_section` also gives the page its short lists, which
# the page reads with its own in its one query, and the columns it adds to the page's live
# version (core/live.py).


def page_section(lists, version):
    """Mark an inclusion tag as a section of a page.

    `lists(pk, key)` gives the section's short lists (name -> ordered, sliced queryset) of
    the record whose primary key and id are `pk` and `key`; they may depend on those two
    values only (the page compiles its query once, CompiledTogether). `version()` gives the
    columns the section adds to the page's version: expressions on the record's row
    (subqueries on OuterRef("pk")), named uniquely; when one of their values moves, the open
    page gets its sections anew."""

    def mark(tag):
        tag.section_lists, tag.section_version = lists, version
        return tag

    return mark


def sections_in(template_name: str) -> list:
    """The section tags (`page_section`) a template draws, in its order; found once per
    compiled template."""
    from django.template.library import InclusionNode
    from django.template.loader import get_template

    compiled = get_template(template_name).template
    found = getattr(compiled, "page_sections", None)
    if found is None:
        nodes = compiled.nodelist.get_nodes_by_type(InclusionNode)
        found = [node.func for node in nodes if hasattr(node.func, "section_lists")]
        compiled.page_sections = found
    return found


def section_querysets(sections: list, pk, key) -> list:
    """Every list of `sections`, in order, to be read with the page's own lists."""
    return [qs for tag in sections for qs in tag.section_lists(pk, key).values()]


def section_rows(sections: list, rows: list[list]) -> dict:
    """The rows read for `section_querysets(sections, ...)`, by tag: {tag name: {list name: rows}},
    the page's context value `section_rows`."""
    found, rest = {}, iter(rows)
    for tag in sections:
        found[_tag_key(tag)] = {name: next(rest) for name in _names(tag)}
    return found


def rows_for(context, tag, pk, key) -> dict:
    """A section tag's lists: those the page read with its own (`section_rows` in its
    context), else read now, in one query (a page that did not read them)."""
    read = (context.get("section_rows") or {}).get(_tag_key(tag))
    if read is not None:
        return read
    lists = tag.section_lists(pk, key)
    return dict(zip(lists, fetch_together(*lists.values()), strict=True)) if lists else {}


@functools.cache
def _names(tag) -> tuple[str, ...]:
    return tuple(tag.section_lists(0, ""))


def _tag_key(tag) -> str:
    return f"{tag.__module__}.{tag.__qualname__}"


class Counted(Subquery):
    """How many rows a queryset holds, as one figure of `figures_together` (a scalar subquery:
    `Counted(rows.values("pk"))`)."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) counted)"
    output_field = IntegerField()


def figures_together(**figures) -> dict:
    """Several figures of a page, each a scalar subquery (`Counted`, or a `Subquery` of one
    value), in one SELECT without a table: {name: value}. Each keeps its own plan (PostgreSQL
    runs an uncorrelated scalar subquery once), so this costs one round trip, not one each."""
    if not figures:
        return {}
    query = Query(None)
    for name, expression in figures.items():
        query.add_annotation(expression, name, select=True)
    row = next(iter(query.get_compiler(using=DEFAULT_DB_ALIAS).results_iter()))
    return dict(zip(figures, row, strict=True))


def _decoder(field):
    """How a value comes back out of the JSON row: money exact, booleans as such (SQLite packs
    them as 0 and 1), times aware, nested JSON as Python (SQLite packs it as its text)."""
    if isinstance(field, models.DecimalField):
        return lambda value: None if value is None else Decimal(value)
    if isinstance(field, models.BooleanField):
        return lambda value: None if value is None else bool(value)
    if isinstance(field, models.DateTimeField):

        def when(value):
            if not isinstance(value, str):
                return value
            parsed = parse_datetime(value)
            return timezone.make_aware(parsed, dt.UTC) if parsed and timezone.is_naive(parsed) else parsed

        return when
    if isinstance(field, models.JSONField):
        return lambda value: json.loads(value) if isinstance(value, str) else value
    return lambda value: value


def _packed_rows(queryset):
    """`queryset` (a values() queryset, sliced or not) selecting one JSON object per row, and the
    decoders of its keys."""
    names = [*queryset.query.values_select, *queryset.query.annotation_select]
    low, high = queryset.query.low_mark, queryset.query.high_mark
    packed = queryset._chain()
    packed.query.clear_limits()
    fields, decoders = {}, {}
    for name in names:
        field = packed.query.resolve_ref(name).output_field
        fields[name] = Cast(name, CharField()) if isinstance(field, models.DecimalField) else models.F(name)
        decoders[name] = _decoder(field)
    packed = packed.values(_row=JSONObject(**fields))
    packed.query.set_limits(low, high)
    return packed, decoders


def rows_together(*querysets) -> list[list[dict]]:
    """The rows of each values() queryset as dicts, in one statement: a UNION ALL of the
    querysets, each a subquery of its own with its conditions, ORDER BY and LIMIT as written (so
    the index that serves it alone serves it here), its rows packed into one JSON object. For
    a page that asks several small, bounded questions of different tables at once."""
    if not querysets:
        return []
    statements, params, decoders = [], [], []
    for index, queryset in enumerate(querysets):
        packed, decode = _packed_rows(queryset)
        sql, part_params = packed.query.sql_with_params()
        statements.append(f"SELECT {index} AS part, w.* FROM ({sql}) w")  # noqa: S608 (an int, compiled SQL)
        params.extend(part_params)
        decoders.append(decode)
    found: list[list[dict]] = [[] for _ in querysets]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(statements), params)
        for index, row in cursor.fetchall():
            row = json.loads(row) if isinstance(row, str) else row
            found[index].append({name: decode(row.get(name)) for name, decode in decoders[index].items()})
    return found
