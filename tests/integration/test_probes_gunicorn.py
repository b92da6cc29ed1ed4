"""Through gunicorn itself, with production settings on plain HTTP: a probe by IP gets 200 from
/healthz, and HEAD answers carry no body, so the next answer on a kept-alive connection is
read whole. Runs anywhere: the database is a new SQLite file (the probe needs no table)."""

import http.client
import json
import os
import socket
import time
from pathlib import Path

import pytest

from .conftest import PYTHON, ROOT, start, stop, wait_for

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gunicorn")
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
    server = {"port": port, "log": ""}
    yield server
    server["log"] = stop(process)


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
