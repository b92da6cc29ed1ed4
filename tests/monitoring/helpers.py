"""Set-up shared by monitoring's tests: live rules approved by a second person, mirrored
transactions with their USD values, and onramps made through the sandbox."""

import datetime as dt
import uuid
from decimal import Decimal

from django.utils import timezone

from monitoring.models import MonitoringRule
from monitoring.services import rule_approve, rule_create, rule_submit
from tests.factories import CustomerFactory, PaymentAccountFactory, StaffUserFactory, TransactionFactory


def admin():
    """A staff member in the admin role (who may draft and approve monitoring rules)."""
    from tests.conftest import role_group

    user = StaffUserFactory()
    user.groups.add(role_group("admin"))
    return user


def live_rule(kind: str, name: str = "", **params) -> MonitoringRule:
    """A rule of `kind` drafted by one admin and approved by another, through the approval
    request its submission made."""
    from monitoring.rules import default_params

    maker, checker = admin(), admin()
    rule = rule_create(user=maker, name=name or kind, kind=kind, params={**default_params(kind), **params})
    rule_submit(user=maker, rule=rule)
    rule_approve(user=checker, rule=rule)
    rule.refresh_from_db()
    return rule


def tx(customer, usd, *, hours_ago: float = 0, at=None, source="ACH", destination="BASE", **fields):
    """A mirrored transaction of `customer` worth `usd` USD, made `hours_ago` before now."""
    at = at or timezone.now() - dt.timedelta(hours=hours_ago)
    usd = Decimal(str(usd))
    crypto_source = source not in ("ACH", "WIRE", "SEPA")
    values = {
        "customer": customer,
        "status_since": at,
        "created_upstream_at": at,
        "usd_value": usd,
        "source_amount": usd,
        "source_payment_method": source,
        "source_currency": "USDC" if crypto_source else "USD",
        "destination_payment_method": destination,
        "destination_currency": "USD" if destination in ("ACH", "WIRE") else "USDC",
    }
    return TransactionFactory(**{**values, **fields})


def customer(**kwargs):
    return CustomerFactory(**kwargs)


def account(customer, *, hours_ago: float = 0, third_party: bool = False, **kwargs):
    created = timezone.now() - dt.timedelta(hours=hours_ago)
    return PaymentAccountFactory(
        customer=customer,
        account_id=str(uuid.uuid4()),
        created_upstream_at=created,
        is_third_party=third_party,
        **kwargs,
    )


def onramp_quote(customer_id: str, bank_id: str, wallet_id: str, amount: str) -> dict:
    """The body of an ACH USD -> BASE USDC quote of `amount` (client.quotes.create's keywords,
    with camelCase keys as the API takes them)."""
    return {
        "customer_id": customer_id,
        "source": {
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": amount,
            "sourcePaymentAccountId": bank_id,
        },
        "destination": {
            "destinationPaymentAccountId": wallet_id,
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
    }
