import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent


def login(client, username, password, address="10.0.0.1"):
    return client.post(reverse("account_login"), {"login": username, "password": password}, REMOTE_ADDR=address)


def test_login_page_renders(client):
    response = client.get(reverse("account_login"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="login"' in html
    assert 'name="password"' in html
    # The back-office's own layout and static files, nothing from elsewhere.
    assert '<link rel="stylesheet" href="/static/css/app.css">' in html
    assert "https://" not in html


@pytest.mark.parametrize(("old", "new"), [("/login/", "/accounts/login/"), ("/logout/", "/accounts/logout/")])
def test_old_login_addresses_move_to_the_new_ones(client, old, new):
    response = client.get(f"{old}?next=/payments/")
    assert response.status_code == 308
    assert response["Location"] == f"{new}?next=/payments/"


def test_good_login_goes_home_and_is_audited(client, operations_user):
    response = login(client, "operations-user", "correct horse battery")
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    event = AuditEvent.objects.get(action="auth.login")
    assert event.actor == operations_user


@pytest.mark.parametrize(("username", "password"), [("operations-user", "wrong"), ("nobody", "wrong")])
def test_bad_login_shows_one_generic_message(client, operations_user, username, password):
    response = login(client, username, password)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count("Wrong username or password.") == 1
    assert "inactive" not in html


def test_five_failures_lock_the_user_at_that_address_for_15_minutes(client, operations_user):
    for _ in range(5):
        login(client, "operations-user", "wrong")
    locked = login(client, "operations-user", "correct horse battery")
    assert locked.status_code == 429
    assert "After too many wrong passwords for this account from this address" in locked.content.decode()
    assert "locked at this address until" in locked.content.decode()
    # The same user from another address is not locked out.
    other = login(Client(), "operations-user", "correct horse battery", address="10.0.0.2")
    assert other.status_code == 302


def test_lockout_cooloff_is_15_minutes():
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME.total_seconds() == 15 * 60


def test_logout_needs_post_and_ends_the_session(client, operations_user):
    client.force_login(operations_user)
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 302
    assert AuditEvent.objects.filter(action="auth.logout", actor=operations_user).count() == 1


def test_post_without_csrf_token_is_refused(operations_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(operations_user)
    response = client.post(reverse("account_logout"))
    assert response.status_code == 403
    assert "security token" in response.content.decode()


def test_htmx_requests_carry_the_csrf_token(client, operations_user):
    client.force_login(operations_user)
    html = client.get(reverse("home")).content.decode()
    assert "hx-headers='{&quot;X-CSRFToken&quot;" in html or 'hx-headers=\'{"X-CSRFToken"' in html


def test_sessions_expire_after_30_minutes_idle(client, operations_user, monkeypatch):
    assert settings.STAFF_IDLE_MINUTES == 30
    assert settings.SESSION_COOKIE_AGE == 30 * 60
    assert settings.SESSION_COOKIE_HTTPONLY is True
    client.force_login(operations_user)
    session_key = client.session.session_key
    from django.contrib.sessions.models import Session

    def expiry():
        return Session.objects.get(session_key=session_key).expire_date

    client.get(reverse("home"))
    first = expiry()
    # Within a minute the session is not written again; after that its expiry moves on.
    client.get(reverse("home"))
    assert expiry() == first
    import time

    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    client.get(reverse("home"))
    assert expiry() > first


def test_htmx_is_served_from_our_own_static_files(client, operations_user):
    client.force_login(operations_user)
    html = client.get(reverse("home")).content.decode()
    assert '<script src="/static/django_htmx/htmx-2.min.js"' in html
    assert "https://" not in html


def test_nobody_signs_themselves_up(client, django_user_model):
    page = client.get(reverse("account_signup"))
    assert "Sign Up Closed" in page.content.decode()
    client.post(reverse("account_signup"), {"username": "intruder", "password1": "x" * 20, "password2": "x" * 20})
    assert not django_user_model.objects.filter(username="intruder").exists()


@pytest.mark.parametrize(
    "name", ["mfa_index", "mfa_activate_totp", "account_reauthenticate", "account_change_password"]
)
def test_allauths_own_pages_need_a_login(client, db, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_a_session_ended_during_a_request_is_said_in_words(rf):
    from django.contrib.sessions.exceptions import SessionInterrupted

    from core.views import bad_request

    ended = bad_request(rf.post("/staff/1/roles"), SessionInterrupted())
    assert ended.status_code == 400
    assert "You were signed out while this request was on its way" in ended.content.decode()
    assert "malformed" not in ended.content.decode()
    other = bad_request(rf.get("/"), None)
    assert "It was malformed or too large" in other.content.decode()


def test_a_deactivated_member_with_the_right_password_is_told_to_ask_an_admin(client, operations_user):
    operations_user.is_active = False
    operations_user.save()
    response = login(client, "operations-user", "correct horse battery")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Your access to the back-office was ended. Ask an admin if you need it again." in html
    assert "Wrong username or password." not in html
    assert client.get(reverse("home")).status_code == 302  # not signed in


@pytest.mark.parametrize(("username", "password"), [("operations-user", "wrong"), ("nobody", "correct horse battery")])
def test_a_deactivated_member_is_not_revealed_without_the_password(client, operations_user, username, password):
    operations_user.is_active = False
    operations_user.save()
    html = login(client, username, password).content.decode()
    assert html.count("Wrong username or password.") == 1
    assert "access" not in html.split('role="alert"')[1].split("</p>")[0]


def _logged_in_naming(client, member, backend: str) -> None:
    """`member` logged in, by a session that names `backend` as the one that did it."""
    client.force_login(member, backend="staff.auth.RoleBackend")
    session = client.session
    session[BACKEND_SESSION_KEY] = backend
    session.save()


def test_a_session_opened_when_the_backend_lived_in_core_stays_logged_in(client, operations_user):
    """Sessions name their backend's path; the role backend moved from core to staff, and the
    sessions of before the deploy keep working (and are pointed at the new place)."""
    _logged_in_naming(client, operations_user, "core.auth.RoleBackend")
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert response.wsgi_request.user == operations_user
    assert client.session[BACKEND_SESSION_KEY] == "staff.auth.RoleBackend"


def test_a_session_naming_an_unknown_backend_is_still_logged_out(client, operations_user):
    _logged_in_naming(client, operations_user, "somewhere.else.Backend")
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response.wsgi_request.user.is_anonymous
