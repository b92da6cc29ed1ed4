"""Names and links instead of ids: accounts by their display name, customers by their name.

The pages look the accounts up once per page (payments.selectors.accounts_by_id, one IN
query) and the customers with select_related; these tags only render what they are given.
"""

from django import template
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def account_ref(accounts, account_id):
    """A link to the account named by its display name; its id in code when the mirror does
    not hold it; "—" when there is no id."""
    if not account_id:
        return "—"
    account = accounts.get(account_id) if accounts else None
    if account is None:
        return format_html("<code>{}</code>", account_id)
    url = reverse("payments-view-payment-account", args=[account.pk])
    return format_html('<a href="{}" title="{}">{}</a>', url, account_id, account.display_name)


@register.simple_tag
def customer_ref(customer, customer_upstream_id=""):
    """A link to the customer's page under their name; the upstream id when not mirrored."""
    if customer is None:
        return format_html("<code>{}</code>", customer_upstream_id) if customer_upstream_id else "—"
    url = reverse("customers-view-customer", args=[customer.customer_id])
    return format_html('<a href="{}">{}</a>', url, customer.name or customer.customer_id)


@register.filter
def hold_origin(account, user):
    """Where the account's hold was asked from ({"url", "text"}: a screening alert) when `user`
    may open that page; None otherwise, or when it was asked from the account's own page."""
    origin = account.hold_origin
    if origin and user.has_perm(f"core.{origin.get('permission', 'view_payments')}"):
        return origin
    return None
