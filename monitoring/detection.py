"""Each monitoring rule's detection over one customer's recent transactions (the ORM over the
tx_customer_monitoring index), beside its parameters and words in monitoring/rules.py.

Windowed rules (velocity, structuring, many counterparties) raise at most one alert per customer
and rule in each period of the window's length (counted from the Unix epoch), however many
transactions keep the pattern going.
"""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Max, Min, Sum

from core import labels
from payments.models import PaymentAccount, Transaction
from payments.rails import CHAINS, RAILS

from .models import RuleKind
from .rules import CHAIN_SET, NOT_COUNTED, RAIL_SET, band_floor, hours, threshold_of, usd


@dataclass
class Hit:
    """What a rule found: `key` makes it one alert however often it is found again."""

    key: str
    sentence: str
    figures: dict = field(default_factory=dict)
    transaction_ids: list = field(default_factory=list)
    account_ids: list = field(default_factory=list)


def is_onramp(tx) -> bool:
    return tx.source_payment_method in RAIL_SET and tx.destination_payment_method in CHAIN_SET


def is_outgoing(tx) -> bool:
    """An offramp or a payout: crypto leaving the customer's holdings (to a bank account or a
    wallet)."""
    return tx.source_payment_method in CHAIN_SET


def counted(customer_id):
    return Transaction.objects.filter(customer_id=customer_id).exclude(status__in=NOT_COUNTED)


def window_of(tx, window_hours: int):
    """The customer's counted transactions in (created - window, created]."""
    end = tx.created_upstream_at
    return counted(tx.customer_id).filter(
        created_upstream_at__gt=end - dt.timedelta(hours=window_hours), created_upstream_at__lte=end
    )


def bucket(moment: dt.datetime, window_hours: int) -> int:
    return int(moment.timestamp() // (window_hours * 3600))


def _ids(queryset, limit: int = 50) -> list[str]:
    return list(queryset.order_by("created_upstream_at", "id").values_list("transaction_id", flat=True)[:limit])


def _span_hours(first, last) -> float:
    return (last - first).total_seconds() / 3600 if first and last else 0.0


def detect(kind: str, params: dict, tx) -> Hit | None:
    """What a rule of `kind` with `params` finds when `tx` (a mirrored Transaction) appears or
    changes; None when nothing. `tx` itself must be counted."""
    if tx.customer_id is None or tx.status in NOT_COUNTED:
        return None
    return DETECTORS[kind](params, tx)


def _large(params, tx):
    limit = Decimal(params["min_usd"])
    if tx.usd_value is None or tx.usd_value < limit:
        return None
    return Hit(
        key=f"tx:{tx.transaction_id}",
        sentence=f"A transfer of {usd(tx.usd_value)} USD, at or above {usd(limit)} USD.",
        figures={"usd": str(tx.usd_value), "limit": str(limit)},
        transaction_ids=[tx.transaction_id],
    )


def _velocity(params, tx):
    window = params["window_hours"]
    rows = window_of(tx, window)
    agg = rows.aggregate(n=Count("id"), total=Sum("usd_value"), first=Min("created_upstream_at"))
    total = agg["total"] or Decimal(0)
    over_count = params.get("max_count") is not None and agg["n"] > params["max_count"]
    over_usd = params.get("max_usd") is not None and total > Decimal(params["max_usd"])
    if not (over_count or over_usd):
        return None
    span = _span_hours(agg["first"], tx.created_upstream_at)
    limits = []
    if over_count:
        limits.append(f"more than {params['max_count']} transactions")
    if over_usd:
        limits.append(f"more than {usd(params['max_usd'])} USD")
    return Hit(
        key=f"w:{bucket(tx.created_upstream_at, window)}",
        sentence=(
            f"{agg['n']} transactions in {hours(span)}, {usd(total)} USD in all: "
            f"{' and '.join(limits)} within {window} h."
        ),
        figures={"count": agg["n"], "usd": str(total), "hours": round(span, 2)},
        transaction_ids=_ids(rows),
    )


def _structuring(params, tx):
    threshold, floor = threshold_of(params), band_floor(params)
    if tx.usd_value is None or not floor <= tx.usd_value < threshold:
        return None
    window = params["window_hours"]
    rows = window_of(tx, window).filter(usd_value__gte=floor, usd_value__lt=threshold)
    agg = rows.aggregate(
        n=Count("id"),
        total=Sum("usd_value"),
        low=Min("usd_value"),
        high=Max("usd_value"),
        first=Min("created_upstream_at"),
    )
    total = agg["total"] or Decimal(0)
    if agg["n"] < params["min_count"] or total < threshold:
        return None
    named = "approval threshold" if params.get("threshold_usd") in (None, "") else "threshold"
    span = _span_hours(agg["first"], tx.created_upstream_at)
    return Hit(
        key=f"w:{bucket(tx.created_upstream_at, window)}",
        sentence=(
            f"{agg['n']} transfers of {usd(agg['low'])}\u2013{usd(agg['high'])} USD in {hours(span)}, "
            f"{usd(total)} USD in all, each under the {usd(threshold)} USD {named}."
        ),
        figures={
            "count": agg["n"],
            "low": str(agg["low"]),
            "high": str(agg["high"]),
            "usd": str(total),
            "hours": round(span, 2),
            "threshold": str(threshold),
        },
        transaction_ids=_ids(rows),
    )


def _rapid_in_out(params, tx):
    if not is_outgoing(tx) or tx.usd_value is None:
        return None
    share = Decimal(str(params["min_percent"])) / 100
    since = tx.created_upstream_at - dt.timedelta(hours=params["hours"])
    onramps = (
        counted(tx.customer_id)
        .filter(
            created_upstream_at__gte=since,
            created_upstream_at__lte=tx.created_upstream_at,
            source_payment_method__in=RAILS,
            destination_payment_method__in=CHAINS,
            usd_value__lte=tx.usd_value / share,
            usd_value__gt=0,
        )
        .order_by("-usd_value", "created_upstream_at")
    )
    onramp = onramps.first()
    if onramp is None:
        return None
    span = _span_hours(onramp.created_upstream_at, tx.created_upstream_at)
    percent = (tx.usd_value / onramp.usd_value * 100).quantize(Decimal(1))
    return Hit(
        key=f"pair:{onramp.transaction_id}:{tx.transaction_id}",
        sentence=(
            f"{usd(onramp.usd_value)} USD came in by an onramp and {usd(tx.usd_value)} USD ({percent}%) "
            f"went out {hours(span)} later, within {params['hours']} h."
        ),
        figures={
            "in": str(onramp.usd_value),
            "out": str(tx.usd_value),
            "percent": str(percent),
            "hours": round(span, 2),
        },
        transaction_ids=[onramp.transaction_id, tx.transaction_id],
    )


def _many_counterparties(params, tx):
    if not is_outgoing(tx):
        return None
    window = params["window_hours"]
    rows = window_of(tx, window).filter(source_payment_method__in=CHAINS).exclude(destination_account_id="")
    destinations = set(rows.values_list("destination_account_id", flat=True).distinct())
    third = set(
        PaymentAccount.objects.filter(account_id__in=destinations, is_third_party=True).values_list(
            "account_id", flat=True
        )
    )
    over = len(destinations) > params["max_destinations"]
    over_third = params.get("max_third_party") is not None and len(third) > params["max_third_party"]
    if not (over or over_third):
        return None
    return Hit(
        key=f"w:{bucket(tx.created_upstream_at, window)}",
        sentence=(
            f"Payouts to {len(destinations)} distinct destination accounts, {len(third)} of them third-party, "
            f"within {window} h (more than "
            + (f"{params['max_destinations']}" if over else f"{params['max_third_party']} third-party")
            + ")."
        ),
        figures={"destinations": len(destinations), "third_party": len(third)},
        transaction_ids=_ids(rows),
        account_ids=sorted(destinations)[:50],
    )


def _new_account_payout(params, tx):
    limit = Decimal(params["min_usd"])
    if tx.usd_value is None or tx.usd_value <= limit or not tx.destination_account_id:
        return None
    account = PaymentAccount.objects.filter(account_id=tx.destination_account_id).first()
    created = account and (account.created_upstream_at or account.first_seen_at)
    if not created:
        return None
    age = _span_hours(created, tx.created_upstream_at)
    if not 0 <= age < params["hours"]:
        return None
    return Hit(
        key=f"tx:{tx.transaction_id}",
        sentence=(
            f"A transfer of {usd(tx.usd_value)} USD (above {usd(limit)} USD) to a destination account "
            f"created {hours(age)} before it."
        ),
        figures={"usd": str(tx.usd_value), "account_age_hours": round(age, 2)},
        transaction_ids=[tx.transaction_id],
        account_ids=[tx.destination_account_id],
    )


def _watched(params, tx):
    methods = set(params.get("methods") or [])
    currencies = set(params.get("currencies") or [])
    seen = [
        labels.label(labels.METHOD, m)
        for m in (tx.source_payment_method, tx.destination_payment_method)
        if m in methods
    ] + [c for c in (tx.source_currency, tx.destination_currency) if c in currencies]
    if not seen:
        return None
    seen = list(dict.fromkeys(seen))
    value = f" of {usd(tx.usd_value)} USD" if tx.usd_value is not None else ""
    return Hit(
        key=f"tx:{tx.transaction_id}",
        sentence=f"A transaction{value} on or in {', '.join(seen)}, which this rule watches.",
        figures={"watched": seen},
        transaction_ids=[tx.transaction_id],
    )


DETECTORS = {
    RuleKind.LARGE_TRANSFER: _large,
    RuleKind.VELOCITY: _velocity,
    RuleKind.STRUCTURING: _structuring,
    RuleKind.RAPID_IN_OUT: _rapid_in_out,
    RuleKind.MANY_COUNTERPARTIES: _many_counterparties,
    RuleKind.NEW_ACCOUNT_PAYOUT: _new_account_payout,
    RuleKind.WATCHED: _watched,
}
