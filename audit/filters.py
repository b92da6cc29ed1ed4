import django_filters
from django.contrib.auth import get_user_model

from core import labels
from core.forms import DayFilter, SuggestInput

from .models import AuditEvent


def _members():
    return get_user_model().objects.order_by("username").values_list("username", "username")


class AuditEventFilter(django_filters.FilterSet):
    # The members' usernames suggested (one query, when the form is drawn); any name still taken,
    # that of a member since removed among them.
    actor = django_filters.CharFilter(field_name="actor_username", label="Actor", widget=SuggestInput(_members))
    action = django_filters.CharFilter(
        field_name="action", label="Action", widget=SuggestInput(lambda: sorted(labels.words(labels.ACTION).items()))
    )
    target_kind = django_filters.CharFilter(field_name="target_kind", label="Target kind")
    target_id = django_filters.CharFilter(field_name="target_id", label="Target id")
    since = DayFilter(field_name="created_at", label="From")
    until = DayFilter(field_name="created_at", label="Until", until=True)

    class Meta:
        model = AuditEvent
        fields = []
