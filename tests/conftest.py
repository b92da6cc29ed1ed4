import os
import time

import httpx
import pytest
from django.contrib.auth.models import Group, Permission

from core.access import Role, sync_role_groups

# Playwright's sync API runs an event loop in the test thread; Django must still allow ORM calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROLES = [role.value for role in Role]


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def role_group(role: str) -> Group:
    """The role's group. The migrations make the groups and a flush remakes them (post_migrate:
    core.access); they are synced again only where a test removed one (one query, not fifteen)."""
    try:
        return Group.objects.get(name=role)
    except Group.DoesNotExist:
        sync_role_groups(Group, Permission)
        return Group.objects.get(name=role)


@pytest.fixture
def make_staff(db, django_user_model):
    """make_staff("operations") -> a user in that role (password: 'correct horse battery')."""

    def make(role: str | None, username: str | None = None):
        user = django_user_model.objects.create_user(
            username=username or f"{role or 'norole'}-user", password="correct horse battery"
        )
        if role:
            user.groups.add(role_group(role))
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


def signed_in(user):
    """A test client of its own, logged in as `user` who has just proved who they are: several
    members in one test (a maker and a checker)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    authenticated_now(client, user)
    return client


def authenticated_now(client, user=None) -> None:
    """Record in the client's session that `user` (by default the one logged in) has just proved
    who they are, as allauth's login does: pages under core.access.recent_auth_required then open
    without asking again."""
    session = client.session
    if user is None:
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.get(pk=session["_auth_user_id"])
    session["account_authentication_methods"] = [{"method": "password", "at": time.time(), "username": user.username}]
    session["account_authentication_methods_user"] = str(user.pk)
    session.save()


@pytest.fixture
def client_as(client, make_staff):
    """client_as("auditor") -> the test client logged in (just now) as a new user of that role."""

    def login(role: str | None):
        user = make_staff(role)
        client.force_login(user)
        authenticated_now(client, user)
        return client

    return login


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
    """The sandbox as the upstream, failing or answering otherwise on command (tests/faulty_api.py):
    `faulty_upstream.fail("down")`, `faulty_upstream.answer(api_error(400, "BAD_REQUEST", ...))`."""
    from tests.faulty_api import FaultyUpstream
    from upstream.client import override_client

    faulty = FaultyUpstream(upstream.plain_key)
    faulty.sandbox = upstream
    with override_client(faulty.client):
        yield faulty


class LiveSandbox(Sandbox):
    """The sandbox the live server mounts, reached over HTTP: `call` and the test `helper`s
    under the back-office's own key."""

    def __init__(self, base_url: str, plain_key: str, key):
        self.key, self.plain_key = key, plain_key
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {plain_key}"})


@pytest.fixture
def sandbox(live_server, settings):
    """The back-office pointed at the live server's sandbox over HTTP. Reviews wait for a test
    to decide them (the review helper)."""
    from sandbox.auth import create_key

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600
    key, plain = create_key()
    settings.PAYMENTS_API_BASE_URL = f"{live_server.url}/sandbox"
    settings.PAYMENTS_API_KEY = plain
    settings.PAYMENTS_API_IN_PROCESS = False
    over_http = LiveSandbox(settings.PAYMENTS_API_BASE_URL, plain, key)
    with over_http.http:
        yield over_http


@pytest.fixture
def racing(sandbox, live_server):
    """The race harness (tests/race.py): members of staff sending requests at once to the live
    server, whose sandbox is the upstream over HTTP. Needs `django_db(transaction=True)`."""
    from tests.race import BreakerPerThread, Racing
    from upstream.client import get_client

    get_client().breaker = BreakerPerThread()
    harness = Racing(live_server, sandbox)
    try:
        yield harness
    finally:
        harness.close()
