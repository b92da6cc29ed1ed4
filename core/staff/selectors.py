from allauth.mfa.models import Authenticator
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef, Prefetch
from django.utils import timezone

from ..mfa import SECOND_FACTOR_TYPES


def staff_with_status():
    """Every staff member with their role groups, whether they have a second factor and
    whether django-axes locks them out now: one statement, and one for the groups."""
    locked_since = timezone.now() - settings.AXES_COOLOFF_TIME
    return (
        get_user_model()
        .objects.prefetch_related(Prefetch("groups", queryset=Group.objects.order_by("name")))
        .annotate(
            has_second_factor=Exists(Authenticator.objects.filter(user=OuterRef("pk"), type__in=SECOND_FACTOR_TYPES)),
            locked_out=Exists(
                AccessAttempt.objects.filter(
                    username=OuterRef("username"),
                    failures_since_start__gte=settings.AXES_FAILURE_LIMIT,
                    attempt_time__gte=locked_since,
                )
            ),
        )
    )
