"""create_staff's link names the installation's address without --site, from the settings
that already name it; never a loopback address in production."""

import io

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def link(username: str) -> str:
    out = io.StringIO()
    call_command("create_staff", username, "--role", "admin", stdout=out)
    return out.getvalue().strip().splitlines()[-1].strip()


@pytest.mark.parametrize(
    ("origins", "hosts", "site"),
    [
        (["https://backoffice.example.com"], ["backoffice.example.com"], "https://backoffice.example.com/"),
        ([], [".example.com", "backoffice.example.org"], "https://example.com/"),
    ],
)
def test_the_link_uses_the_configured_address(settings, origins, hosts, site):
    settings.DEBUG = False
    settings.CSRF_TRUSTED_ORIGINS, settings.ALLOWED_HOSTS = origins, hosts
    assert link("first-admin").startswith(site)


def test_with_debug_on_the_link_is_the_development_server(settings):
    settings.DEBUG = True
    assert link("dev-admin").startswith("http://127.0.0.1:8000/")


def test_no_address_anywhere_asks_for_site(settings):
    settings.DEBUG = False
    settings.CSRF_TRUSTED_ORIGINS, settings.ALLOWED_HOSTS = [], ["*"]
    with pytest.raises(CommandError, match="--site"):
        link("nowhere-admin")
