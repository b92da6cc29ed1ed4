"""The seed of the demo organization, all or nothing, and the counts of what it holds."""

from collections import Counter

from django.db import transaction
from django.db.models import Count

from ..models import ApiKey, AutomationRule, Balance, Customer, Delivery, PaymentAccount, Quote, Transaction
from .customers import seed_customers
from .keys import DEMO_ORGANIZATION_ID, ensure_demo_key
from .seeding import Seeding
from .webhooks import ensure_unreachable_endpoint, shape_deliveries

DEFAULT_CUSTOMERS = 40
# The first MIN_CUSTOMERS profiles hold every customer status (customers.PROFILES).
MIN_CUSTOMERS = 10


def seed(*, customers: int = DEFAULT_CUSTOMERS) -> dict | None:
    """Fill the demo organization; None (and nothing done) when it has customers already."""
    if customers < MIN_CUSTOMERS:
        raise ValueError(f"At least {MIN_CUSTOMERS} customers are needed for every status to appear")
    with transaction.atomic():
        # The key's row is the lock: of two seeds at once, the second waits, then finds data.
        api_key = ApiKey.objects.select_for_update().get(pk=ensure_demo_key().pk)
        if Customer.objects.filter(organization_id=DEMO_ORGANIZATION_ID).exists():
            return None
        # One transaction: all or nothing, and the reviews queued on commit find every
        # customer already decided (or held), whatever SANDBOX_REVIEW_DELAY_SECONDS says.
        # The endpoint first, so that the customers' events are delivered to it too.
        endpoint = ensure_unreachable_endpoint()
        seed_customers(Seeding(api_key), customers)
        shape_deliveries(endpoint)
    return summary()


def summary() -> dict:
    """Counts of the demo organization's records, per status where they have one."""
    org = DEMO_ORGANIZATION_ID

    def counts_by(queryset, *fields):
        rows = queryset.values(*fields).annotate(n=Count("pk")).order_by(*fields)
        return {" ".join(str(row[f]) for f in fields): row["n"] for row in rows}

    quotes = Quote.objects.filter(customer__organization_id=org)
    rules = AutomationRule.objects.filter(customer__organization_id=org)
    return {
        "customers": counts_by(Customer.objects.filter(organization_id=org), "status"),
        "customer types": counts_by(Customer.objects.filter(organization_id=org), "customer_type"),
        "payment accounts": counts_by(PaymentAccount.objects.filter(organization_id=org), "account_type", "status"),
        "funded balances": Balance.objects.filter(account__organization_id=org, amount__gt=0).count(),
        "quotes": {"used": quotes.filter(used_at__isnull=False).count(), "unused": quotes.filter(used_at=None).count()},
        "transactions": counts_by(Transaction.objects.filter(customer__organization_id=org), "status"),
        "webhook deliveries": counts_by(Delivery.objects.filter(endpoint__organization_id=org), "status"),
        "automation rules": dict(
            Counter("threshold" if "thresholdAmount" in r.trigger else "cron" for r in rules.only("trigger"))
        ),
    }
