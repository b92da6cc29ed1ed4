from allauth.mfa.models import Authenticator
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Exists, Max, OuterRef, Prefetch, Subquery
from django.utils import timezone

from . import lockouts
from .mfa import SECOND_FACTOR_TYPES


def staff_with_status():
    """Every staff member with their role groups, whether they have a second factor and when
    django-axes last refused their password from an address it now locks: one statement, and
    one for the groups. `with_lockouts` adds the other lockouts, from the cache."""
    locked_since = timezone.now() - settings.AXES_COOLOFF_TIME
    locked_attempts = AccessAttempt.objects.filter(
        username=OuterRef("username"),
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT,
        attempt_time__gte=locked_since,
    )
    return (
        get_user_model()
        .objects.prefetch_related(Prefetch("groups", queryset=Group.objects.order_by("name")))
        .annotate(
            has_second_factor=Exists(Authenticator.objects.filter(user=OuterRef("pk"), type__in=SECOND_FACTOR_TYPES)),
            password_locked_at=Subquery(
                locked_attempts.values("username").annotate(last=Max("attempt_time")).values("last")
            ),
        )
    )


def with_lockouts(members) -> list:
    """`members` (of staff_with_status) with `lockouts`, [(what, until)] of each lockout now (a
    password at some address, codes, set-password links), and `locked_out`."""
    members = list(members)
    others = lockouts.member_lockouts(members)
    for member in members:
        found = []
        if member.password_locked_at:
            found.append((lockouts.SECRETS["password"], member.password_locked_at + settings.AXES_COOLOFF_TIME))
        found += [(lockouts.SECRETS[secret], until) for secret, until in sorted(others.get(member.pk, {}).items())]
        member.lockouts, member.locked_out = found, bool(found)
    return members
