"""Filters of the payments lists, bound to their querysets (django-filter)."""

import datetime as dt

import django_filters
from django.db.models import Q, Subquery
from django.utils import timezone

from core.forms import DayFilter
from customers.models import Customer

from .forms.fields import CustomerPicker
from .models import (
    ApprovalKind,
    ApprovalRequest,
    ApprovalStatus,
    AutomationRule,
    PaymentAccount,
    PaymentAccountStatus,
    Transaction,
    TransactionStatus,
)
from .rails import CHAINS, FIAT_CURRENCIES, METHOD_LABELS, RAILS, TOKENS


class PaymentAccountFilter(django_filters.FilterSet):
    account_type = django_filters.ChoiceFilter(
        label="Type",
        choices=[
            (t, t.replace("_", " ").capitalize())
            for t in (
                "EXTERNAL_BANK_ACCOUNT",
                "EXTERNAL_CRYPTO_WALLET",
                "SERVICE_CRYPTO_WALLET",
                "SERVICE_AUTO_FIAT_ACCOUNT",
                "SERVICE_FIAT_ACCOUNT",
            )
        ],
        empty_label="Any type",
    )
    status = django_filters.ChoiceFilter(label="Status", choices=PaymentAccountStatus.choices, empty_label="Any status")
    customer = django_filters.CharFilter(label="Customer", method="filter_customer", widget=CustomerPicker())

    class Meta:
        model = PaymentAccount
        fields = []

    def filter_customer(self, queryset, name, value):
        # A subquery on the customer's upstream id keeps the page one query and uses the
        # (customer, first_seen_at, id) index.
        return queryset.filter(customer__in=Customer.objects.filter(customer_id=value.strip()).values("pk"))


class AutomationRuleFilter(django_filters.FilterSet):
    customer = django_filters.CharFilter(label="Customer", field_name="customer_upstream_id", widget=CustomerPicker())
    source = django_filters.CharFilter(label="Source account id", field_name="source_account_id")

    class Meta:
        model = AutomationRule
        fields = []


class ApprovalRequestFilter(django_filters.FilterSet):
    """Requests by status (expiry is read lazily: a pending request past its time is expired)
    and kind. The page opens on those waiting."""

    status = django_filters.ChoiceFilter(
        label="Status", choices=ApprovalStatus.choices, empty_label="Any status", method="filter_status"
    )
    kind = django_filters.ChoiceFilter(label="Kind", choices=ApprovalKind.choices, empty_label="Any kind")

    class Meta:
        model = ApprovalRequest
        fields = []

    def filter_status(self, queryset, name, value):
        now = timezone.now()
        if value == ApprovalStatus.PENDING:
            return queryset.filter(status=value, expires_at__gt=now)
        if value == ApprovalStatus.EXPIRED:
            return queryset.filter(Q(status=value) | Q(status=ApprovalStatus.PENDING, expires_at__lte=now))
        return queryset.filter(status=value)


class TransactionFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=TransactionStatus.choices, label="Status", empty_label="Any")
    customer = django_filters.CharFilter(label="Customer", method="filter_customer", widget=CustomerPicker())
    created_from = DayFilter(field_name="created_upstream_at", label="Created from")
    created_until = DayFilter(field_name="created_upstream_at", label="Created until", until=True)
    correlation_id = django_filters.CharFilter(field_name="correlation_id", label="Correlation id")
    rail = django_filters.ChoiceFilter(
        field_name="source_payment_method",
        label="Source rail or chain",
        choices=[(m, METHOD_LABELS[m]) for m in (*RAILS, *CHAINS)],
        empty_label="Any",
    )
    currency = django_filters.ChoiceFilter(
        field_name="source_currency",
        label="Source currency",
        choices=[(c, c) for c in (*FIAT_CURRENCIES, *TOKENS)],
        empty_label="Any",
    )
    expires_within = django_filters.NumberFilter(
        method="filter_expires_within",
        label="Expires within (minutes)",
        min_value=1,
        max_value=7 * 24 * 60,
    )

    class Meta:
        model = Transaction
        fields = []

    def filter_customer(self, queryset, name, value):
        # The FK column equal to the customer's key, resolved first by a scalar subquery (an
        # InitPlan, no extra query): the (customer, created, id) index then serves the page in
        # keyset order, where a join on the upstream id made the planner sort all the
        # customer's rows.
        key = Customer.objects.filter(customer_id=value.strip()).values("pk")[:1]
        return queryset.filter(customer_id=Subquery(key))

    def filter_expires_within(self, queryset, name, value):
        # Not yet expired, and expiring within `value` minutes (the (status, expires_at) index).
        now = timezone.now()
        return queryset.filter(expires_at__gte=now, expires_at__lt=now + dt.timedelta(minutes=int(value)))
