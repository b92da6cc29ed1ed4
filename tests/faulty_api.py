"""The real sandbox as the upstream, behind a switch that makes it fail or answer otherwise:
the one way the back-office's tests fake the Payments API (installed with
`upstream.client.override_client`; the `faulty_upstream` fixture of tests/conftest.py).

While `.mode` is None every request goes through to the sandbox (in-process, through WSGI);
otherwise every request fails the chosen way without reaching it:

    "down"       connection refused (httpx.ConnectError)
    "slow"       no answer within the client's timeout (httpx.ReadTimeout, raised at once: no sleep)
    "500"        500 with the spec's error body
    "html-500"   500 with a proxy's HTML page
    "malformed"  200 whose body is cut-off JSON
    "429"        429 with Retry-After: 7
    "late"       the request reaches the sandbox and is done, but its answer comes LATE_BY
                 seconds later: a call whose read timeout is shorter gets httpx.ReadTimeout
                 (raised at once: no sleep), one with a longer timeout gets the answer

or `.answer(respond)` answers every request with `respond(request)` (a refusal the sandbox
would not make, say). The wrapper records every request that reached it (`.requests`) and the
client sleeps nothing, but records the delays it would have slept (`.sleeps`). The client has
its own circuit breaker, so that a test's faults never open another test's circuit.
"""

from collections.abc import Callable

import httpx
from django.core.wsgi import get_wsgi_application

from paymentsapi import PaymentsApiClient, make_breaker

FAULT_MODES = ["down", "slow", "500", "html-500", "malformed", "429"]
RETRY_AFTER = 7.0
# Later than the client's 10 s, sooner than a reconciliation's longer look (upstream.client).
LATE_BY = 12.0
SANDBOX_URL = "http://testserver/sandbox"

Respond = Callable[[httpx.Request], httpx.Response]


def api_error(status: int, code: str, message: str = "Something went wrong", details=None, **kwargs) -> httpx.Response:
    """An error answer in the spec's shape."""
    body = {"message": message, "code": code, "details": details, "statusCode": status}
    return httpx.Response(status, json=body, **kwargs)


class FaultyUpstream:
    def __init__(self, api_key: str):
        self.mode: str | None = None
        self.respond: Respond | None = None
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
        if self.respond is not None:
            return self.respond(request)
        mode = self.mode
        if mode is None:
            return self.to_sandbox(request)
        if mode == "down":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if mode == "slow":
            raise httpx.ReadTimeout("The read operation timed out", request=request)
        if mode == "late":
            response = self.to_sandbox(request)
            read_timeout = (request.extensions.get("timeout") or {}).get("read")
            if read_timeout is not None and read_timeout < LATE_BY:
                raise httpx.ReadTimeout("The read operation timed out", request=request)
            return response
        if mode == "500":
            return api_error(500, "INTERNAL_SERVER_ERROR", "Something broke on our side")
        if mode == "html-500":
            html = b"<html><body><h1>500 Internal Server Error</h1><p>nginx</p></body></html>"
            return httpx.Response(500, content=html, headers={"Content-Type": "text/html"})
        if mode == "malformed":
            return httpx.Response(
                200, content=b'{"customerId": "c-1", "customerSt', headers={"Content-Type": "application/json"}
            )
        if mode == "429":
            return api_error(429, "RATE_LIMITED", "Too many requests", headers={"Retry-After": str(int(RETRY_AFTER))})
        raise AssertionError(f"unknown fault mode {mode!r}")

    def to_sandbox(self, request: httpx.Request) -> httpx.Response:
        """The sandbox's own answer to `request` (for an `answer` that alters it)."""
        return self._sandbox.handle_request(request)

    def fail(self, mode: str | None) -> None:
        """Switch the fault on (or off with None) and forget what was recorded so far."""
        self.mode, self.respond = mode, None
        self.requests.clear()
        self.sleeps.clear()

    def answer(self, respond: Respond | httpx.Response) -> None:
        """Answer every request with `respond(request)` (or that one response) from now on."""
        self.fail(None)
        self.respond = respond if callable(respond) else lambda request: respond

    def sent(self, method: str, path_part: str = "") -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and path_part in r.url.path]
