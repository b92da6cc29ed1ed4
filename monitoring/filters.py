import datetime as dt

import django_filters
from django.utils import timezone

from customers.models import Customer

from .models import Alert, AlertKind, AlertStatus, MonitoringRule

AGES = [("1", "Within a day"), ("7", "Within 7 days"), ("30", "Within 30 days"), ("older", "Older than 30 days")]


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
        return queryset.filter(created_at__gte=now - dt.timedelta(days=int(value)))
