"""The back-office's wiring of the client (upstream.client): settings, the shared client, the
request id, the test seam; and the client itself a plain library."""

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from core.middleware import _request_id
from paymentsapi import PaymentsApiClient
from tests.paymentsapi.conftest import API_KEY, customer_body, ok
from upstream.client import client_from_settings, get_client, override_client

ROOT = Path(__file__).resolve().parents[2]


def test_from_settings_reads_the_payments_api_settings(settings):
    settings.PAYMENTS_API_BASE_URL = "https://api.example/"
    settings.PAYMENTS_API_KEY = API_KEY
    settings.PAYMENTS_API_TIMEOUT = 3.0
    seen = []

    def answer(request):
        seen.append(request)
        return ok(customer_body())

    client = client_from_settings(transport=httpx.MockTransport(answer))
    client.customers.get(customer_id="c-1")

    assert str(seen[0].url) == "https://api.example/customer/c-1"
    assert seen[0].headers["Authorization"] == f"Bearer {API_KEY}"
    assert seen[0].extensions["timeout"]["read"] == 3.0


def test_the_breaker_follows_the_settings(settings):
    settings.PAYMENTS_API_BREAKER_FAILURES = 2
    settings.PAYMENTS_API_BREAKER_RESET_SECONDS = 7

    breaker = client_from_settings().breaker

    assert (breaker.fail_max, breaker.reset_timeout) == (2, 7)


def test_get_client_is_shared_per_settings(settings):
    settings.PAYMENTS_API_BASE_URL = "https://one.example"
    first = get_client()
    assert get_client() is first
    settings.PAYMENTS_API_BASE_URL = "https://two.example"
    assert get_client() is not first
    assert get_client().base_url == "https://two.example"


def test_the_request_being_served_is_named_to_the_api_and_in_the_log(caplog):
    seen = []
    client = client_from_settings(
        transport=httpx.MockTransport(lambda request: seen.append(request) or ok(customer_body()))
    )
    caplog.set_level("INFO", logger="paymentsapi")
    token = _request_id.set("req-12345678")
    try:
        client.customers.get(customer_id="c-1")
    finally:
        _request_id.reset(token)
    client.customers.get(customer_id="c-2")

    assert seen[0].headers["X-Request-ID"] == "req-12345678"
    assert "X-Request-ID" not in seen[1].headers  # outside a request: no id to send
    lines = [record.getMessage() for record in caplog.records if record.name == "paymentsapi"]
    assert "request id req-12345678" in lines[0]
    assert "request id -" in lines[1]


def test_override_client_is_what_get_client_answers_in_the_block():
    shared = get_client()
    stand_in = PaymentsApiClient(api_key="k", base_url="https://stand-in.example")

    with override_client(stand_in):
        assert get_client() is stand_in
    assert get_client() is shared


@pytest.mark.parametrize("module", ["paymentsapi", "paymentsapi.types", "paymentsapi.resources"])
def test_the_client_imports_neither_django_nor_the_project(module):
    """A plain library: importing it loads nothing of Django or of the back-office."""
    project = (
        "django",
        "core",
        "staff",
        "audit",
        "upstream",
        "customers",
        "payments",
        "mirror",
        "backoffice",
        "sandbox",
    )
    code = f"import sys, {module}; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({project!r})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "[]"


def test_commands_reach_the_mounted_sandbox_in_process_when_no_server_listens(settings):
    """manage.py sets PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED: `sync_mirror` without `make run`."""
    import socket

    import httpx

    from upstream import client as upstream

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nobody listens there
    settings.SANDBOX_MOUNTED = True
    settings.PAYMENTS_API_IN_PROCESS = False
    settings.PAYMENTS_API_BASE_URL = f"http://127.0.0.1:{port}/sandbox"
    try:
        settings.PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED = False  # a server or a worker: over the network
        assert not isinstance(upstream.get_client()._http._transport, httpx.WSGITransport)
        settings.PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED = True
        assert isinstance(upstream.get_client()._http._transport, httpx.WSGITransport)
        with socket.socket() as server:  # a server at that address: the command talks to it
            server.bind(("127.0.0.1", 0))
            server.listen()
            settings.PAYMENTS_API_BASE_URL = f"http://127.0.0.1:{server.getsockname()[1]}/sandbox"
            assert not isinstance(upstream.get_client()._http._transport, httpx.WSGITransport)
        settings.PAYMENTS_API_BASE_URL = "https://api.example.com"  # never for a remote upstream
        assert not isinstance(upstream.get_client()._http._transport, httpx.WSGITransport)
    finally:
        upstream._nobody_serves.cache_clear()
        upstream._shared_client.cache_clear()


def test_manage_py_commands_ask_for_it():
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED"}
    ran = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from django.conf import settings as s; print(s.PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED)",
        ],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.stdout.strip().splitlines()[-1] == "True", ran.stderr[-2000:]
