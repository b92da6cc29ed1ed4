"""Parts of the installation made unreachable for a test, the way an outage looks to the
process: a database whose connections fail, a Redis at an address where nothing listens."""

import contextlib
import socket
from unittest import mock

from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper


@contextlib.contextmanager
def database_down():
    """Every new cursor fails as psycopg's and sqlite's do when the server is gone."""
    with mock.patch.object(BaseDatabaseWrapper, "cursor", side_effect=OperationalError("connection refused")):
        yield


def closed_port() -> int:
    """A loopback port where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_away_url() -> str:
    return f"redis://127.0.0.1:{closed_port()}/0"
