"""Guessing is limited wherever a secret is typed, per member and per client address.

- Passwords (login, re-authentication): django-axes. Five failures of one username from one
  address (staff.client_ip) lock that pair out for AXES_COOLOFF_TIME; its records are rows in
  the database. allauth's own count of password failures is off (staff.accounts): it keys on
  the username alone, which a stranger could fill to lock a member out from everywhere.
- Second-factor codes, recovery codes and passkeys at the second step, at login and when asked
  again: allauth's rate limit "login_failed" (ACCOUNT_RATE_LIMITS), which allauth counts per
  member (`code_key`) and per address. Only someone who knows the password gets that far, so
  the member's own count may lock the member out of every address: their password is known.
- Set-password links: allauth's rate-limit machinery again, under the action
  "set_password_link", per member (the link's user id) and per address.

allauth keeps its counts in the cache (Redis in production, which every process shares). A
cache that does not answer fails closed: no code, recovery code, passkey or link is checked
(`store_available`), and the member is told to try again later; passwords (axes, database)
still work.

A lockout is explained to the member (`lockout_page`: when they may try again, and that an
admin can lift it), audited once (`auth.locked_out`), shown on the staff page
(`member_lockouts`) and lifted there (`lift`).
"""

import datetime as dt
import logging
import math
import uuid
from dataclasses import dataclass

from allauth.account.utils import user_pk_to_url_str
from allauth.core.internal import ratelimit
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.shortcuts import render
from django.utils import timezone

from audit.models import AuditEvent
from audit.records import audit_record

from .client_ip import client_ip
from .usernames import normalized

logger = logging.getLogger(__name__)

APP = "allauth.account"  # ACCOUNT_RATE_LIMITS
CODES = "login_failed"
LINKS = "set_password_link"
# What the member typed, in the words of the lockout page and the staff page.
SECRETS = {"password": "password", "code": "second-factor code", "link": "set-password link"}
ACTIONS = {"code": CODES, "link": LINKS}
ADDRESSES_KEPT = 24 * 3600


def code_key(member) -> str:
    """allauth's own key for a member's codes (allauth.mfa.base.internal.flows.check_rate_limit)."""
    return f"mfa-auth-user-{member.pk}"


def _addresses_key(member) -> str:
    """Where the addresses `member` was locked out at are kept (one day, the longest rate)."""
    return f"lockouts:addresses:{member.pk}"


def link_key(uid: str) -> str:
    return f"set-password-link:{uid}"


def _member_keys(member) -> dict[str, str]:
    return {"code": code_key(member), "link": link_key(user_pk_to_url_str(member))}


def _until(history: list[float], rate, now: float) -> float | None:
    """When the next attempt will be let through, if the rate refuses it now (allauth's
    history: the times of the counted attempts, newest first)."""
    recent = [at for at in history if at > now - rate.duration]
    return recent[rate.amount - 1] + rate.duration if len(recent) >= rate.amount else None


def _as_time(at: float | None) -> dt.datetime | None:
    return None if at is None else dt.datetime.fromtimestamp(at, tz=dt.UTC)


def _address_request(address: str) -> HttpRequest:
    """A request from `address`, for allauth's key of an address other than the current one."""
    request = HttpRequest()
    request.META["REMOTE_ADDR"] = address
    return request


def _cache_keys(action: str, key: str, request=None) -> list[tuple[str, object]]:
    """(cache key, rate) of every rate of `action`: the per-member ones for `key`, the
    per-address ones for `request`'s address (left out without a request)."""
    keys = []
    for rate in ratelimit.get_rates(app=APP, action=action):
        if rate.per == "key" or (rate.per == "ip" and request is not None):
            keys.append((ratelimit.get_cache_key(request, app=APP, action=action, rate=rate, key=key), rate))
    return keys


@dataclass(frozen=True)
class Locked:
    until: dt.datetime
    at_address: bool  # an address's count locks it (else the member's own)


def locked(*, what: str, key: str, request=None) -> Locked | None:
    """Whether `key` (and `request`'s address) are refused the secret `what` now, and until when."""
    keys = _cache_keys(ACTIONS[what], key, request)
    found = cache.get_many([cache_key for cache_key, _ in keys])
    now = timezone.now().timestamp()
    untils = [(until, rate.per) for cache_key, rate in keys if (until := _until(found.get(cache_key, []), rate, now))]
    if not untils:
        return None
    until, per = max(untils)
    return Locked(until=_as_time(until), at_address=per == "ip")


def member_lockouts(members) -> dict[int, dict[str, dt.datetime]]:
    """For each member locked out of a code or a set-password link now: {pk: {secret: until}}.
    One read of the cache for all of them (the staff list's page)."""
    keys = {}
    for member in members:
        for secret, key in _member_keys(member).items():
            for cache_key, rate in _cache_keys(ACTIONS[secret], key):
                keys[cache_key] = (member.pk, secret, rate)
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the staff page still opens; no code or link is checked meanwhile
        logger.exception("The cache holding the guessing limits does not answer")
        return {}
    now = timezone.now().timestamp()
    lockouts: dict[int, dict[str, dt.datetime]] = {}
    for cache_key, (pk, secret, rate) in keys.items():
        until = _as_time(_until(found.get(cache_key, []), rate, now))
        if until is not None:
            known = lockouts.setdefault(pk, {}).get(secret)
            lockouts[pk][secret] = max(until, known) if known else until
    return lockouts


def lift(member) -> list[str]:
    """Forget the counts that lock `member` out of codes and links: theirs, and those of the
    addresses they were locked out at lately. The secrets that were locked."""
    locked = sorted(member_lockouts([member]).get(member.pk, {}))
    addresses = cache.get(_addresses_key(member), [])
    for secret, key in _member_keys(member).items():
        cache.delete_many([cache_key for cache_key, _ in _cache_keys(ACTIONS[secret], key)])
        for address in addresses:
            ratelimit.clear(_address_request(address), app=APP, action=ACTIONS[secret], key=key)
    # A new lockout after this one is audited again.
    noted = [f"lockouts:noted:{secret}:{member.pk}:{address}" for secret in SECRETS for address in [*addresses, "*"]]
    cache.delete_many([*noted, _addresses_key(member)])
    return locked


def store_available() -> bool:
    """Whether the cache that holds the counts answers (a write read back)."""
    probe, value = "lockouts:probe", uuid.uuid4().hex
    try:
        cache.set(probe, value, 10)
        return cache.get(probe) == value
    except Exception:  # any failure of the store: the checks fail closed
        logger.exception("The cache holding the guessing limits does not answer")
        return False


def record_lockout(request, *, member, what: str, until: dt.datetime, at_address: bool) -> None:
    """Audit a lockout of `member` (at the request's address, for a count of that address) once
    while it lasts: the tries it refuses find it noted. And log it."""
    address = client_ip(request)
    noted = f"lockouts:noted:{what}:{member.pk}:{address if at_address else '*'}"
    try:
        if not cache.add(noted, True, timeout=max(int(until.timestamp() - timezone.now().timestamp()), 1)):
            return
        # The addresses stay in the cache, for `lift`: the audit log and the logs hold none.
        addresses = _addresses_key(member)
        cache.set(addresses, sorted({*cache.get(addresses, []), address}), timeout=ADDRESSES_KEPT)
    except Exception:  # a password lockout (axes, database) is audited even with the cache away
        logger.exception("The cache holding the guessing limits does not answer")
    audit_record(
        actor=None,
        action="auth.locked_out",
        target_kind="user",
        target_id=member.pk,
        outcome=AuditEvent.Outcome.DENIED,
        details={"secret": what, "until": until.isoformat(timespec="seconds")},
    )
    logger.warning("Staff member %s locked out of their %s until %s", member.pk, SECRETS[what], until)


def lockout_page(request, *, what: str, until: dt.datetime | None, scope: str):
    """429: what is locked (`scope`: "member", "address", or the "pair" of both as axes locks
    passwords), until when, and that an admin can lift it."""
    minutes = math.ceil((until - timezone.now()).total_seconds() / 60) if until else None
    context = {
        "secret": SECRETS[what],
        "until": until,
        "minutes": max(minutes or 1, 1) if until else None,
        "scope": scope,
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    if until:
        response["Retry-After"] = str(max(int((until - timezone.now()).total_seconds()), 1))
    return response


def unavailable_page(request):
    """503: the counts cannot be read, so nothing is checked (the limits fail closed)."""
    response = render(request, "registration/locked_out.html", {"unavailable": True}, status=503)
    response["Retry-After"] = "60"
    return response


def axes_lockout(request, original_response=None, credentials=None):
    """django-axes' lockout answer (AXES_LOCKOUT_CALLABLE): the same page, with the time the
    (username, address) pair may try again: the cool-off after its last failure."""
    username = normalized((credentials or {}).get("username") or "")
    last = (
        AccessAttempt.objects.filter(username=username, ip_address=client_ip(request))
        .order_by("-attempt_time")
        .values_list("attempt_time", flat=True)
        .first()
    )
    until = last + settings.AXES_COOLOFF_TIME if last else None
    return lockout_page(request, what="password", until=until, scope="pair")
