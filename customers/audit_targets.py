"""The audit log names a customer by name, linking to the customer's page."""

from django.urls import reverse

from audit.targets import Target

from .models import Customer


def name_customers(ids: set[str]) -> dict[str, Target]:
    rows = Customer.objects.filter(customer_id__in=ids).values_list("customer_id", "name")
    return {
        customer_id: Target(name or customer_id, reverse("customers-view-customer", args=[customer_id]))
        for customer_id, name in rows
    }
