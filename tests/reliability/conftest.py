"""Fixtures of the reliability suite: the real sandbox behind a switch that makes it fail.

`faulty_upstream` points the back-office at the mounted sandbox (in-process, through WSGI) and
puts a wrapper in between: while `.mode` is None every request goes through to the sandbox;
otherwise every request fails the chosen way without reaching it:

    "down"       connection refused (httpx.ConnectError)
    "slow"       no answer within the client's timeout (httpx.ReadTimeout, raised at once: no sleep)
    "500"        500 with the spec's error body
    "html-500"   500 with a proxy's HTML page
    "malformed"  200 whose body is cut-off JSON
    "429"        429 with Retry-After: 7

The wrapper records every request that reached it (`.requests`) and the client sleeps
nothing, but records the delays it would have slept (`.sleeps`). The client is installed
through the one test seam of the back-office, `paymentsapi.client.override_client`,
with its own circuit breaker so that a test's faults never open another test's circuit.
"""

import httpx
import pytest
from django.core.wsgi import get_wsgi_application

from paymentsapi.client import PaymentsApiClient, make_breaker, override_client

FAULT_MODES = ["down", "slow", "500", "html-500", "malformed", "429"]
RETRY_AFTER = 7.0
SANDBOX_URL = "http://testserver/sandbox"


class FaultyUpstream:
    def __init__(self, api_key: str):
        self.mode: str | None = None
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []
        self._sandbox = httpx.WSGITransport(app=get_wsgi_application())
        self.client = PaymentsApiClient(
            api_key=api_key,
            base_url=SANDBOX_URL,
            transport=httpx.MockTransport(self),
            max_retries=2,
            sleep=self.sleeps.append,
            # Never opens during a test: the breaker has tests of its own.
            breaker=make_breaker(fail_max=1000),
        )

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        mode = self.mode
        if mode is None:
            return self._sandbox.handle_request(request)
        if mode == "down":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if mode == "slow":
            raise httpx.ReadTimeout("The read operation timed out", request=request)
        if mode == "500":
            body = {"message": "Something broke on our side", "code": "INTERNAL_SERVER_ERROR", "statusCode": 500}
            return httpx.Response(500, json=body)
        if mode == "html-500":
            html = b"<html><body><h1>500 Internal Server Error</h1><p>nginx</p></body></html>"
            return httpx.Response(500, content=html, headers={"Content-Type": "text/html"})
        if mode == "malformed":
            return httpx.Response(
                200, content=b'{"customerId": "c-1", "customerSt', headers={"Content-Type": "application/json"}
            )
        if mode == "429":
            body = {"message": "Too many requests", "code": "RATE_LIMITED", "statusCode": 429}
            return httpx.Response(429, json=body, headers={"Retry-After": str(int(RETRY_AFTER))})
        raise AssertionError(f"unknown fault mode {mode!r}")

    def fail(self, mode: str | None) -> None:
        """Switch the fault on (or off with None) and forget what was recorded so far."""
        self.mode = mode
        self.requests.clear()
        self.sleeps.clear()

    def sent(self, method: str, path_part: str = "") -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and path_part in r.url.path]


@pytest.fixture
def faulty_upstream(upstream, settings):
    """The sandbox as the upstream, failing on command: `faulty_upstream.fail("down")`."""
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600  # reviews only when a test asks
    faulty = FaultyUpstream(upstream.plain_key)
    faulty.sandbox = upstream
    with override_client(faulty.client):
        yield faulty
