"""The second factor: enrolment forced where STAFF_MFA_REQUIRED is on, TOTP and recovery codes
at login, and nobody removes their last factor while it is required."""

import pytest
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests.backoffice.test_settings import PRODUCTION, manage
from tests.totp import secret_on_page, totp_code

PASSWORD = "correct horse battery"


@pytest.fixture
def mfa_required(settings):
    settings.STAFF_MFA_REQUIRED = True


def login(client, user):
    return client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})


def enrol(client) -> str:
    """Activate TOTP through allauth's page; returns the secret."""
    page = client.get(reverse("mfa_activate_totp"))
    assert page.status_code == 200
    secret = secret_on_page(page.content.decode())
    done = client.post(reverse("mfa_activate_totp"), {"code": totp_code(secret)})
    assert done.status_code == 302, done.content.decode()[:2000]
    assert done["Location"] == reverse("mfa_view_recovery_codes")
    return secret


def test_required_by_default_when_debug_is_off():
    result = manage(
        "shell", "-c", "from django.conf import settings; print(settings.STAFF_MFA_REQUIRED)", env=PRODUCTION
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "True"


def test_not_required_in_development_so_demo_users_log_in_with_a_password():
    # The test run uses the development default (DEBUG unset): `make run`'s demo users too.
    assert settings.STAFF_MFA_REQUIRED is False


def test_without_a_second_factor_every_staff_page_sends_to_enrolment(mfa_required, client, make_staff):
    user = make_staff("admin")
    assert login(client, user)["Location"] == reverse("home")
    for name in ("home", "staff-list-staff", "audit-list-events", "customers-list-customers"):
        response = client.get(reverse(name))
        assert response.status_code == 302, name
        assert response["Location"] == reverse("mfa_index"), name
    # allauth's pages stay open: enrolment, and the way out.
    enrolment = client.get(reverse("mfa_index"))
    assert enrolment.status_code == 200
    assert "Set up a second factor" in enrolment.content.decode()
    assert "needs a second factor of every staff member" in enrolment.content.decode()
    assert client.post(reverse("account_logout")).status_code == 302


def test_enrol_totp_then_reach_the_pages(mfa_required, client, make_staff):
    user = make_staff("operations")
    login(client, user)
    enrol(client)
    assert Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists()
    codes = client.get(reverse("mfa_view_recovery_codes"))
    assert codes.status_code == 200
    assert "Continue to the back-office" in codes.content.decode()
    assert client.get(reverse("home")).status_code == 200


def test_staff_with_an_email_address_enrol_too(mfa_required, client, make_staff):
    user = make_staff("operations")
    user.email = "ops@example.com"
    user.save()
    login(client, user)
    enrol(client)
    assert client.get(reverse("home")).status_code == 200


def test_a_wrong_code_does_not_enrol(mfa_required, client, make_staff):
    user = make_staff("operations")
    login(client, user)
    client.get(reverse("mfa_activate_totp"))
    response = client.post(reverse("mfa_activate_totp"), {"code": "000000"})
    assert response.status_code == 200
    assert "Incorrect code" in response.content.decode()
    assert not Authenticator.objects.filter(user=user).exists()


def test_login_asks_for_the_code_once_enrolled(client, make_staff):
    user = make_staff("compliance")
    login(client, user)
    secret = enrol(client)
    client.post(reverse("account_logout"))
    cache.clear()  # a TOTP code works once per 30 s: forget the one used to enrol

    fresh = Client()
    response = login(fresh, user)
    assert response["Location"] == reverse("mfa_authenticate")
    assert fresh.get(reverse("home")).status_code == 302  # not signed in yet
    prompt = fresh.get(reverse("mfa_authenticate")).content.decode()
    assert "One of your recovery codes works too" in prompt.split('id="recovery-code-hint"')[1]
    wrong = fresh.post(reverse("mfa_authenticate"), {"code": "000000"})
    assert "Incorrect code" in wrong.content.decode()
    right = fresh.post(reverse("mfa_authenticate"), {"code": totp_code(secret)})
    assert right["Location"] == reverse("home")
    assert fresh.get(reverse("home")).status_code == 200


def test_a_recovery_code_replaces_the_app_once(client, make_staff):
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    user = make_staff("compliance")
    login(client, user)
    enrol(client)
    code = RecoveryCodes(
        Authenticator.objects.get(user=user, type=Authenticator.Type.RECOVERY_CODES)
    ).get_unused_codes()[0]
    client.post(reverse("account_logout"))

    for attempt, expected in ((1, reverse("home")), (2, None)):
        other = Client()
        login(other, user)
        response = other.post(reverse("mfa_authenticate"), {"code": code})
        if expected:
            assert response["Location"] == expected, attempt
        else:
            assert response.status_code == 200 and "Incorrect code" in response.content.decode()


def test_the_last_factor_cannot_be_removed_while_required(mfa_required, client, make_staff):
    user = make_staff("auditor")
    login(client, user)
    enrol(client)
    response = client.post(reverse("mfa_deactivate_totp"))
    assert response.status_code == 200
    assert "You cannot deactivate two-factor authentication." in response.content.decode()
    assert Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists()


def test_enrolment_is_audited(client, make_staff, django_capture_on_commit_callbacks):
    from audit.models import AuditEvent

    user = make_staff("auditor")
    login(client, user)
    with django_capture_on_commit_callbacks(execute=True):  # allauth signals after the commit
        enrol(client)
    assert set(
        AuditEvent.objects.filter(action="auth.mfa_added", actor=user).values_list("details__type", flat=True)
    ) == {
        "totp",
        "recovery_codes",
    }


def test_an_admins_reset_sends_them_to_enrol_again(mfa_required, client, make_staff):
    from staff.services import reset_second_factor

    user = make_staff("auditor")
    login(client, user)
    enrol(client)
    assert client.get(reverse("home")).status_code == 200
    reset_second_factor(actor=None, member=user)
    # Their session ended with the reset; at the next login, enrolment again.
    assert client.get(reverse("home"))["Location"].startswith(reverse("account_login"))
    login(client, user)
    assert client.get(reverse("home"))["Location"] == reverse("mfa_index")
