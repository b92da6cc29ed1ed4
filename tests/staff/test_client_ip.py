"""The client's address: REMOTE_ADDR unless proxies are trusted (TRUSTED_PROXIES), and then
the hop they vouch for; a forged X-Forwarded-For moves nothing. Lockouts key on the username
and that address together, so behind a load balancer a stranger's guesses lock out the
stranger, not the member."""

import pytest
from allauth.account.adapter import get_adapter
from django.test import Client
from django.urls import reverse

from staff.client_ip import client_ip

PASSWORD = "correct horse battery"
BALANCER = "10.0.0.5"


def _request(rf, remote: str, forwarded: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return rf.get("/", **extra)


@pytest.mark.parametrize("forwarded", [None, "198.51.100.7", "198.51.100.7, 203.0.113.9", "garbage"])
def test_with_no_proxy_trusted_the_header_is_ignored(rf, settings, forwarded):
    settings.TRUSTED_PROXY_COUNT, settings.TRUSTED_PROXY_NETWORKS = 0, []
    assert client_ip(_request(rf, "192.0.2.1", forwarded)) == "192.0.2.1"


@pytest.mark.parametrize(
    ("count", "forwarded", "expected"),
    [
        (1, "203.0.113.9", "203.0.113.9"),
        # What the client wrote itself stands left of what the balancer appended.
        (1, "198.51.100.7, 203.0.113.9", "203.0.113.9"),
        (2, "198.51.100.7, 203.0.113.9, 10.0.0.9", "203.0.113.9"),
        # Fewer hops than proxies, or no address where the proxy's should be: the balancer's own.
        (2, "203.0.113.9", BALANCER),
        (1, "", BALANCER),
        (1, "198.51.100.7, not-an-address", BALANCER),
        (1, "2001:db8::1", "2001:db8::1"),
    ],
)
def test_a_number_of_proxies_takes_that_hop_from_the_right(rf, settings, count, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT, settings.TRUSTED_PROXY_NETWORKS = count, []
    assert client_ip(_request(rf, BALANCER, forwarded)) == expected


@pytest.mark.parametrize(
    ("remote", "forwarded", "expected"),
    [
        (BALANCER, "198.51.100.7, 203.0.113.9, 10.1.1.1", "203.0.113.9"),
        (BALANCER, "198.51.100.7, 203.0.113.9", "203.0.113.9"),
        # A request that did not come through a trusted proxy: its header is not read.
        ("192.0.2.1", "203.0.113.9", "192.0.2.1"),
        # Only trusted proxies on the way: the leftmost of them.
        (BALANCER, "10.2.2.2", "10.2.2.2"),
        (BALANCER, "junk, 10.2.2.2", "10.2.2.2"),
    ],
)
def test_trusted_networks_are_walked_from_the_right(rf, settings, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT, settings.TRUSTED_PROXY_NETWORKS = 0, ["10.0.0.0/8"]
    assert client_ip(_request(rf, remote, forwarded)) == expected


def test_allauths_rate_limits_count_by_the_same_address(rf, settings):
    settings.TRUSTED_PROXY_COUNT, settings.TRUSTED_PROXY_NETWORKS = 1, []
    assert get_adapter().get_client_ip(_request(rf, BALANCER, "1.2.3.4, 203.0.113.9")) == "203.0.113.9"


def test_the_setting_reads_a_number_or_networks():
    from tests.backoffice.test_settings import PRODUCTION, manage

    code = "from django.conf import settings as s; print(s.TRUSTED_PROXY_COUNT, s.TRUSTED_PROXY_NETWORKS)"
    for value, expected in [("", "0 []"), ("2", "2 []"), ("10.0.0.0/8, 192.0.2.7", "0 ['10.0.0.0/8', '192.0.2.7/32']")]:
        result = manage("shell", "-c", code, env={**PRODUCTION, "TRUSTED_PROXIES": value})
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1] == expected
    refused = manage("shell", "-c", code, env={**PRODUCTION, "TRUSTED_PROXIES": "10.0.0.0/33"})
    assert refused.returncode != 0 and "10.0.0.0/33" in refused.stderr


def _login(client, username, password, forwarded):
    return client.post(
        reverse("account_login"),
        {"login": username, "password": password},
        REMOTE_ADDR=BALANCER,
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def test_behind_a_load_balancer_a_strangers_guesses_lock_out_only_the_stranger(settings, admin_user):
    settings.TRUSTED_PROXY_COUNT = 1
    stranger = Client()
    for _ in range(5):
        _login(stranger, admin_user.username, "wrong", "203.0.113.66")
    assert _login(stranger, admin_user.username, PASSWORD, "203.0.113.66").status_code == 429
    # The admin, through the same balancer from their own address, logs in.
    assert _login(Client(), admin_user.username, PASSWORD, "198.51.100.10").status_code == 302


def test_with_no_proxy_trusted_a_forged_header_does_not_escape_the_lockout(settings, operations_user):
    settings.TRUSTED_PROXY_COUNT, settings.TRUSTED_PROXY_NETWORKS = 0, []
    guesser = Client()
    for n in range(5):
        _login(guesser, operations_user.username, "wrong", f"203.0.113.{n}")
    assert _login(guesser, operations_user.username, PASSWORD, "198.51.100.99").status_code == 429
