"""The audit log names a customer by name, linking to the customer's page."""

from django.urls import reverse

from audit.targets import Target

from .models import Customer


def customer_rows(ids: set[str]):
    return Customer.objects.filter(customer_id__in=ids).values("customer_id", "name")


def name_customers(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    return {
        row["customer_id"]: Target(
            row["name"] or row["customer_id"], reverse("customers-view-customer", args=[row["customer_id"]])
        )
        for row in rows
    }
