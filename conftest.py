"""Fixtures of every test of the project, under tests/ and sandbox/tests/ alike."""

import pytest
from celery._state import _set_task_join_will_block
from django.core.cache import cache
from django.db import connections

from backoffice.celery import app as celery_app


@pytest.fixture(autouse=True)
def _empty_cache(settings):
    """Nothing cached leaks from one test into the next (the upstream banner, counts). Each
    test has a cache of its own process even where a broker makes Redis the shared cache:
    clearing that would empty the broker's database under a running worker."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()


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
