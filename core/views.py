"""What the views of every app share.

- Keyset pagination (`paginate_keyset`): Keyset pagination: pages as deep as you like at the cost of the first.

The cursor carries the sort key of the last row shown; the next page is the rows after it
in the index order. No OFFSET, no COUNT.
- `page_or_partial`: the page, or the one partial htmx swaps; `escaped`: a row's text escaped once.
- `moved`: old addresses of pages that moved answer 308, so bookmarks and shared links keep working.
- The error pages (400, 403, 404, 500/503) and the CSRF failure page.
"""

import base64
import binascii
import functools
import html
import json
import re
import sys
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.contrib.sessions.exceptions import SessionInterrupted
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError
from django.db.models import Q, QuerySet
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template import loader
from django.urls import path, reverse
from django.utils.safestring import SafeString


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


def filtered_page(request, filterset_class, queryset: QuerySet, *, ordering: tuple[str, ...], size: int, data=None):
    """A list page's filter and one page of its rows: (filterset, KeysetPage). Refused filters
    show no rows (the page shows their errors); `data` stands for request.GET when given."""
    filterset = filterset_class(request.GET if data is None else data, queryset=queryset)
    rows = filterset.qs if filterset.is_valid() else queryset.none()
    return filterset, paginate_keyset(rows, ordering=ordering, cursor=request.GET.get("cursor"), size=size)


def bad_request(request, exception=None):
    # A session deleted by a concurrent request (a logout, a deactivation, a second-factor
    # reset) while this one ran: the view may have done its work; say what happened. Rendered
    # without the request, as Django's own 400 is.
    ended = isinstance(exception, SessionInterrupted)
    return HttpResponse(loader.render_to_string("400.html", {"session_ended": ended}), status=400)


def permission_denied(request, exception=None):
    roles = getattr(exception, "roles", None)
    return render(request, "403.html", {"roles": roles}, status=403)


def csrf_failure(request, reason=""):
    return render(request, "403.html", {"csrf": True}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    # Called by Django inside its handler of the uncaught exception, so sys.exc_info() names it.
    # The database restarting (refused or dropped connections) is a wait, not a fault of ours:
    # 503 with Retry-After, which browsers show and the provider's webhook deliveries retry.
    # Rendered without the request: its context processors could read the database again.
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = "5"
        return response
    return render(request, "500.html", status=500)


_TO_ESCAPE = re.compile(r"""[&<>"']""")


def escaped(text: str) -> SafeString:
    """`text` as the template's escaping would write it (django.utils.html.escape is this), for
    the values a list's rows are given ready (customers' queue, monitoring's alerts): the
    template then checks each is marked instead of escaping it behind a check for lazy text,
    on the ~1,000 values of a page. Most hold nothing to escape: one search finds that."""
    return SafeString(html.escape(text) if _TO_ESCAPE.search(text) else text)


@functools.lru_cache(maxsize=4096)
def escaped_word(text: str) -> SafeString:
    """escaped() of a value that comes back row after row (a status, a type, a label)."""
    return escaped(text)


def page_or_partial(request, template: str, partial: str = "results") -> str:
    """The page, or only one of its partials when htmx swaps that part (filters, pages)."""
    if request.htmx and not request.htmx.boosted:
        return f"{template}#{partial}"
    return template


class HttpResponsePermanentRedirectKeepMethod(HttpResponseRedirect):
    """308: moved for good, and the method and body go along (a POST stays a POST)."""

    status_code = 308


def moved(old: str, new_name: str):
    """A route for `old` that answers 308 to the URL named `new_name`, with the same URL
    arguments and query string."""

    def redirect(request, **kwargs):
        url = reverse(new_name, kwargs=kwargs)
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirectKeepMethod(f"{url}?{query}" if query else url)

    return path(old, redirect)
