import django_filters
from django.contrib.auth import get_user_model

from core import labels
from core.forms import SuggestInput, date_input, day_range

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
    # Whole days in the staff member's time zone, as a range on created_at (the keyset index
    # seeks it) rather than a cast of every row to a date.
    since = django_filters.DateFilter(field_name="created_at", method="filter_since", label="From", widget=date_input())
    until = django_filters.DateFilter(
        field_name="created_at", method="filter_until", label="Until", widget=date_input()
    )

    class Meta:
        model = AuditEvent
        fields = []

    def filter_since(self, queryset, name, value):
        return queryset.filter(**{f"{name}__{op}": bound for op, bound in day_range(since=value).items()})

    def filter_until(self, queryset, name, value):
        return queryset.filter(**{f"{name}__{op}": bound for op, bound in day_range(until=value).items()})
