import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def answers(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def services_available() -> bool:
    return (
        bool(os.environ.get("CELERY_BROKER_URL"))
        and settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
        and answers(6379)
        and answers(5432)
    )


requires_services = pytest.mark.skipif(
    not services_available(), reason="needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL), as CI has"
)


def database_url() -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start(args: list[str], env: dict) -> subprocess.Popen:
    """A child process of this test, in its own process group so that it is stopped whole."""
    return subprocess.Popen(
        args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen) -> str:
    """SIGTERM to the group's leader only: gunicorn's master and Celery's main process stop
    their children themselves, letting a running task finish (a SIGTERM to a pool child in the
    middle of a task is a WorkerLostError). What is left after 20 s is killed."""
    import signal

    try:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
    return out.decode(errors="replace")


def wait_for(predicate, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


PYTHON = sys.executable
