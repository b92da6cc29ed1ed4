"""What runs around every request: its id (taken from X-Request-ID when sane, else made here),
the access log, the idle-session end, the refusal of NUL bytes, HEAD; and the Prometheus metrics
that every layer records: requests, upstream calls, the circuit breaker.

The figures read from the database at scrape time (inbox, syncs, heartbeats) and the
`/metrics` view are the project's (backoffice/metrics.py). docs/operations.md says what each
metric means and what to do about it.

Several processes (gunicorn's, Celery's prefork children) share one view of these when
PROMETHEUS_MULTIPROC_DIR names a directory they all write to; without it each process
counts alone.
"""

import contextvars
import logging
import os
import re
import time
import uuid

import pybreaker
from django.core.exceptions import SuspiciousOperation
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess

_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_SANE_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


def current_request_id() -> str:
    return _request_id.get()


def set_request_id(value: str) -> contextvars.Token:
    """For work that is not a request (a Celery task): its id in logs and upstream calls."""
    return _request_id.set(value)


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        request.id = incoming if _SANE_ID.match(incoming) else uuid.uuid4().hex
        token = _request_id.set(request.id)
        try:
            response = self.get_response(request)
        finally:
            _request_id.reset(token)
        response["X-Request-ID"] = request.id
        return response


class RequestIdLogFilter(logging.Filter):
    def filter(self, record):
        # Django logs a 4xx or 5xx answer after the middleware has returned (the id is no longer
        # current then), with the request attached to the record.
        request = getattr(record, "request", None)
        record.request_id = getattr(request, "id", None) or _request_id.get()
        return True


access_log = logging.getLogger("backoffice.access")
ACCESS_FIELDS = ("method", "path", "status", "duration_ms", "user_id", "client")


class AccessLogMiddleware:
    """One line per request: method, path (never the query string, which may hold a searched
    name or e-mail address), status, duration, the staff member's id and the client's address
    as the server saw it. At INFO: `make run` (LOG_LEVEL=WARNING) leaves them out."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        # The user as the request resolved it, if it did: resolving it here would read the
        # session again, and after a failure that is a second failure of the same request.
        user = getattr(request, "_cached_user", None)
        fields = {
            "method": request.META.get("REQUEST_METHOD", request.method),
            "path": request.path,
            "status": response.status_code,
            "duration_ms": duration_ms,
            "user_id": user.pk if user is not None and user.is_authenticated else None,
            "client": request.META.get("REMOTE_ADDR", ""),
        }
        access_log.info("%(method)s %(path)s %(status)s %(duration_ms)sms", fields, extra=fields)
        return response


class IdleSessionMiddleware:
    """Sessions end after SESSION_COOKIE_AGE (STAFF_IDLE_MINUTES) without a request.

    Saving the session on every request would cost a write per page; refreshing its expiry
    once every TOUCH_EVERY seconds keeps the idle limit within that margin.
    """

    TOUCH_EVERY = 60

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        session = getattr(request, "session", None)
        # A server error (the database away, say) leaves the session alone: touching it would
        # fail the same request again on the way out.
        if response.status_code >= 500:
            return response
        if session is not None and not session.is_empty() and getattr(request, "user", None):
            now = int(time.time())
            if now - session.get("_touched", 0) >= self.TOUCH_EVERY:
                session["_touched"] = now
        return response


class RefuseNulMiddleware:
    """A NUL character in the path, the query string or a cookie is refused (400).

    PostgreSQL holds no NUL in text: such a value reaching a lookup (an id in the URL, a
    filter, the session key) fails in the database, a 500. Forms refuse NUL in their fields
    already; this covers what views read before any form.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    # The mounted sandbox answers in the API's own JSON error body and validates its input itself.
    EXEMPT_PREFIX = "/sandbox/"

    def __call__(self, request):
        if request.path_info.startswith(self.EXEMPT_PREFIX):
            return self.get_response(request)
        values = [request.path_info, *request.COOKIES, *request.COOKIES.values()]
        for key, items in request.GET.lists():
            values += [key, *items]
        if any("\x00" in value for value in values):
            raise SuspiciousOperation("A NUL character in the address or a cookie")
        return self.get_response(request)


class HeadMiddleware:
    """HEAD is answered as GET would be, without the body, on every URL that answers GET.

    The view runs as for GET (as Django's class-based views already do), so a probe or a link
    checker that asks with HEAD gets GET's status and headers, Content-Length included. The
    body is dropped here, outermost: Django's runserver and test client drop it themselves,
    but gunicorn sends what it is given, and a client keeping its connection alive would read
    that body as the start of its next answer.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method != "HEAD":
            return self.get_response(request)
        request.method = "GET"
        try:
            response = self.get_response(request)
        finally:
            request.method = "HEAD"
        if response.streaming:
            # The file or iterator behind it is still closed with the response.
            response.streaming_content = []
        else:
            response.content = b""
        return response


def _shared_directory() -> None:
    """PROMETHEUS_MULTIPROC_DIR exported but missing (a shell that kept the variable, a fresh
    container whose tmpfs is empty) would make every process that imports this module fail,
    `manage.py` commands included: the directory is made as deploy/run makes it."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise RuntimeError(f"PROMETHEUS_MULTIPROC_DIR={directory} cannot be made: {exc}") from exc


_shared_directory()

REQUEST_SECONDS = Histogram(
    "backoffice_request_seconds",
    "Time to answer a request, by view (URL name), method and status class.",
    ["view", "method", "status"],
)
UPSTREAM_CALLS = Counter(
    "backoffice_upstream_calls_total",
    "Tries of Payments API calls, by operation and outcome (ok, 4xx, 5xx, timeout, unreachable, circuit_open).",
    ["operation", "outcome"],
)
UPSTREAM_SECONDS = Histogram(
    "backoffice_upstream_call_seconds",
    "Duration of one try of a Payments API call, by operation.",
    ["operation"],
)
BREAKER_STATE = Gauge(
    "backoffice_upstream_circuit_state",
    "The circuit breaker before the Payments API: 0 closed, 1 half-open, 2 open (the worst of the processes).",
    multiprocess_mode="max",
)
TASK_SECONDS = Histogram("backoffice_task_seconds", "Runtime of Celery tasks, by task.", ["task"])
TASK_FAILURES = Counter("backoffice_task_failures_total", "Celery tasks that raised, by task.", ["task"])

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_BREAKER_VALUES = {pybreaker.STATE_CLOSED: 0, pybreaker.STATE_HALF_OPEN: 1, pybreaker.STATE_OPEN: 2}
# A path segment with a digit or an underscore is an id: "/customer/cus_8f2" -> "/customer/{id}".
_ID_SEGMENT = re.compile(r"/[^/]*[0-9_][^/]*")


def operation(method: str, path: str) -> str:
    """The label of a call: its method and path with ids replaced, so labels stay few."""
    return f"{method} {_ID_SEGMENT.sub('/{id}', path)}"


def observe_upstream(method: str, path: str, outcome: str, seconds: float) -> None:
    """The Payments API client's observer (upstream/client.py wires it)."""
    name = operation(method, path)
    UPSTREAM_CALLS.labels(name, outcome).inc()
    if outcome != "circuit_open":
        UPSTREAM_SECONDS.labels(name).observe(seconds)


class BreakerStateListener(pybreaker.CircuitBreakerListener):
    """Keeps backoffice_upstream_circuit_state equal to the breaker's state."""

    def state_change(self, cb, old_state, new_state):
        BREAKER_STATE.set(_BREAKER_VALUES.get(new_state.name, 0))


class RequestMetricsMiddleware:
    """Request latency by view: the URL's name (never the path, which holds ids)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name if match else None) or "unresolved"
        method = request.method if request.method in _METHODS else "other"
        REQUEST_SECONDS.labels(view, method, f"{response.status_code // 100}xx").observe(time.perf_counter() - started)
        return response


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's figures when PROMETHEUS_MULTIPROC_DIR is set
    (gunicorn's workers, Celery's children), else this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        combined = CollectorRegistry()
        multiprocess.MultiProcessCollector(combined)
        return combined
    return REGISTRY
