"""The monitoring rules: each kind's parameters and the sentence that says what it looks for
(their detection: monitoring/detection.py).

Transactions counted by every rule: all but the failed, cancelled and expired ones (an attempt
to move money counts from its creation).
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError

from core import labels
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
