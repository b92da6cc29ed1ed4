"""The back-office's wiring of the Payments API client: settings, one shared client per
process, and the one test seam. `paymentsapi` itself knows nothing of Django or of us.

    from upstream.client import get_client

    customer = get_client().customers.get(customer_id=customer_id)
"""

import contextlib
import functools
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.db import connections

from core.middleware import BreakerStateListener, current_request_id, observe_upstream
from paymentsapi import PaymentsApiClient, make_breaker


def _request_id() -> str | None:
    """The id of the request being served, for X-Request-ID and the client's log lines."""
    request_id = current_request_id()
    return None if request_id == "-" else request_id


def client_from_settings(**overrides: Any) -> PaymentsApiClient:
    """A new client configured by the PAYMENTS_API_* settings; keyword arguments override them."""
    options: dict[str, Any] = {
        "api_key": settings.PAYMENTS_API_KEY,
        "base_url": settings.PAYMENTS_API_BASE_URL,
        "timeout": float(settings.PAYMENTS_API_TIMEOUT),
        "request_id": _request_id,
        "observer": observe_upstream,
        "max_retries": settings.PAYMENTS_API_MAX_RETRIES,
    }
    options["breaker"] = make_breaker(
        fail_max=settings.PAYMENTS_API_BREAKER_FAILURES, reset_timeout=settings.PAYMENTS_API_BREAKER_RESET_SECONDS
    )
    options["breaker"].add_listener(BreakerStateListener())
    options.update(overrides)
    return PaymentsApiClient(**options)


# The test seam: while `override_client()` is active, get_client() answers this client.
_override: PaymentsApiClient | None = None


@contextlib.contextmanager
def override_client(client: PaymentsApiClient) -> Iterator[PaymentsApiClient]:
    """For tests only: every get_client() in the block answers `client` (e.g. one over an
    httpx.MockTransport that fails on command). One seam for all callers, which import
    get_client by name and so cannot be patched one module at a time reliably."""
    global _override
    previous, _override = _override, client
    try:
        yield client
    finally:
        _override = previous


def get_client() -> PaymentsApiClient:
    """The shared client of the current settings: one connection pool and one circuit breaker
    per process and settings.

    With PAYMENTS_API_IN_PROCESS the requests go through WSGI into this same project (the
    mounted sandbox) instead of a socket: for tests and for set-up commands that run before
    the server is up. It is still HTTP: nothing of the sandbox is imported. The same happens
    by itself for management commands (manage.py sets PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED)
    when the sandbox is mounted at a loopback address where no server listens: `manage.py
    sync_mirror` on a machine where `make run` is not running.
    """
    if _override is not None:
        return _override
    base_url = settings.PAYMENTS_API_BASE_URL
    in_process = settings.PAYMENTS_API_IN_PROCESS or (
        settings.SANDBOX_MOUNTED and settings.PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED and _nobody_serves(base_url)
    )
    return _shared_client(
        base_url,
        settings.PAYMENTS_API_KEY,
        float(settings.PAYMENTS_API_TIMEOUT),
        settings.PAYMENTS_API_MAX_RETRIES,
        in_process,
    )


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@functools.lru_cache(maxsize=4)
def _nobody_serves(base_url: str) -> bool:
    """Whether `base_url` is on this machine and nothing answers there (asked once a process)."""
    parts = urlsplit(base_url)
    if parts.hostname not in _LOOPBACK:
        return False
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=0.5):
            return False
    except OSError:
        return True


# A write's answer that was lost is looked up with a longer timeout than the write's own (an
# upstream that answers late answers this), within the web worker's 30 s (gunicorn.conf.py):
# the write's 10 s and one look of 15 s.
RECONCILE_TIMEOUT = 15.0


def lookup_client() -> PaymentsApiClient:
    """The client for looking up the outcome of a write whose answer was lost: one try, a
    longer timeout (upstream.write_through's `reconcile`)."""
    return get_client().with_options(timeout=RECONCILE_TIMEOUT, max_retries=0)


class InProcessTransport(httpx.WSGITransport):
    """Requests through WSGI into this project, in the caller's thread and so on its database
    connections. A WSGI request ends with Django's close_old_connections, which would close
    the caller's connection under an open cursor (a sync's iterator) or mid-transaction: the
    caller owns its connections, so they are left open while the request runs."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        kept = [
            conn for conn in connections.all(initialized_only=True) if "close_if_unusable_or_obsolete" not in vars(conn)
        ]
        for conn in kept:
            conn.close_if_unusable_or_obsolete = _keep_open
        try:
            response = super().handle_request(request)
            # The request ends (request_finished) when its body is closed: here, not later.
            response.read()
            response.close()
            return response
        finally:
            for conn in kept:
                del conn.close_if_unusable_or_obsolete


def _keep_open() -> None:
    pass


@functools.lru_cache(maxsize=4)
def _shared_client(
    base_url: str, api_key: str, timeout: float, max_retries: int | None, in_process: bool
) -> PaymentsApiClient:
    # The arguments are the cache key: other settings (a test's, say) make another client.
    if in_process:
        return client_from_settings(transport=InProcessTransport(app=get_wsgi_application()))
    return client_from_settings()
