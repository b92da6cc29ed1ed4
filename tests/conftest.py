import os

import pytest
from django.contrib.auth.models import Group, Permission

from core.roles import Role, sync_role_groups

# Playwright's sync API runs an event loop in the test thread; Django must still allow ORM calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROLES = [role.value for role in Role]


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _empty_cache():
    """Nothing cached leaks from one test into the next (the upstream banner, counts)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _eager_celery():
    """Unit tests run tasks in-process; the integration tests start real workers."""
    from backoffice.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def make_staff(db, django_user_model):
    """make_staff("operations") -> a user in that role (password: 'correct horse battery')."""

    def make(role: str | None, username: str | None = None):
        # Transactional tests flush the groups the data migration made: make sure they exist.
        sync_role_groups(Group, Permission)
        user = django_user_model.objects.create_user(
            username=username or f"{role or 'norole'}-user", password="correct horse battery"
        )
        if role:
            user.groups.add(Group.objects.get(name=role))
        return user

    return make


@pytest.fixture
def compliance_user(make_staff):
    return make_staff("compliance")


@pytest.fixture
def operations_user(make_staff):
    return make_staff("operations")


@pytest.fixture
def admin_user(make_staff):
    return make_staff("admin")


@pytest.fixture
def auditor_user(make_staff):
    return make_staff("auditor")


@pytest.fixture
def client_as(client, make_staff):
    """client_as("auditor") -> the test client logged in as a new user of that role."""

    def login(role: str | None):
        client.force_login(make_staff(role))
        return client

    return login


@pytest.fixture
def in_process(settings, monkeypatch):
    """Requests into this project through WSGI, in the test's thread and transaction.

    A raw WSGI call fires request_started/finished, whose close_old_connections would close
    the test's connection inside its transaction (Django's test client unhooks it only around
    its own requests). Here the connection ignores that call for the whole test. Webhook
    deliveries of the sandbox go in-process too: no test reaches the network.
    """
    from django.db import connections

    settings.SANDBOX_WEBHOOK_IN_PROCESS = True
    for connection in connections.all():
        monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: None)


class Sandbox:
    """The sandbox as the back-office's upstream: its key, and its test helpers over HTTP."""

    def __init__(self, plain_key: str, key):
        import httpx
        from django.core.wsgi import get_wsgi_application

        self.key, self.plain_key = key, plain_key
        self.http = httpx.Client(
            transport=httpx.WSGITransport(app=get_wsgi_application()),
            base_url="http://testserver/sandbox",
            headers={"Authorization": f"Bearer {plain_key}"},
        )

    def call(self, method: str, path: str, body: dict | None = None, **kwargs) -> dict:
        response = self.http.request(method, path, json=body, **kwargs)
        assert response.is_success, (method, path, response.status_code, response.text)
        return response.json() if response.content else {}

    def helper(self, path: str, body: dict | None = None) -> dict:
        return self.call("POST", f"/test-helpers/{path}", body or {})


@pytest.fixture
def upstream(db, settings, in_process):
    """Point the back-office at the mounted sandbox, in-process, with a fresh API key."""
    from sandbox.auth import create_key

    key, plain = create_key()
    settings.PAYMENTS_API_KEY = plain
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    settings.PAYMENTS_API_IN_PROCESS = True
    return Sandbox(plain, key)


@pytest.fixture
def faulty_upstream(upstream):
    """The sandbox as the upstream, failing or answering otherwise on command (tests/upstream.py):
    `faulty_upstream.fail("down")`, `faulty_upstream.answer(api_error(400, "BAD_REQUEST", ...))`."""
    from core.upstream import override_client
    from tests.upstream import FaultyUpstream

    faulty = FaultyUpstream(upstream.plain_key)
    faulty.sandbox = upstream
    with override_client(faulty.client):
        yield faulty
