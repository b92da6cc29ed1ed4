"""Pages that follow the mirror without a reload.

A live page holds one poller (templates/_live.html): every 4 s htmx asks the page's live URL
whether its version moved. The version is a short hash of a few columns one query reads on
indexes (the record's `synced_at`, its assignee, the newest note id, ...): unchanged, the
answer is an empty 304; changed, a 200 with a new poller (carrying the new version) and the
page's parts, swapped out of band by their ids (or, for a list whose rows page by htmx, the
results part that holds the poller, swapped as the poller's target). Forms are never among
those parts, so nothing the user is typing is lost; a part that holds inputs (the stuck view's
boxes) carries `data-live-guard` and static/js/app.js holds the whole answer back while one is
in use (the old version stays, so the next poll brings the change again).

What an open page costs: 200 pages poll 50 times a second. The unchanged answer is therefore
given by LivePollMiddleware before the session, the user and the permissions are read: the
poller's URL carries a token signed for that URL, its user and the session cookie it was given
to (`t`), and the 304 needs only that signature, the version's query, compiled once
(CompiledQuery), and a look that the session still exists (its primary key). Anything else, a
changed version first of all, goes through the view and its role check as usual. The token
tells its holder only "unchanged" for a page they were shown, for at most SESSION_COOKIE_AGE
and no longer than their session: a logout, a deactivation or a second-factor reset (each
deletes the session) ends it, in the process that ended it at once and in the others within
LIVE_SESSION_RECHECK_SECONDS (a session seen alive is read again at most that often). docs/benchmarks.md ("Live pages") has the figures.

Kept against the live pages' budget (open pages cost under a tenth of a core), which the
normal middleware stack misses though each poll alone is within a page's (docs/benchmarks.md,
"Keep or remove").

The version also goes out as an ETag, and a request's If-None-Match is honoured like `v`.
"""

import functools
import hashlib
import time
from importlib import import_module

from django.conf import settings
from django.core import signing
from django.db import connection
from django.http import HttpResponse, HttpResponseNotModified, QueryDict
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

from .access import role_required


def version_of(*values) -> str:
    return hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()


class CompiledQuery:
    """A queryset's SQL, compiled by the ORM once; each call runs it with new values.

    `build(*markers)` returns the queryset with a marker string where each value goes; the
    values must be strings compared as they are (ids), nothing the ORM would adapt.
    """

    def __init__(self, build, arity: int = 0):
        self.build, self.arity = build, arity

    @functools.cached_property
    def _compiled(self) -> tuple[str, list]:
        markers = [f"<live value {i}>" for i in range(self.arity)]
        sql, params = self.build(*markers).query.sql_with_params()
        return sql, [markers.index(p) if p in markers else ("param", p) for p in params]

    def _execute(self, cursor, values) -> None:
        sql, slots = self._compiled
        cursor.execute(sql, [values[slot] if isinstance(slot, int) else slot[1] for slot in slots])

    def first_row(self, *values) -> tuple | None:
        with connection.cursor() as cursor:
            self._execute(cursor, values)
            return cursor.fetchone()

    def rows(self, *values) -> list[tuple]:
        with connection.cursor() as cursor:
            self._execute(cursor, values)
            return cursor.fetchall()


# --- The poller's token -------------------------------------------------------------------------


def _session_mark(request) -> str:
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    return hashlib.sha256(cookie.encode()).hexdigest()[:16]


def _signer(path: str) -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=f"core.live:{path}")


def live_url(request, path: str, version: str, *, page_query: bool = True) -> str:
    """`path` with the page's own query (its filters, its cursor; not with `page_query=False`,
    for a part of every page such as the notifications bell), the version and the token."""
    query = request.GET.copy() if page_query else QueryDict(mutable=True)
    query.pop("t", None)
    query["v"] = version
    query["t"] = _signer(path).sign(f"{request.user.pk}.{_session_mark(request)}")
    return f"{path}?{query.urlencode()}"


def _token_fits(request) -> bool:
    try:
        value = _signer(request.path).unsign(request.GET.get("t", ""), max_age=settings.SESSION_COOKIE_AGE)
    except signing.BadSignature:
        return False
    return value.rpartition(".")[2] == _session_mark(request)


def token_user_id(request) -> int | None:
    """The member a live URL's token was given to, read before the session: what a version
    that is per member (the notifications bell) asks; None for a token that does not fit."""
    try:
        value = _signer(request.path).unsign(request.GET.get("t", ""), max_age=settings.SESSION_COOKIE_AGE)
    except signing.BadSignature:
        return None
    user_id, _, mark = value.rpartition(".")
    return int(user_id) if user_id.isdigit() and mark == _session_mark(request) else None


def _session_query(session_key):
    from django.contrib.sessions.models import Session

    return Session.objects.filter(session_key=session_key).values_list("pk")[:1]


_SESSION = CompiledQuery(_session_query, arity=1)


# Session keys seen alive, and when (time.monotonic()): a poll re-reads its session at most
# every LIVE_SESSION_RECHECK_SECONDS. A session ended in this process (logout, deactivation,
# second-factor reset: forget_session) is forgotten at once; in another within that many seconds.
_ALIVE: dict[str, float] = {}
_ALIVE_MAX = 20_000


def forget_session(session_key: str | None) -> None:
    """The session is ending: its pollers' next unchanged answer reads it again."""
    _ALIVE.pop(session_key or "", None)


def _session_alive(request) -> bool:
    """The session the token was given to still exists (logging out deletes it): its row's
    primary key, read with a query compiled once (sessions in the database), else the
    session engine's own look; a key seen alive a moment ago is not read again."""
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    if not session_key:
        return False
    now = time.monotonic()
    seen = _ALIVE.get(session_key)
    if seen is not None and now - seen < settings.LIVE_SESSION_RECHECK_SECONDS:
        return True
    if settings.SESSION_ENGINE == "django.contrib.sessions.backends.db":
        alive = _SESSION.first_row(session_key) is not None
    else:
        alive = import_module(settings.SESSION_ENGINE).SessionStore().exists(session_key)
    if alive:
        if len(_ALIVE) >= _ALIVE_MAX:
            _ALIVE.clear()
        _ALIVE[session_key] = now
    else:
        _ALIVE.pop(session_key, None)
    return alive


def _known_version(request) -> str:
    tag = request.headers.get("If-None-Match", "").strip().removeprefix("W/").strip('"')
    return request.GET.get("v") or tag


def _not_modified(version: str) -> HttpResponse:
    response = HttpResponseNotModified()
    response["ETag"] = f'"{version}"'
    # Each answer is for one poll: never from a cache (a cached body would swap again).
    response["Cache-Control"] = "no-store"
    return response


# --- Views --------------------------------------------------------------------------------------


def live_view(permission: str, version):
    """A live URL's view: `role_required(permission)`, and `version(request, **kwargs)` for
    LivePollMiddleware's unchanged answer."""

    def decorator(view):
        checked = role_required(permission)(view)
        checked.live_version = version
        return checked

    return decorator


def live_response(request, version: str, render) -> HttpResponse:
    """304 when the client's version is current; else `render()` (the changed parts)."""
    if _known_version(request) == version:
        return _not_modified(version)
    response = render()
    response["ETag"] = f'"{version}"'
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


class LivePollMiddleware:
    """The unchanged answer of a live URL, before the session and the user are read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "GET" and "t" in request.GET:
            known = _known_version(request)
            try:
                match = resolve(request.path_info)
            except Resolver404:
                match = None
            version = getattr(match.func, "live_version", None) if match else None
            if known and version is not None and _token_fits(request):
                current = version(request, **match.kwargs)
                if current == known and _session_alive(request):
                    return _not_modified(current)
        return self.get_response(request)
