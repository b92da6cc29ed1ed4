"""Sessions end after STAFF_IDLE_MINUTES idle; staff changes (and, through the same
core.access.recent_auth_required, moving money and approving) ask for the password or the
second factor again when the last check is older than STAFF_REAUTH_MINUTES."""

import datetime as dt
import time

import pytest
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from core.access import roles_of
from tests.totp import totp_code

PASSWORD = "correct horse battery"


def login(client, user):
    response = client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    assert response.status_code == 302
    return response


@pytest.fixture
def member(make_staff):
    return make_staff("auditor", username="a-member")


def test_the_limits():
    assert settings.STAFF_REAUTH_MINUTES == 10
    assert settings.ACCOUNT_REAUTHENTICATION_TIMEOUT == 600


def test_right_after_login_staff_changes_need_nothing_more(client, admin_user, member):
    login(client, admin_user)
    url = reverse("staff-change-staff-roles", kwargs={"pk": member.pk})
    assert client.get(url).status_code == 200
    assert client.post(url, {"roles": ["compliance"]}).status_code == 302
    assert roles_of(member) == ["compliance"]


def test_after_ten_minutes_the_password_is_asked_again_and_the_change_goes_through(
    client, admin_user, member, monkeypatch
):
    login(client, admin_user)
    later = time.time() + 10 * 60 + 1
    monkeypatch.setattr(time, "time", lambda: later)
    url = reverse("staff-change-staff-roles", kwargs={"pk": member.pk})
    asked = client.post(url, {"roles": ["operations"]})
    assert asked.status_code == 302
    assert asked["Location"] == f"{reverse('account_reauthenticate')}?next={url.replace('/', '%2F')}"
    assert roles_of(member) == ["auditor"]
    page = client.get(asked["Location"])
    assert page.status_code == 200 and 'name="password"' in page.content.decode()

    wrong = client.post(asked["Location"], {"password": "not it"})
    assert wrong.status_code == 200
    assert roles_of(member) == ["auditor"]
    # The right password sends the change that was kept: nothing typed is lost.
    done = client.post(asked["Location"], {"password": PASSWORD})
    assert done.status_code == 302
    assert done["Location"] == reverse("staff-view-staff", kwargs={"pk": member.pk})
    assert roles_of(member) == ["operations"]


def test_a_session_made_without_a_check_is_asked(client, admin_user, member):
    client.force_login(admin_user)
    response = client.get(reverse("staff-deactivate-staff", kwargs={"pk": member.pk}))
    assert response["Location"].startswith(reverse("account_reauthenticate"))


def test_without_a_password_the_second_factor_is_asked(client, admin_user, member, monkeypatch):
    """Staff of single sign-on have no password here: their TOTP code re-authenticates them."""
    secret = generate_totp_secret()
    TOTP.activate(admin_user, secret)
    admin_user.set_unusable_password()
    admin_user.save()
    client.force_login(admin_user)
    url = reverse("staff-reset-staff-mfa", kwargs={"pk": member.pk})
    asked = client.get(url)
    assert asked["Location"].startswith(reverse("mfa_reauthenticate"))
    done = client.post(asked["Location"], {"code": totp_code(secret)})
    assert done["Location"] == url
    assert client.get(url).status_code == 200


def test_recent_auth_required_under_role_required(rf, admin_user, make_staff):
    """Other apps' views use it the same way: the role first (403), then the recent check."""
    from allauth.core.exceptions import ReauthenticationRequired
    from django.contrib.sessions.backends.db import SessionStore
    from django.http import HttpResponse

    from core.access import RoleRequired, recent_auth_required, role_required

    @role_required("move_money")
    @recent_auth_required
    def execute(request):
        return HttpResponse("done")

    assert execute.required_permission == "move_money"
    request = rf.post("/")
    request.session = SessionStore()
    request.user = make_staff("auditor")
    with pytest.raises(RoleRequired):
        execute(request)
    request.user = make_staff("operations")
    with pytest.raises(ReauthenticationRequired):
        execute(request)
    request.session["account_authentication_methods"] = [{"method": "password", "at": time.time()}]
    request.session["account_authentication_methods_user"] = str(request.user.pk)
    assert execute(request).content == b"done"


def test_idle_sessions_end_after_30_minutes(client, operations_user, monkeypatch):
    login(client, operations_user)
    assert client.get(reverse("home")).status_code == 200
    idle = timezone.now() + dt.timedelta(minutes=settings.STAFF_IDLE_MINUTES, seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: idle)
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_an_active_session_lives_on(client, operations_user, monkeypatch):
    login(client, operations_user)
    now, start = time.time(), timezone.now()
    for minutes in (20, 40, 60):
        # A page every 20 minutes: the expiry moves on each time.
        monkeypatch.setattr(time, "time", lambda m=minutes: now + m * 60)
        monkeypatch.setattr(timezone, "now", lambda at=start + dt.timedelta(minutes=minutes): at)
        assert client.get(reverse("home")).status_code == 200, minutes
