"""A request id for every request: taken from X-Request-ID when sane, else made here."""

import contextvars
import logging
import re
import time
import uuid

from django.core.exceptions import SuspiciousOperation

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
