"""Staff changes made by admins: each one checks the rule it must keep and writes its audit
event in the transaction of the change."""

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

from ..audit import audit_record
from ..live import forget_session
from ..mfa import Authenticator
from ..roles import Role, roles_of


class LastAdmin(Exception):
    """The change would leave no active admin."""

    message = "This is the last active admin: make someone else an admin first."


def _role_groups(roles) -> list[Group]:
    return list(Group.objects.filter(name__in=[Role(role).value for role in roles]))


def _keep_an_admin(member) -> None:
    """Raise LastAdmin unless another active admin remains beside `member`. The admins' rows
    are locked first, so that two admins demoting each other at once cannot both succeed."""
    admins = (
        get_user_model()
        .objects.select_for_update(of=("self",))
        .filter(is_active=True, groups__name=Role.ADMIN.value)
        .values_list("pk", flat=True)
    )
    if not [pk for pk in admins if pk != member.pk]:
        raise LastAdmin()


def add_member(*, actor, username: str, email: str, roles: list[str]):
    """A new staff member with no password yet: they choose it through `set_password_link`."""
    with transaction.atomic():
        member = get_user_model().objects.create_user(username=username, email=email)
        member.set_unusable_password()
        member.save(update_fields=["password"])
        member.groups.set(_role_groups(roles))
        audit_record(
            actor=actor, action="staff.add", target_kind="user", target_id=member.pk, details={"roles": sorted(roles)}
        )
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


def change_roles(*, actor, member, roles: list[str]) -> None:
    before = roles_of(member)
    with transaction.atomic():
        if Role.ADMIN.value in before and Role.ADMIN.value not in roles:
            _keep_an_admin(member)
        member.groups.set(_role_groups(roles))
        audit_record(
            actor=actor,
            action="staff.change_roles",
            target_kind="user",
            target_id=member.pk,
            details={"before": before, "after": sorted(roles)},
        )


def set_roles_from_sso(member, roles: list[str]) -> None:
    """The roles the identity provider's groups give, at each single sign-on."""
    before = roles_of(member)
    with transaction.atomic():
        member.groups.set(_role_groups(roles))
        audit_record(
            actor=member,
            action="staff.roles_from_sso",
            target_kind="user",
            target_id=member.pk,
            details={"before": before, "after": sorted(roles)},
        )


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
    with transaction.atomic():
        if member.groups.filter(name=Role.ADMIN.value).exists():
            _keep_an_admin(member)
        member.is_active = False
        member.save(update_fields=["is_active"])
        ended = end_sessions(member)
        audit_record(
            actor=actor, action="staff.deactivate", target_kind="user", target_id=member.pk, details={"sessions": ended}
        )


def reactivate(*, actor, member) -> None:
    with transaction.atomic():
        member.is_active = True
        member.save(update_fields=["is_active"])
        audit_record(actor=actor, action="staff.reactivate", target_kind="user", target_id=member.pk)


def reset_second_factor(*, actor, member) -> None:
    """Remove every authenticator (TOTP, passkeys, recovery codes) and end their sessions: a
    lost phone may have gone with a signed-in browser. They enrol again at their next login."""
    with transaction.atomic():
        removed = Authenticator.objects.filter(user=member).delete()[0]
        ended = end_sessions(member)
        audit_record(
            actor=actor,
            action="staff.reset_mfa",
            target_kind="user",
            target_id=member.pk,
            details={"removed": removed, "sessions": ended},
        )


def lift_lockout(*, actor, member) -> None:
    with transaction.atomic():
        lifted = axes_reset(username=member.get_username())
        audit_record(
            actor=actor,
            action="staff.lift_lockout",
            target_kind="user",
            target_id=member.pk,
            details={"lifted": lifted},
        )


def record_password_link(*, actor, member) -> None:
    with transaction.atomic():
        audit_record(actor=actor, action="staff.password_link", target_kind="user", target_id=member.pk)
