from allauth.mfa.signals import authenticator_added, authenticator_removed
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from audit.records import audit_record
from core.live import forget_session

from .lockouts import record_lockout
from .timezones import kept_zone_name, remember
from .usernames import stored_spelling


@receiver(user_logged_in)
def record_login(sender, request, user, **kwargs):
    with transaction.atomic():
        audit_record(actor=user, action="auth.login", target_kind="user", target_id=user.pk)
    if request is not None and hasattr(request, "session"):
        remember(request, kept_zone_name(user))


@receiver(user_logged_out)
def record_logout(sender, request, user, **kwargs):
    if request is not None and hasattr(request, "session"):
        forget_session(request.session.session_key)
    if user is not None:
        with transaction.atomic():
            audit_record(actor=user, action="auth.logout", target_kind="user", target_id=user.pk)


@receiver(user_locked_out)
def record_password_lockout(sender, request, username, ip_address, **kwargs):
    """axes locked a (username, address) pair: audited when the username is a member's."""
    member = get_user_model().objects.filter(username=stored_spelling(username or "")).first()
    if member is not None and request is not None:
        until = timezone.now() + settings.AXES_COOLOFF_TIME
        record_lockout(request, member=member, what="password", until=until, at_address=True)


def _record_second_factor(action: str, user, authenticator) -> None:
    with transaction.atomic():
        audit_record(
            actor=user, action=action, target_kind="user", target_id=user.pk, details={"type": authenticator.type}
        )


@receiver(authenticator_added)
def record_second_factor_added(sender, request, user, authenticator, **kwargs):
    _record_second_factor("auth.mfa_added", user, authenticator)


@receiver(authenticator_removed)
def record_second_factor_removed(sender, request, user, authenticator, **kwargs):
    from .mfa import SecondFactorRequiredMiddleware

    # The enrolment check looks again at the next page.
    request.session.pop(SecondFactorRequiredMiddleware.SESSION_KEY, None)
    _record_second_factor("auth.mfa_removed", user, authenticator)
