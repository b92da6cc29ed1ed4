"""Guessing is limited wherever a secret is typed (staff/lockouts.py): second-factor codes,
recovery codes and passkeys at login and when asked again, set-password links; per member and
per address. A lockout refuses the right secret too, says until when and that an admin can lift
it, is audited once, shows on the staff page, and an admin lifts it there."""

import os
import re
import uuid

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from tests.conftest import authenticated_now
from tests.totp import totp_code

PASSWORD = "correct horse battery"
LOCKED = "After too many wrong second-factor codes for this account, it is locked until"


def _enrolled(make_staff, username: str, role: str = "operations"):
    member = make_staff(role, username=username)
    secret = generate_totp_secret()
    TOTP.activate(member, secret)
    RecoveryCodes.activate(member)
    return member, secret


def _at_second_step(member, address="10.0.0.1") -> Client:
    browser = Client(REMOTE_ADDR=address)
    answer = browser.post(reverse("account_login"), {"login": member.username, "password": PASSWORD})
    assert answer["Location"] == reverse("mfa_authenticate")
    return browser


def _code(browser, code: str):
    return browser.post(reverse("mfa_authenticate"), {"code": code})


def _signed_in(browser) -> bool:
    return browser.get(reverse("home")).status_code == 200


def test_300_wrong_codes_are_stopped_after_five_and_then_the_right_one_too(make_staff, admin_client_for):
    member, secret = _enrolled(make_staff, "guessed")
    browser = _at_second_step(member)

    answers = [_code(browser, f"{n:06d}") for n in range(300)]

    checked = [a for a in answers if a.status_code == 200]
    assert len(checked) == 4 and all("Incorrect code" in a.content.decode() for a in checked)
    # The fifth wrong code fills the limit: it and every later try get the lockout page.
    assert all(a.status_code == 429 for a in answers[4:])
    page = answers[-1].content.decode()
    assert LOCKED in page and "until" in page and "ask an admin" in page
    assert int(answers[-1]["Retry-After"]) > 14 * 60
    right = _code(browser, totp_code(secret))
    assert right.status_code == 429 and not _signed_in(browser)
    # A recovery code is a code: refused as well.
    recovery = RecoveryCodes(Authenticator.objects.get(user=member, type="recovery_codes")).get_unused_codes()[0]
    assert _code(browser, recovery).status_code == 429
    # One audit event for the lockout, however many tries it refused.
    locked = AuditEvent.objects.get(action="auth.locked_out")
    assert locked.target_id == str(member.pk) and locked.details["secret"] == "code"
    assert locked.outcome == AuditEvent.Outcome.DENIED
    assert "address" not in locked.details  # no address in the audit log

    # The staff page shows it; an admin lifts it (audited) and the right code works again.
    admin = admin_client_for()
    view = admin.get(reverse("staff-view-staff", args=[member.pk])).content.decode()
    assert "wrong second-factor codes: locked until" in view
    assert "second-factor code" in admin.get(reverse("staff-list-staff")).content.decode()
    assert admin.post(reverse("staff-unlock-staff", args=[member.pk])).status_code == 302
    assert AuditEvent.objects.get(action="staff.lift_lockout").details == {"lifted": 0, "secrets": ["code"]}
    assert "locked until" not in admin.get(reverse("staff-view-staff", args=[member.pk])).content.decode()
    assert _code(browser, totp_code(secret))["Location"] == reverse("home")
    assert _signed_in(browser)


def test_the_lockout_ends_by_itself(make_staff, monkeypatch):
    import time

    member, secret = _enrolled(make_staff, "patient")
    browser = _at_second_step(member)
    for _ in range(5):
        _code(browser, "000000")
    assert _code(browser, totp_code(secret)).status_code == 429
    later = time.time() + 15 * 60 + 1
    monkeypatch.setattr(time, "time", lambda: later)
    assert _code(_at_second_step(member), totp_code(secret))["Location"] == reverse("home")


def test_the_members_count_holds_at_every_address(make_staff):
    """Whoever knows the password may guess from many addresses: the member's own count."""
    member, secret = _enrolled(make_staff, "roamer")
    for n in range(5):
        _code(_at_second_step(member, address=f"203.0.113.{n}"), "000000")
    elsewhere = _at_second_step(member, address="198.51.100.1")
    assert _code(elsewhere, totp_code(secret)).status_code == 429


def test_one_address_guessing_for_many_members_is_stopped(make_staff):
    """20 wrong codes from one address, four for each of five members: the sixth member is
    refused at that address, not at their own."""
    answers = []
    for n in range(5):
        member, _ = _enrolled(make_staff, f"member-{n}")
        browser = _at_second_step(member, address="203.0.113.7")
        answers += [_code(browser, "000000") for _ in range(4)]
    # The twentieth fills the address's count.
    assert [a.status_code for a in answers] == [200] * 19 + [429]
    assert "After too many wrong second-factor codes from this address" in answers[-1].content.decode()
    sixth, secret = _enrolled(make_staff, "member-6")
    assert _code(_at_second_step(sixth, address="203.0.113.7"), totp_code(secret)).status_code == 429
    assert _code(_at_second_step(sixth, address="198.51.100.2"), totp_code(secret))["Location"] == reverse("home")


def test_a_passkey_is_refused_while_the_codes_are_locked(make_staff):
    member, _ = _enrolled(make_staff, "passkey-user")
    browser = _at_second_step(member)
    for _ in range(5):
        _code(browser, "000000")
    answer = browser.post(reverse("mfa_authenticate"), {"credential": '{"id": "forged"}'})
    assert answer.status_code == 429 and LOCKED in answer.content.decode()


def test_re_authentication_by_code_is_limited_too(make_staff):
    member, secret = _enrolled(make_staff, "re-asked", role="admin")
    browser = Client()
    browser.force_login(member)
    url = reverse("mfa_reauthenticate")
    answers = [browser.post(url, {"code": "000000"}).status_code for _ in range(8)]
    assert answers[:4] == [200] * 4 and set(answers[4:]) == {429}
    assert browser.post(url, {"code": totp_code(secret)}).status_code == 429


def test_re_authentication_by_password_locks_the_member_at_that_address(make_staff):
    member = make_staff("admin", username="re-typed")
    browser = Client(REMOTE_ADDR="10.0.0.9")
    browser.force_login(member)
    url = reverse("account_reauthenticate")
    for _ in range(5):
        browser.post(url, {"password": "wrong"})
    locked = browser.post(url, {"password": PASSWORD})
    assert locked.status_code == 429
    assert (
        "After too many wrong passwords for this account from this address, it is locked at this address"
        in locked.content.decode()
    )


def _link(member) -> tuple[str, str]:
    from allauth.account.forms import default_token_generator
    from allauth.account.utils import user_pk_to_url_str

    uid = user_pk_to_url_str(member)
    return uid, default_token_generator.make_token(member)


def test_set_password_links_are_limited_per_member(make_staff, admin_client_for):
    member = make_staff("auditor", username="newcomer")
    uid, key = _link(member)

    def visit(key, address="10.0.0.3"):
        return Client(REMOTE_ADDR=address).get(reverse("account_reset_password_from_key", args=[uid, key]))

    wrong = [visit(f"{uuid.uuid4().hex[:6]}-{uuid.uuid4().hex}") for _ in range(30)]
    assert all(a.status_code == 200 and "invalid" in a.content.decode().lower() for a in wrong[:4])
    assert {a.status_code for a in wrong[4:]} == {429}
    assert "set-password link" in wrong[-1].content.decode()
    assert visit(key, address="198.51.100.3").status_code == 429  # the right link, from elsewhere too
    assert AuditEvent.objects.filter(action="auth.locked_out", details__secret="link").count() == 1

    admin = admin_client_for()
    assert "wrong set-password links: locked until" in admin.get(reverse("staff-view-staff", args=[member.pk])).text
    admin.post(reverse("staff-unlock-staff", args=[member.pk]))
    assert visit(key).status_code == 302  # on to the form, the key out of the address


def test_a_store_that_does_not_answer_checks_nothing(make_staff, settings):
    """The counts live in the cache: when it is away, the right code is refused too (503),
    with a page that says so."""
    member, secret = _enrolled(make_staff, "unlucky")
    browser = _at_second_step(member)
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"}
    }
    answer = _code(browser, totp_code(secret))
    assert answer.status_code == 503
    assert "cannot check codes, passkeys or set-password links right now" in answer.content.decode()
    assert not _signed_in(browser)


REDIS = os.environ.get("CELERY_BROKER_URL", "")


@pytest.mark.skipif(not REDIS.startswith("redis://"), reason="needs Redis; the locmem tests above test the same")
@pytest.mark.django_db(transaction=True)
def test_the_counts_are_shared_through_redis(make_staff, settings):
    """With Redis as the cache, as in production: every process reads the same counts. Two
    cache connections here (one per thread), as two server processes would have."""
    import threading

    import redis

    prefix = f"test-guessing-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS, "KEY_PREFIX": prefix}
    }
    try:
        member, secret = _enrolled(make_staff, "shared")
        browser = _at_second_step(member)
        for _ in range(2):
            _code(browser, "000000")
        other = threading.Thread(target=lambda: [_code(browser, "000000") for _ in range(3)])
        other.start()
        other.join()
        assert _code(browser, totp_code(secret)).status_code == 429
    finally:
        server = redis.Redis.from_url(REDIS)
        for key in server.scan_iter(f"{prefix}:*"):
            server.delete(key)


@pytest.fixture
def admin_client_for(make_staff):
    def make():
        admin = make_staff("admin", username=f"admin-{uuid.uuid4().hex[:6]}")
        client = Client()
        client.force_login(admin)
        authenticated_now(client, admin)
        return client

    return make


def test_the_lockout_page_names_the_time_in_utc_on_hover(make_staff):
    member, _ = _enrolled(make_staff, "timed")
    browser = _at_second_step(member)
    for _ in range(5):
        answer = _code(browser, "000000")
    assert re.search(r'locked until <time datetime="[^"]+"><span title="[0-9: -]+ UTC">', answer.content.decode())


def test_a_malformed_passkey_answer_is_a_refusal_not_a_server_error(make_staff):
    member, _ = _enrolled(make_staff, "malformed")
    browser = _at_second_step(member)
    answer = browser.post(reverse("mfa_authenticate"), {"credential": '{"id": "forged"}'})
    assert answer.status_code == 200 and not _signed_in(browser)
    passwordless = Client().post(reverse("mfa_login_webauthn"), {"credential": '{"id": "forged"}'})
    assert passwordless.status_code in (200, 302)
