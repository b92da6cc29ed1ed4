"""Payments' sections of other apps' pages: `{% load payments_sections %}` then
`{% customer_payments customer %}` on the customer page (core.together.page_section)."""

from django import template

from core.together import page_section, rows_for

from ..models import NO_NEW_ACCOUNT_STATUSES
from ..selectors import customer_section_lists, customer_section_version

register = template.Library()


@register.inclusion_tag("payments/_customer_section.html", takes_context=True)
@page_section(customer_section_lists, customer_section_version)
def customer_payments(context, customer):
    """The customer's payment accounts, transactions and rules, newest first, with the
    buttons to add an account or a quote that the staff member's role and the customer's
    status allow."""
    return {
        **rows_for(context, customer_payments, customer.pk, customer.customer_id),
        "customer": customer,
        "can_add_account": customer.status not in NO_NEW_ACCOUNT_STATUSES,
        "perms": context.get("perms"),
    }
