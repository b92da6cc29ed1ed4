"""Fixtures of every test of the project, under tests/ and sandbox/tests/ alike; and what makes
the suite safe to run in parallel (pytest-xdist: `pytest -n 2`)."""

import contextlib
import os
import re
import tempfile

import pytest
from celery._state import _set_task_join_will_block
from django.core.cache import caches
from django.db import connections

from backoffice.celery import app as celery_app

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pytest_make_parametrize_id(config, val, argname):
    """Parameters made with uuid4() get the same test id in every process: pytest-xdist's
    workers must collect the same tests. (pytest numbers ids that end up equal.)"""
    if isinstance(val, str) and UUID.search(val):
        return UUID.sub("<uuid>", val)
    return None


def pytest_configure(config):
    """Each xdist worker (gw0, gw1, ...) has a Redis database of its own as broker and cache
    where a test uses a real one: the broker's database for gw0, the ones below it for the
    others (CI's /15: gw0 /15, gw1 /14). A worker started by one test then never takes the
    tasks another test queued, and a purge empties only its own queue. pytest-django already
    gives each worker its own test database, the live server and the test identity provider
    take a free port each."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not worker.startswith("gw") or not broker.startswith(("redis://", "rediss://")):
        return
    from django.conf import settings

    base, _, db = broker.rpartition("/")
    if not db.isdigit():
        base, db = broker.rstrip("/"), "0"
    own = f"{base}/{(int(db) - int(worker[2:])) % 16}"
    os.environ["CELERY_BROKER_URL"] = own  # for the processes the integration tests start
    settings.CELERY_BROKER_URL = own
    celery_app.conf.broker_url = own
    cache = settings.CACHES["default"]
    if cache.get("LOCATION") == broker:
        cache["LOCATION"] = own


def pytest_sessionfinish(session):
    """SQLite's test database is a file in the temporary directory (backoffice/settings.py):
    pytest-django removes it, and here its write-ahead log and shared-memory files go too,
    which a connection still open in a live-server thread would otherwise leave behind."""
    from django.conf import settings

    if not settings.configured:
        return
    database = settings.DATABASES["default"]
    name = str(database.get("TEST", {}).get("NAME") or "")
    if database["ENGINE"].endswith("sqlite3") and name.startswith(tempfile.gettempdir()) and not os.path.exists(name):
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(name + suffix)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and at the end no other session left on it: a live-server
    thread held open by a keep-alive client (the back-office's own API client calling the
    mounted sandbox) may still hold a connection, and PostgreSQL then refuses to drop the
    database, after a five-second wait."""
    yield
    with django_db_blocker.unblock():
        for conn in connections.all():
            if conn.vendor == "postgresql":
                with conn.cursor() as cursor:
                    cursor.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )


@pytest.fixture(autouse=True)
def _empty_cache(settings):
    """Nothing cached leaks from one test into the next (the upstream banner, counts). Each
    test has a cache of its own process even where a broker makes Redis the shared cache:
    clearing that would empty the broker's database under a running worker."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "local"},
    }
    for alias in settings.CACHES:
        caches[alias].clear()


@pytest.fixture(autouse=True)
def _eager_celery():
    """Unit tests run tasks in-process; the integration tests start real workers. Each test
    starts outside any worker: Celery keeps "joining a result would block" as a process-wide
    flag, which its own testing worker also resets when it stops."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    _set_task_join_will_block(False)
    yield
    celery_app.conf.task_always_eager = previous
    _set_task_join_will_block(False)


@pytest.fixture
def in_process(settings, monkeypatch):
    """Requests into this project through WSGI, in the test's thread and transaction.

    A raw WSGI call fires request_started/finished, whose close_old_connections would close
    the test's connection inside its transaction (Django's test client unhooks it only around
    its own requests). Here the connection ignores that call for the whole test. Webhook
    deliveries of the sandbox go in-process too: no test reaches the network.
    """
    settings.SANDBOX_WEBHOOK_IN_PROCESS = True
    for connection in connections.all():
        monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: None)
