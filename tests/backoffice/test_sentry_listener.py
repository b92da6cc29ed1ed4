"""Sentry as it receives events: a local listener on loopback takes the envelopes a real
process sends (SENTRY_DSN pointing at it) while the database is unreachable. One failure is one
event, and no password, cookie or session value leaves the process."""

import gzip
import http.server
import json
import os
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest

from tests.backoffice.outages import closed_port

ROOT = Path(__file__).resolve().parents[2]
DB_PASSWORD = "S3cret-db-passw0rd-never-sent"
SESSION = "sessionvalue0never0sent0abcdefgh"
CSRF = "csrfvalue0never0sent0abcdefghijklmno"
STAFF_PASSWORD = "staff-password-never-sent-42"


class Listener(http.server.BaseHTTPRequestHandler):
    envelopes: list[bytes]

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        elif encoding == "br":
            import brotli

            body = brotli.decompress(body)
        self.server.envelopes.append(body)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def sentry_listener():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    server.envelopes = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def events(envelopes: list[bytes]) -> list[dict]:
    """The event items of the envelopes (a header line, then item header and payload pairs)."""
    found = []
    for envelope in envelopes:
        lines = envelope.split(b"\n")
        for header, payload in zip(lines[1::2], lines[2::2], strict=False):
            if json.loads(header).get("type") == "event":
                found.append(json.loads(payload))
    return found


# A login POST through the WSGI application, as gunicorn hands it over, with a session and a
# CSRF cookie; then whatever Sentry queued is sent.
# The secrets come from the environment: on the command line they would be in the event's
# sys.argv, which is the test's doing, not the application's.
SCRIPT = """
import os

import sentry_sdk
from django.core.wsgi import get_wsgi_application
from django.test import RequestFactory

request = RequestFactory().post(
    "/accounts/login/",
    {"login": "ada", "password": os.environ["PROBE_PASSWORD"]},
    HTTP_COOKIE=f"sessionid={os.environ['PROBE_SESSION']}; csrftoken={os.environ['PROBE_CSRF']}",
)
statuses = []
body = get_wsgi_application()(request.environ, lambda status, headers, exc_info=None: statuses.append(status))
b"".join(body)
body.close()
sentry_sdk.flush(timeout=10)
print(statuses[0])
"""


def test_a_database_failure_sends_one_event_without_secrets(sentry_listener):
    port = sentry_listener.server_address[1]
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")},
        "DEBUG": "0",
        "SECRET_KEY": "sentry-listener-test-" + "z" * 50,
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "0",
        "PAYMENTS_API_BASE_URL": "https://api.payments.example.invalid",
        "PAYMENTS_API_KEY": "pk_sentry_test",
        # PostgreSQL at a port where nothing listens, with a password in the URL.
        "DATABASE_URL": f"postgres://backoffice:{DB_PASSWORD}@127.0.0.1:{closed_port()}/backoffice",
        "SENTRY_DSN": f"http://publickey@127.0.0.1:{port}/1",
        "PYTHONWARNINGS": "ignore",
        "PROBE_PASSWORD": STAFF_PASSWORD,
        "PROBE_SESSION": SESSION,
        "PROBE_CSRF": CSRF,
    }
    ran = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.strip().splitlines()[-1].startswith("503")  # core.views.server_error

    sent = events(sentry_listener.envelopes)
    raw = b"".join(sentry_listener.envelopes).decode(errors="replace")
    assert len(sent) == 1, [e.get("exception", {}).get("values", [{}])[-1].get("type") for e in sent]
    assert sent[0]["exception"]["values"][-1]["type"] == "OperationalError"
    for secret in (DB_PASSWORD, SESSION, CSRF, STAFF_PASSWORD):
        assert secret not in raw, f"{secret} reached Sentry"
