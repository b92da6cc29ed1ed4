import django_filters
from django import forms

from .models import AuditEvent


class AuditEventFilter(django_filters.FilterSet):
    actor = django_filters.CharFilter(field_name="actor_username", label="Actor")
    action = django_filters.CharFilter(field_name="action", label="Action")
    target_kind = django_filters.CharFilter(field_name="target_kind", label="Target kind")
    target_id = django_filters.CharFilter(field_name="target_id", label="Target id")
    since = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__gte", label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    until = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__lte", label="Until", widget=forms.DateInput(attrs={"type": "date"})
    )

    class Meta:
        model = AuditEvent
        fields = []
