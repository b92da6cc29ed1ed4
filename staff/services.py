"""Staff changes made by admins: each one checks the rule it must keep and writes its audit
event in the transaction of the change."""

import contextlib

from allauth.account.forms import default_token_generator
from allauth.account.utils import user_pk_to_url_str
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from audit.records import audit_record
from core.access import Role, roles_of
from core.live import forget_session

from . import lockouts
from .mfa import Authenticator
from .usernames import normalized, validate_new


class Refused(Exception):
    """A staff change that cannot be made; `message` says why, in staff words."""

    message = ""


class LastAdmin(Refused):
    """The change would leave no active admin."""

    message = "This is the last active admin: make someone else an admin first."


class NoLongerAllowed(Refused):
    """The actor lost the right to change staff while their request was on its way."""

    message = "Your own roles changed meanwhile: you no longer manage staff. Nothing was changed."


def _role_groups(roles) -> list[Group]:
    return list(Group.objects.filter(name__in=[Role(role).value for role in roles]))


@contextlib.contextmanager
def _staff_lock(actor=None):
    """The one lock every change of roles or activation takes, in the transaction of the change.

    It is the admin group's row, locked until the commit: a second change waits here, then
    reads who is still an admin (and whether its actor still manages staff) after the first
    has committed, so no interleaving of demotions and deactivations leaves no active admin.
    Locking the admins' own rows is not enough: a demotion changes the group membership, not
    the user row, and the other transaction would go on with the admins it had already read.
    On SQLite, writers queue anyway (IMMEDIATE transactions)."""
    with transaction.atomic():
        Group.objects.select_for_update(no_key=True).get_or_create(name=Role.ADMIN.value)
        if actor is not None and not _manages_staff(actor):
            raise NoLongerAllowed()
        yield


def _manages_staff(actor) -> bool:
    fresh = get_user_model().objects.filter(pk=actor.pk, is_active=True).first()
    return fresh is not None and fresh.has_perm("core.manage_staff")


def _fresh(member):
    """The member as committed now, read under the lock (the caller's copy may be stale)."""
    return get_user_model().objects.get(pk=member.pk)


def _keep_an_admin(member) -> None:
    """Raise LastAdmin unless another active admin remains beside `member`: call it under
    `_staff_lock`, which makes this read the last word."""
    others = get_user_model().objects.filter(is_active=True, groups__name=Role.ADMIN.value).exclude(pk=member.pk)
    if not others.exists():
        raise LastAdmin()


def _audit(actor, action: str, member, details: dict | None = None) -> None:
    """The audit event of an action on a member (call it in the action's transaction)."""
    audit_record(actor=actor, action=action, target_kind="user", target_id=member.pk, details=details)


def add_member(*, actor, username: str, email: str, roles: list[str]):
    """A new staff member with no password yet: they choose it through `set_password_link`."""
    with _staff_lock(actor):
        # Under the lock: two admins adding look-alikes at once cannot both pass.
        username = validate_new(username)
        member = get_user_model().objects.create_user(username=username, email=email)
        member.set_unusable_password()
        member.save(update_fields=["password"])
        member.groups.set(_role_groups(roles))
        _audit(actor, "staff.add", member, {"roles": sorted(roles)})
    return member


def set_password_link(site: str, member) -> str:
    """A link (at `site`, "https://backoffice.example.com") to choose a password: allauth's
    password reset, good once (it dies when the password changes) and for
    PASSWORD_RESET_TIMEOUT; e-mailed too where an e-mail backend is configured."""
    path = reverse(
        "account_reset_password_from_key",
        kwargs={"uidb36": user_pk_to_url_str(member), "key": default_token_generator.make_token(member)},
    )
    url = site.rstrip("/") + path
    if settings.STAFF_EMAIL_LINKS and member.email:
        send_mail(
            "Your back-office account",
            f"Hello {member.get_username()},\n\nChoose your password here (the link works once):\n{url}\n",
            None,
            [member.email],
        )
    return url


def change_roles(*, actor, member, roles: list[str]) -> bool:
    """Give `member` exactly `roles`; False when they had them already (a second click: no
    change, no event)."""
    with _staff_lock(actor):
        member = _fresh(member)
        before = roles_of(member)
        if set(before) == set(roles):
            return False
        if member.is_active and Role.ADMIN.value in before and Role.ADMIN.value not in roles:
            _keep_an_admin(member)
        member.groups.set(_role_groups(roles))
        _audit(actor, "staff.change_roles", member, {"before": before, "after": sorted(roles)})
    return True


def set_roles_from_sso(member, roles: list[str]) -> None:
    """The roles the identity provider's groups give, at each single sign-on. The last active
    admin keeps the admin role (and the event says so): the IdP cannot leave the team without one."""
    with _staff_lock():
        member = _fresh(member)
        before = roles_of(member)
        details = {"before": before, "after": sorted(roles)}
        if member.is_active and Role.ADMIN.value in before and Role.ADMIN.value not in roles:
            try:
                _keep_an_admin(member)
            except LastAdmin:
                roles = [*roles, Role.ADMIN.value]
                details.update(after=sorted(roles), kept_as_last_admin=True)
        if set(before) == set(roles):
            return
        member.groups.set(_role_groups(roles))
        _audit(member, "staff.roles_from_sso", member, details)


def end_sessions(member) -> int:
    """Delete every live session of `member` (a back-office has few sessions to read)."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if str(session.get_decoded().get("_auth_user_id")) == str(member.pk):
            forget_session(session.session_key)  # before delete(), which clears the key
            session.delete()
            ended += 1
    return ended


def deactivate(*, actor, member) -> None:
    with _staff_lock(actor):
        member = _fresh(member)
        if not member.is_active:
            return  # a second click: already done
        if member.groups.filter(name=Role.ADMIN.value).exists():
            _keep_an_admin(member)
        member.is_active = False
        member.save(update_fields=["is_active"])
        ended = end_sessions(member)
        _audit(actor, "staff.deactivate", member, {"sessions": ended})


def reactivate(*, actor, member) -> None:
    with _staff_lock(actor):
        member = _fresh(member)
        if member.is_active:
            return
        member.is_active = True
        member.save(update_fields=["is_active"])
        _audit(actor, "staff.reactivate", member)


def reset_second_factor(*, actor, member) -> None:
    """Remove every authenticator (TOTP, passkeys, recovery codes) and end their sessions: a
    lost phone may have gone with a signed-in browser. They enrol again at their next login."""
    with transaction.atomic():
        removed = Authenticator.objects.filter(user=member).delete()[0]
        ended = end_sessions(member)
        _audit(actor, "staff.reset_mfa", member, {"removed": removed, "sessions": ended})


def lift_lockout(*, actor, member) -> None:
    """Forget the failures that lock `member` out: axes' records of their username (passwords,
    every address) and the counts of their codes and set-password links (staff.lockouts)."""
    with transaction.atomic():
        lifted = axes_reset(username=normalized(member.get_username()))
        secrets = lockouts.lift(member)
        _audit(actor, "staff.lift_lockout", member, {"lifted": lifted, "secrets": secrets})


def record_password_link(*, actor, member) -> None:
    with transaction.atomic():
        _audit(actor, "staff.password_link", member)
