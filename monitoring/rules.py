"""The monitoring rules: each kind's parameters, the sentence that says what it looks for, and its
detection over one customer's recent transactions (the ORM over the tx_customer_monitoring index).

Transactions counted by every rule: all but the failed, cancelled and expired ones (an attempt
to move money counts from its creation). Windowed rules (velocity, structuring, many
counterparties) raise at most one alert per customer and rule in each period of the window's
length (counted from the Unix epoch), however many transactions keep the pattern going.
"""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Count, Max, Min, Sum

from core import labels
from payments.models import PaymentAccount, Transaction
from payments.rails import CHAINS, FIAT_CURRENCIES, RAILS, TOKENS

from .models import RuleKind

NOT_COUNTED = ("FAILED", "CANCELLED", "EXPIRED")
CHAIN_SET, RAIL_SET = frozenset(CHAINS), frozenset(RAILS)


@dataclass(frozen=True)
class Param:
    name: str
    label: str
    type: str  # "int", "usd", "percent", "list"
    default: object = None
    required: bool = True
    help: str = ""


PARAMS: dict[str, list[Param]] = {
    RuleKind.LARGE_TRANSFER: [Param("min_usd", "At or above (USD)", "usd", "50000")],
    RuleKind.VELOCITY: [
        Param("window_hours", "Window (hours)", "int", 24),
        Param("max_count", "More than this many transactions", "int", 10, required=False),
        Param("max_usd", "Or more than this much (USD)", "usd", "100000", required=False),
    ],
    RuleKind.STRUCTURING: [
        Param("window_hours", "Window (hours)", "int", 24),
        Param("min_count", "At least this many transfers", "int", 3),
        Param("band_percent", "Each within this % under the threshold", "percent", 10),
        Param(
            "threshold_usd",
            "Threshold (USD)",
            "usd",
            None,
            required=False,
            help="Empty: the approval threshold (APPROVAL_THRESHOLD_USD).",
        ),
    ],
    RuleKind.RAPID_IN_OUT: [
        Param("hours", "Within (hours)", "int", 48),
        Param("min_percent", "Out at least this % of what came in", "percent", 80),
    ],
    RuleKind.MANY_COUNTERPARTIES: [
        Param("window_hours", "Window (hours)", "int", 168),
        Param("max_destinations", "More than this many destination accounts", "int", 5),
        Param("max_third_party", "Or more than this many third-party ones", "int", 2, required=False),
    ],
    RuleKind.NEW_ACCOUNT_PAYOUT: [
        Param("hours", "Account created less than (hours) before", "int", 24),
        Param("min_usd", "Transfer above (USD)", "usd", "5000"),
    ],
    RuleKind.WATCHED: [
        Param("methods", "Rails and chains", "list", [], required=False, help=", ".join(CHAINS) + ", ACH, …"),
        Param("currencies", "Currencies", "list", [], required=False, help=", ".join(TOKENS) + ", EUR, …"),
    ],
}
KNOWN_METHODS = RAIL_SET | CHAIN_SET
KNOWN_CURRENCIES = frozenset(TOKENS) | frozenset(FIAT_CURRENCIES)


def default_params(kind: str) -> dict:
    return {p.name: p.default for p in PARAMS[kind]}


def _value(param: Param, raw):
    if raw in (None, "", []):
        if param.required:
            raise ValidationError({param.name: "This parameter is required."})
        return [] if param.type == "list" else None
    if param.type == "list":
        items = raw if isinstance(raw, list) else str(raw).replace(",", " ").split()
        items = sorted({str(i).strip().upper() for i in items if str(i).strip()})
        known = KNOWN_METHODS if param.name == "methods" else KNOWN_CURRENCIES
        unknown = [i for i in items if i not in known]
        if unknown:
            raise ValidationError({param.name: f"Not known to the Payments API: {', '.join(unknown)}."})
        return items
    try:
        number = Decimal(str(raw).replace(",", "").strip())
    except InvalidOperation:
        raise ValidationError({param.name: "Enter a number."}) from None
    if not number.is_finite() or number < 0:
        raise ValidationError({param.name: "Enter a number of zero or more."})
    if param.type == "int":
        if number != number.to_integral_value() or number < 1:
            raise ValidationError({param.name: "Enter a whole number of 1 or more."})
        return int(number)
    if param.type == "percent":
        if not 0 < number <= 100:
            raise ValidationError({param.name: "Enter a percentage above 0, at most 100."})
        return int(number) if number == number.to_integral_value() else str(number)
    return str(number.quantize(Decimal(1))) if number == number.to_integral_value() else str(number)


def clean_params(kind: str, data: dict) -> dict:
    """The parameters of a rule of `kind`, checked and in their stored form (amounts as decimal
    strings); ValidationError names the parameter at fault."""
    if kind not in PARAMS:
        raise ValidationError({"kind": "Unknown kind of rule."})
    errors, params = {}, {}
    for param in PARAMS[kind]:
        try:
            params[param.name] = _value(param, data.get(param.name))
        except ValidationError as exc:
            errors.update(exc.message_dict)
    if kind == RuleKind.VELOCITY and not errors and params["max_count"] is None and params["max_usd"] is None:
        errors["max_count"] = ["Give a number of transactions, an amount, or both."]
    if kind == RuleKind.WATCHED and not errors and not (params["methods"] or params["currencies"]):
        errors["methods"] = ["Give at least one rail, chain or currency."]
    if errors:
        raise ValidationError(errors)
    return params


# --- Words ----------------------------------------------------------------------------------------


def usd(amount) -> str:
    """12345.6 -> "12,345.60"; whole amounts without cents: "10,000"."""
    amount = Decimal(str(amount))
    return f"{amount:,.0f}" if amount == amount.to_integral_value() else f"{amount:,.2f}"


def hours(value: float) -> str:
    if value < 1:
        return f"{max(1, round(value * 60))} min"
    return f"{value:.0f} h" if value >= 10 or value == int(value) else f"{value:.1f} h"


def threshold_of(params: dict) -> Decimal:
    value = params.get("threshold_usd")
    return Decimal(value) if value not in (None, "") else Decimal(settings.APPROVAL_THRESHOLD_USD)


def band_floor(params: dict) -> Decimal:
    threshold = threshold_of(params)
    return threshold * (1 - Decimal(str(params["band_percent"])) / 100)


def describe(kind: str, params: dict) -> str:
    """What a rule looks for, in staff words, from its parameters."""
    p = params
    if kind == RuleKind.LARGE_TRANSFER:
        return f"A single transfer worth {usd(p['min_usd'])} USD or more."
    if kind == RuleKind.VELOCITY:
        parts = []
        if p.get("max_count") is not None:
            parts.append(f"more than {p['max_count']} transactions")
        if p.get("max_usd") is not None:
            parts.append(f"more than {usd(p['max_usd'])} USD")
        return f"{' or '.join(parts).capitalize()} for one customer within {p['window_hours']} h."
    if kind == RuleKind.STRUCTURING:
        named = "the approval threshold of " if p.get("threshold_usd") in (None, "") else ""
        return (
            f"{p['min_count']} or more transfers within {p['window_hours']} h, each between "
            f"{usd(band_floor(p))} and {usd(threshold_of(p))} USD (just under {named}{usd(threshold_of(p))} USD), "
            f"together reaching {usd(threshold_of(p))} USD."
        )
    if kind == RuleKind.RAPID_IN_OUT:
        return (
            f"An onramp followed within {p['hours']} h by an offramp or payout of at least {p['min_percent']}% of it."
        )
    if kind == RuleKind.MANY_COUNTERPARTIES:
        extra = (
            f", or to more than {p['max_third_party']} third-party accounts"
            if p.get("max_third_party") is not None
            else ""
        )
        return (
            f"Payouts to more than {p['max_destinations']} distinct destination accounts within "
            f"{p['window_hours']} h{extra}."
        )
    if kind == RuleKind.NEW_ACCOUNT_PAYOUT:
        return f"A transfer above {usd(p['min_usd'])} USD to a destination account created less than {p['hours']} h before."
    if kind == RuleKind.WATCHED:
        watched = [labels.label(labels.METHOD, m) for m in p.get("methods") or []] + list(p.get("currencies") or [])
        return f"Any transaction on or in {', '.join(watched)}."
    return ""


# --- Detection -------------------------------------------------------------------------------------


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
