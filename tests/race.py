"""Concurrent requests against the live test server: how the race tests send two clicks at once.

A control that holds for one person at a time can still fail when two requests arrive
together: a double click, two colleagues on one request, a retry after a timeout. These tests
send them for real: each `Member` is a logged-in browser session over HTTP (its own cookies,
its own CSRF token), and `at_once` releases one thread per request at a barrier, so that all
are in flight together in the live server's threads, each on its own database connection.
`gap` sends them that many seconds apart in order instead (a double click is about 0.05 s).

The live server mounts the sandbox and the back-office calls it over real HTTP (the `racing`
fixture in tests/conftest.py), with one circuit breaker per thread as separate server
processes would have (a pybreaker breaker holds its lock for the whole call: threads sharing
one never have two calls in flight). On PostgreSQL the requests really overlap; on SQLite writers queue, so the same
tests check the sequential case there.

    def test_double_click(racing, make_staff):
        alice = racing.member(make_staff("operations"))
        answers = at_once(lambda: alice.post(url), lambda: alice.post(url))
"""

import threading
from collections.abc import Callable

import httpx
from django.conf import settings
from django.core.signals import request_started
from django.db import connection, connections
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from paymentsapi import make_breaker
from tests.conftest import authenticated_now

ON_POSTGRESQL = connection.vendor == "postgresql"


class BreakerPerThread:
    """One breaker for each thread, as each server process has its own."""

    reset_timeout = 30

    def __init__(self):
        self._local = threading.local()

    def _breaker(self):
        if not hasattr(self._local, "breaker"):
            self._local.breaker = make_breaker()
        return self._local.breaker

    def call(self, func, *args, **kwargs):
        return self._breaker().call(func, *args, **kwargs)

    @property
    def current_state(self) -> str:
        """What a page's banner reads (mirror.context_processors.upstream_status)."""
        return self._breaker().current_state


class Member:
    """A staff member's browser: logged in (and just re-authenticated), with a CSRF token."""

    def __init__(self, base_url: str, user):
        django_client = Client()
        django_client.force_login(user)
        authenticated_now(django_client, user)
        token_request = RequestFactory().get("/")
        token = get_token(token_request)
        self.user = user
        self.http = httpx.Client(
            base_url=base_url,
            cookies={
                settings.SESSION_COOKIE_NAME: django_client.cookies[settings.SESSION_COOKIE_NAME].value,
                settings.CSRF_COOKIE_NAME: token_request.META["CSRF_COOKIE"],
            },
            headers={"X-CSRFToken": token},
            timeout=60,
        )

    def get(self, path: str, **kwargs) -> httpx.Response:
        return self.http.get(path, **kwargs)

    def post(self, path: str, data: dict | None = None, **kwargs) -> httpx.Response:
        return self.http.post(path, data=data or {}, **kwargs)

    def close(self) -> None:
        self.http.close()


def at_once(*sends: Callable[[], httpx.Response], gap: float = 0.0) -> list[httpx.Response]:
    """Run each send in a thread of its own, all released together (or `gap` seconds apart, in
    order); the answers in the order given. A send that raised, or an answer that is a server
    error, fails the test."""
    count = len(sends)
    barrier = threading.Barrier(count, timeout=30)
    answers: list[httpx.Response | None] = [None] * count
    errors: list[BaseException] = []

    def run(index: int, send: Callable[[], httpx.Response]) -> None:
        try:
            barrier.wait()
            if gap:
                threading.Event().wait(gap * index)
            answers[index] = send()
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, send)) for i, send in enumerate(sends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert all(answer is not None for answer in answers), "a request did not finish"
    # Whatever the interleaving, no request may end in a server error.
    assert all(answer.status_code < 500 for answer in answers), [answer.status_code for answer in answers]
    return answers  # type: ignore[return-value]


class Racing:
    """The live server with its sandbox as the upstream (`sandbox`: calls and test helpers over
    HTTP) and the members who will send requests at once. `calls` lists every request the
    sandbox received, as (method, path), so that a test counts what reached the upstream:

        start = len(racing.calls)
        at_once(...)
        assert racing.sent("POST", "/automation-rules", since=start) == 1
    """

    def __init__(self, live_server, sandbox):
        self.url = live_server.url
        self.sandbox = sandbox
        self._members: list[Member] = []
        self.calls: list[tuple[str, str]] = []
        request_started.connect(self._record, dispatch_uid="race-upstream-calls")

    def _record(self, sender, environ=None, **kwargs) -> None:
        path = (environ or {}).get("PATH_INFO", "")
        if path.startswith("/sandbox/"):
            self.calls.append((environ["REQUEST_METHOD"], path.removeprefix("/sandbox")))

    def sent(self, method: str, path_part: str, *, since: int = 0) -> int:
        """How many `method` requests whose path holds `path_part` the sandbox received."""
        return sum(1 for m, path in self.calls[since:] if m == method and path_part in path)

    def member(self, user) -> Member:
        member = Member(self.url, user)
        self._members.append(member)
        return member

    def close(self) -> None:
        request_started.disconnect(dispatch_uid="race-upstream-calls")
        for member in self._members:
            member.close()
