"""Through gunicorn itself, with production settings on plain HTTP: a probe by IP gets 200 from
/healthz, and HEAD answers carry no body, so the next answer on a kept-alive connection is
read whole. Runs anywhere: the database is a new SQLite file (the probe needs no table)."""

import http.client
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import PYTHON, ROOT, free_port, start, stop, wait_for

pytestmark = pytest.mark.slow


def start_gunicorn(tmp: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {
        "DEBUG": "0",
        "SECRET_KEY": "probe-test-" + "y" * 50,
        "ALLOWED_HOSTS": "backoffice.example.com",
        "DATABASE_URL": f"sqlite:///{tmp / 'probe.sqlite3'}",
        "CELERY_BROKER_URL": "",
        "PAYMENTS_API_BASE_URL": "https://api.payments.example.invalid",
        "PAYMENTS_API_KEY": "pk_probe_test",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        # No static files were collected for this test (the image collects them at build time).
        "PYTHONWARNINGS": "ignore:No directory at",
        "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    process = start([str(ROOT / "deploy" / "run"), "web"], env)

    def answers():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return process.poll() is not None  # died: the log says why

    wait_for(answers, timeout=30, what="gunicorn to listen")
    assert process.poll() is None, stop(process)
    return process, port


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    process, port = start_gunicorn(tmp_path_factory.mktemp("gunicorn"))
    yield {"port": port}
    stop(process)


def _read_head(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def test_a_probe_by_ip_over_plain_http_gets_200(gunicorn):
    conn = http.client.HTTPConnection("127.0.0.1", gunicorn["port"], timeout=10)
    conn.request("GET", "/healthz", headers={"Host": f"127.0.0.1:{gunicorn['port']}"})
    response = conn.getresponse()
    assert response.status == 200
    assert json.loads(response.read())["database"] == "ok"
    conn.close()


def test_head_sends_no_body_and_the_next_answer_on_the_connection_is_whole(gunicorn):
    request = b" /healthz HTTP/1.1\r\nHost: 10.0.3.7\r\n\r\n"
    with socket.create_connection(("127.0.0.1", gunicorn["port"]), timeout=5) as sock:
        sock.sendall(b"HEAD" + request)
        head = _read_head(sock)
        assert head.startswith(b"HTTP/1.1 200"), head
        assert head.endswith(b"\r\n\r\n"), "a body followed the HEAD answer's headers"
        assert b"connection: close" not in head.lower()
        sock.settimeout(0.5)
        with pytest.raises(TimeoutError):
            sock.recv(1)  # nothing more is sent
        sock.settimeout(5)
        sock.sendall(b"GET" + request)
        time.sleep(0.2)
        answer = _read_head(sock)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_a_kept_alive_client_reads_every_answer_after_head(gunicorn):
    conn = http.client.HTTPConnection("127.0.0.1", gunicorn["port"], timeout=10)
    for method in ("HEAD", "GET", "HEAD", "GET"):
        conn.request(method, "/healthz", headers={"Host": "10.0.3.7"})
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200
        assert (body == b"") == (method == "HEAD")
        if method == "GET":
            assert json.loads(body)["database"] == "ok"
    conn.close()


def test_every_line_is_json_with_one_access_line_per_request(tmp_path):
    process, port = start_gunicorn(tmp_path)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for method, path in (("GET", "/healthz"), ("HEAD", "/healthz"), ("POST", "/healthz")):
            headers = {
                "Host": "backoffice.example.com",
                "X-Forwarded-Proto": "https",
                "X-Request-ID": f"probe-{method}-0001",
            }
            conn.request(method, path, headers=headers)
            conn.getresponse().read()
        conn.close()
    finally:
        log = stop(process)
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]  # every line JSON
    started = [line["event"] for line in lines if line["logger"] == "gunicorn.error"]
    assert any(event.startswith("Starting gunicorn") for event in started), started
    assert any(event.startswith("Booting worker") for event in started), started
    assert not [line for line in lines if line["logger"] == "gunicorn.access"]  # ours only, not twice
    access = [line for line in lines if line["logger"] == "backoffice.access"]
    assert [(a["method"], a["path"], a["status"]) for a in access] == [
        ("GET", "/healthz", 200),
        ("HEAD", "/healthz", 200),
        ("POST", "/healthz", 405),
    ]
    assert [a["request_id"] for a in access] == ["probe-GET-0001", "probe-HEAD-0001", "probe-POST-0001"]
    refused = next(line for line in lines if line["logger"] == "django.request")
    assert refused["event"].startswith("Method Not Allowed") and refused["request_id"] == "probe-POST-0001"
