import datetime as dt

import django_filters
from django.utils import timezone

from customers.models import Customer

from .models import Alert, AlertKind, AlertStatus, MonitoringRule

AGES = [
    ("1", "Within a day"),
    ("7", "Within 7 days"),
    ("30", "Within 30 days"),
    ("older", "Older than 30 days"),
    # The age buckets of the compliance home's open alerts (under a day, then these).
    ("1-7", "1 to 7 days ago"),
    ("over7", "More than 7 days ago"),
]


class AlertFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(label="Kind", choices=AlertKind.choices, empty_label="Any kind")
    status = django_filters.ChoiceFilter(label="Status", choices=AlertStatus.choices, empty_label="Any status")
    rule = django_filters.ModelChoiceFilter(
        label="Rule", queryset=MonitoringRule.objects.order_by("name"), empty_label="Any rule"
    )
    customer = django_filters.CharFilter(label="Customer id", method="filter_customer")
    age = django_filters.ChoiceFilter(label="Raised", choices=AGES, empty_label="Any time", method="filter_age")

    class Meta:
        model = Alert
        fields = []

    def filter_customer(self, queryset, name, value):
        return queryset.filter(customer__in=Customer.objects.filter(customer_id=value.strip()).values("pk"))

    def filter_age(self, queryset, name, value):
        now = timezone.now()
        if value == "older":
            return queryset.filter(created_at__lt=now - dt.timedelta(days=30))
        if value == "1-7":
            return queryset.filter(
                created_at__lt=now - dt.timedelta(days=1), created_at__gte=now - dt.timedelta(days=7)
            )
        if value == "over7":
            return queryset.filter(created_at__lt=now - dt.timedelta(days=7))
        return queryset.filter(created_at__gte=now - dt.timedelta(days=int(value)))
