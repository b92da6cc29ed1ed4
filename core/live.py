"""Pages that follow the mirror without a reload.

A live page holds one poller (templates/_live.html): every POLL_SECONDS htmx asks the page's
live URL whether its version moved. The version is a short hash of a few columns one cheap
query reads (the record's `synced_at`, its assignee, the newest note id, ...): unchanged, the
answer is an empty 304; changed, a 200 with a new poller (carrying the new version) and the
page's parts, swapped out of band by their ids (or, for a list whose rows page by htmx, the
results part that holds the poller, swapped as the poller's target). Forms are never among those parts, so nothing
the user is typing is lost; a part that holds inputs (the stuck view's boxes) carries
`data-live-guard` and static/js/app.js holds the whole answer back while one is in use (the old
version stays, so the next poll brings the change again).

The version also goes out as an ETag, and a request's If-None-Match is honoured like `v`.
"""

import hashlib

from django.http import HttpResponse, HttpResponseNotModified, QueryDict
from django.template.loader import render_to_string


def version_of(*values) -> str:
    return hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()


def live_url(request, path: str, version: str) -> str:
    """`path` with the page's own query (its filters, its cursor) and the version."""
    query: QueryDict = request.GET.copy()
    query["v"] = version
    return f"{path}?{query.urlencode()}"


def _known_version(request) -> str:
    tag = request.headers.get("If-None-Match", "").strip().removeprefix("W/").strip('"')
    return request.GET.get("v") or tag


def live_response(request, version: str, render) -> HttpResponse:
    """304 when the client's version is current; else `render()` (the changed parts)."""
    response = HttpResponseNotModified() if _known_version(request) == version else render()
    response["ETag"] = f'"{version}"'
    # Each answer is for one poll: never from a cache (a cached body would swap again).
    response["Cache-Control"] = "no-store"
    return response


def render_parts(request, template: str, parts, context: dict, poller: bool = True) -> HttpResponse:
    """The answer of a changed page: the new poller, then `template`'s partials `parts`, each
    rendered with `live` set (their root then carries hx-swap-oob). A part that holds the
    poller itself (`poller=False`) is the poller's hx-target instead."""
    context = {**context, "live": True}
    html = render_to_string("_live.html", context, request) if poller else ""
    html += "".join(render_to_string(f"{template}#{part}", context, request) for part in parts)
    return HttpResponse(html)
