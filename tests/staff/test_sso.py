"""Single sign-on end to end: a real OpenID Connect provider (django-oauth-toolkit, its own
process on loopback: tests/oidc_provider/) and the whole redirect flow through allauth."""

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.models import AuditEvent
from core.access import roles_of

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID, CLIENT_SECRET = "backoffice-test", "a-client-secret-for-tests-only"
CALLBACK = "http://testserver/accounts/oidc/sso/login/callback/"
IDP_PASSWORD = "idp password 123"
IDP_PERSON = ["sso-alice", IDP_PASSWORD, "bo-operations", "unrelated-group"]  # username, password, groups

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def idp():
    """The provider's issuer URL; its one person is sso-alice, in the IdP group bo-operations."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.oidc_provider.serve", CLIENT_ID, CLIENT_SECRET, CALLBACK, *IDP_PERSON],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}/o"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def sso(db, settings, idp):
    settings.OIDC_ISSUER = idp
    settings.OIDC_NAME = "Company SSO"
    settings.OIDC_GROUPS_CLAIM = "groups"
    settings.OIDC_GROUP_ROLES = {"bo-operations": "operations", "bo-admins": "admin"}
    settings.SOCIALACCOUNT_PROVIDERS = {
        "openid_connect": {
            "OAUTH_PKCE_ENABLED": True,
            "APPS": [
                {
                    "provider_id": "sso",
                    "name": "Company SSO",
                    "client_id": CLIENT_ID,
                    "secret": CLIENT_SECRET,
                    "settings": {"server_url": idp, "token_auth_method": "client_secret_post"},
                }
            ],
        }
    }
    return idp


def sign_in_at_the_idp(authorize_url: str) -> str:
    """The person's browser at the IdP: its login form, then back to us. Returns our callback URL."""
    with httpx.Client(follow_redirects=False, timeout=20) as browser:
        response = browser.get(authorize_url)
        assert response.status_code == 302, response.text[:500]
        login_url = httpx.URL(authorize_url).join(response.headers["location"])
        page = browser.get(login_url)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        next_url = re.search(r'name="next" value="([^"]+)"', page.text).group(1).replace("&amp;", "&")
        done = browser.post(
            login_url,
            data={"csrfmiddlewaretoken": token, "username": "sso-alice", "password": IDP_PASSWORD, "next": next_url},
            headers={"Referer": str(login_url)},
        )
        assert done.status_code == 302, done.text[:500]
        back = browser.get(login_url.join(done.headers["location"]))
        assert back.status_code == 302, back.text[:500]
        return back.headers["location"]


def sso_login(client) -> object:
    start = client.post(reverse("openid_connect_login", kwargs={"provider_id": "sso"}))
    assert start.status_code == 302
    callback = sign_in_at_the_idp(start["Location"])
    assert callback.startswith(CALLBACK)
    parts = urlsplit(callback)
    return client.get(f"{parts.path}?{parts.query}")


def test_the_login_page_offers_single_sign_on(client, sso):
    html = client.get(reverse("account_login")).content.decode()
    assert "Log in with Company SSO" in html
    assert 'name="password"' in html


def test_sso_login_makes_the_staff_member_with_the_roles_of_their_groups(client, sso):
    response = sso_login(client)
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    member = get_user_model().objects.get(username="sso-alice")
    assert roles_of(member) == ["operations"]
    assert not member.has_usable_password()
    assert client.get(reverse("home")).status_code == 200
    assert AuditEvent.objects.filter(action="staff.add_from_sso", target_id=str(member.pk)).exists()
    assert AuditEvent.objects.filter(action="auth.login", actor=member).exists()


def test_sso_links_an_existing_member_and_replaces_their_roles(client, sso, make_staff):
    member = make_staff("admin", username="sso-alice")
    make_staff("admin", username="another-admin")
    sso_login(client)
    assert roles_of(member) == ["operations"]
    event = AuditEvent.objects.get(action="staff.roles_from_sso")
    assert event.details == {"before": ["admin"], "after": ["operations"]}


def test_without_a_groups_claim_roles_stay_with_the_staff_page(client, sso, settings, make_staff):
    settings.OIDC_GROUPS_CLAIM = ""
    member = make_staff("auditor", username="sso-alice")
    sso_login(client)
    assert roles_of(member) == ["auditor"]


def test_a_deactivated_member_does_not_get_in_through_sso(client, sso, make_staff):
    member = make_staff("operations", username="sso-alice")
    member.is_active = False
    member.save()
    response = sso_login(client)
    assert response["Location"] == reverse("account_inactive")
    assert client.get(reverse("home")).status_code == 302


def test_password_login_can_be_switched_off(client, sso, settings, operations_user):
    settings.OIDC_PASSWORD_LOGIN = False
    html = client.get(reverse("account_login")).content.decode()
    assert 'name="password"' not in html
    assert "Log in with Company SSO" in html
    response = client.post(reverse("account_login"), {"login": "operations-user", "password": "correct horse battery"})
    assert response.status_code == 200
    assert "Log in with single sign-on." in response.content.decode()
    assert client.get(reverse("home")).status_code == 302


def test_the_provider_comes_from_the_environment():
    import json

    from tests.backoffice.test_settings import PRODUCTION, manage

    env = {
        **PRODUCTION,
        "OIDC_ISSUER": "https://idp.example.com/realms/staff",
        "OIDC_CLIENT_ID": "backoffice",
        "OIDC_CLIENT_SECRET": "s3cret",
        "OIDC_GROUPS_CLAIM": "groups",
        "OIDC_GROUP_ROLES": "bo-admins=admin,bo-ops=operations",
    }
    code = (
        "import json; from django.conf import settings as s;"
        "print(json.dumps([s.SOCIALACCOUNT_PROVIDERS['openid_connect']['APPS'], s.OIDC_GROUP_ROLES]))"
    )
    result = manage("shell", "-c", code, env=env)
    assert result.returncode == 0, result.stderr
    apps, group_roles = json.loads(result.stdout.strip().splitlines()[-1])
    assert apps == [
        {
            "provider_id": "sso",
            "name": "single sign-on",
            "client_id": "backoffice",
            "secret": "s3cret",
            "settings": {
                "server_url": "https://idp.example.com/realms/staff",
                "token_auth_method": "client_secret_post",
            },
        }
    ]
    assert group_roles == {"bo-admins": "admin", "bo-ops": "operations"}


def test_roles_from_claims_ignore_unknown_groups_and_roles(settings):
    from staff.sso import roles_from_claims

    settings.OIDC_GROUPS_CLAIM = "groups"
    settings.OIDC_GROUP_ROLES = {"bo-admins": "admin", "bo-odd": "superhero"}
    assert roles_from_claims({"groups": ["bo-admins", "bo-odd", "other"]}) == ["admin"]
    assert roles_from_claims({}) == []
    settings.OIDC_GROUP_ROLES = {}
    assert roles_from_claims({"groups": "auditor"}) == ["auditor"]
    settings.OIDC_GROUPS_CLAIM = ""
    assert roles_from_claims({"groups": ["admin"]}) is None


def test_a_new_members_look_alike_username_is_refused(client, sso, make_staff, django_user_model):
    """The IdP's "sso-alice" beside a member "sso-a1ice": no second, look-alike member."""
    make_staff("admin", username="sso-a1ice")
    response = sso_login(client)
    assert response.status_code == 403
    page = response.content.decode()
    assert "looks like sso-a1ice&#x27;s" in page and "Nothing was created" in page
    assert not django_user_model.objects.filter(username="sso-alice").exists()
    assert client.get(reverse("home")).status_code == 302
