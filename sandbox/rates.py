"""Exchange rates, currencies and fees of the sandbox, from the fixed snapshot sandbox/data/rates.json.

The snapshot is loaded once per process. Only the test helper exchange-rates/shift moves a
currency's mid-rate off it (a RateShift row), so that a test can see a price change. Rates are mid-rates in units per USD; a pair's mid-rate
is perUsd(destination) / perUsd(source). Pricing (docs/decisions/sandbox-payments.md):

- FX (the two currencies have different value units: USD vs EUR, ETH vs USD; USD -> USDC is not FX)
  takes `fxSpreadBps` off the mid-rate, and a guaranteed quote `guaranteedFxSpreadBps` more.
- The service fee is in the source currency: FLAT (a USD amount per source payment method, converted
  at the mid-rate) plus PERCENTAGE (`percentageBps` of the source amount), each rounded half-even
  to the source currency's decimals.
- destinationAmount = (sourceAmount - serviceFee - developerFee) x exchangeRate, rounded DOWN to the
  destination currency's decimals, so the sandbox never promises more than it delivers.
"""

import json
import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, localcontext
from functools import cache
from pathlib import Path

from .errors import detail, validation_error
from .models import RateShift

DATA_FILE = Path(__file__).parent / "data" / "rates.json"
RATE_PLACES = Decimal("1e-10")
USD_PLACES = Decimal("0.01")
BPS = Decimal(10000)
FLAT, PERCENTAGE = "FLAT", "PERCENTAGE"


@dataclass(frozen=True)
class Currency:
    label: str
    decimals: int
    per_usd: Decimal
    # What one unit is worth in: USD for USD and USDC alike, so that USD -> USDC is not FX.
    value_unit: str
    chain: str = ""
    contract_address: str = ""

    @property
    def is_crypto(self) -> bool:
        return bool(self.chain)

    @property
    def places(self) -> Decimal:
        return Decimal(1).scaleb(-self.decimals)

    def quantize(self, amount: Decimal, rounding=ROUND_HALF_EVEN) -> Decimal:
        return amount.quantize(self.places, rounding=rounding)

    def to_usd(self, amount: Decimal) -> Decimal:
        with localcontext() as ctx:
            ctx.prec = 40
            return (amount / self.per_usd).quantize(USD_PLACES, rounding=ROUND_HALF_EVEN)

    def as_object(self, *, decimals_as_string: bool = False) -> dict:
        """The spec's currency object: fiat has `label` only."""
        if not self.is_crypto:
            return {"label": self.label}
        obj = {"label": self.label, "chain": self.chain}
        if self.contract_address:
            obj["contractAddress"] = self.contract_address
        obj["currencyDecimals"] = str(self.decimals) if decimals_as_string else self.decimals
        return obj


@dataclass(frozen=True)
class Pricing:
    """One priced conversion; amounts are None when no source amount was given."""

    source: Currency
    destination: Currency
    exchange_rate: Decimal
    fx: bool
    flat_fee: Decimal
    percentage_bps: int
    source_amount: Decimal | None = None
    percentage_fee: Decimal | None = None
    developer_fee: Decimal = Decimal(0)
    developer_fee_usd: Decimal = Decimal(0)
    destination_amount: Decimal | None = None

    @property
    def service_fee(self) -> Decimal | None:
        if self.percentage_fee is None:
            return None
        return self.flat_fee + self.percentage_fee

    def fee_components(self) -> list[dict]:
        currency = self.source.as_object()
        items = [{"feeType": FLAT, "feeAmount": amount_str(self.flat_fee), "feeCurrency": currency}]
        if self.percentage_fee is not None:
            items.append({"feeType": PERCENTAGE, "feeAmount": amount_str(self.percentage_fee), "feeCurrency": currency})
        return items

    def fees(self, *, with_developer_fee: bool) -> dict:
        fees = {
            "feeCurrency": self.source.as_object(),
            "serviceFee": {
                "feeAmount": amount_str(self.service_fee),
                "feeUSDAmount": amount_str(self.source.to_usd(self.service_fee)),
            },
        }
        if with_developer_fee:
            fees["developerFee"] = {
                "feeAmount": amount_str(self.developer_fee),
                "feeUSDAmount": amount_str(self.developer_fee_usd.quantize(USD_PLACES)),
            }
        return fees


def amount_str(amount: Decimal) -> str:
    """Amounts keep their currency's places ("10.50"); never exponent notation."""
    return format(amount, "f")


def rate_str(rate: Decimal) -> str:
    """Rates drop trailing zeros ("0.9172", "1")."""
    return format(rate.normalize(), "f")


# What the sandbox's money columns hold (numeric(38, 18)): the one bound of every amount.
MAX_WHOLE_DIGITS = 20
MAX_PLACES = 18
_DECIMAL = re.compile(r"([0-9]+)(?:\.([0-9]+))?")


class NotAnAmount(ValueError):
    """The message says what is wrong with the text, in the integrator's words."""


def decimal_string(value, *, positive: bool = True) -> Decimal:
    """The one reading of a decimal string from the wire ("10.50"): digits and an optional
    fraction; no sign, exponent, spaces or JSON number; at most 20 digits before the point
    and 18 after. Raises NotAnAmount, never InvalidOperation."""
    if not isinstance(value, str):
        raise NotAnAmount('Must be a decimal string such as "10.50", not a JSON number')
    match = _DECIMAL.fullmatch(value)
    if match is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise NotAnAmount(f"'{shown}' is not a decimal string (digits and an optional fraction, such as \"10.50\")")
    whole, fraction = match.group(1), match.group(2) or ""
    if len(whole.lstrip("0")) > MAX_WHOLE_DIGITS:
        raise NotAnAmount(f"Too large: at most {MAX_WHOLE_DIGITS} digits before the decimal point")
    if len(fraction) > MAX_PLACES:
        raise NotAnAmount(f"At most {MAX_PLACES} decimal places")
    amount = Decimal(value)
    if positive and amount <= 0:
        raise NotAnAmount("Must be greater than 0")
    return amount


def parse_decimal(value, path, *, location: str = "body", positive: bool = True) -> Decimal:
    """decimal_string() for a field at `path`: a VALIDATION_ERROR naming it."""
    try:
        return decimal_string(value, positive=positive)
    except NotAnAmount as exc:
        raise validation_error([detail(path, str(exc), location)]) from None


class RateTable:
    def __init__(self, data: dict):
        self.fx_spread_bps = int(data["fxSpreadBps"])
        self.guaranteed_spread_bps = int(data["guaranteedFxSpreadBps"])
        self.percentage_bps = int(data["serviceFee"]["percentageBps"])
        self.flat_usd = {k: Decimal(v) for k, v in data["serviceFee"]["flatUsd"].items()}
        self.fiat = {
            label: Currency(label, spec["decimals"], Decimal(spec["perUsd"]), label)
            for label, spec in data["fiat"].items()
        }
        self.rails = data["rails"]
        self.instruction_templates = data["instructionTemplates"]
        self.chains = {name: spec["family"] for name, spec in data["chains"].items()}
        # (chain, LABEL) and (chain, contract address) -> Currency; EVM addresses are matched lower-case.
        self.tokens: dict[tuple[str, str], Currency] = {}
        self.tokens_by_chain: dict[str, list[str]] = {chain: [] for chain in self.chains}
        with localcontext() as ctx:
            ctx.prec = 40
            for label, spec in data["crypto"].items():
                if "peg" in spec:
                    per_usd, unit = self.fiat[spec["peg"]].per_usd, spec["peg"]
                    where = spec["contracts"]
                else:
                    per_usd, unit = Decimal(1) / Decimal(spec["usdPrice"]), label
                    where = dict.fromkeys(spec["nativeOn"], "")
                for chain, address in where.items():
                    currency = Currency(label, spec["decimals"], per_usd, unit, chain, address)
                    self.tokens[(chain, label)] = currency
                    if address:
                        self.tokens[(chain, self._address_key(chain, address))] = currency
                    self.tokens_by_chain[chain].append(label)
        self.fiat_methods = list(self.rails)
        self.payment_methods = [*self.fiat_methods, *self.chains]

    @staticmethod
    def _shift_factor(source: Currency, destination: Currency) -> Decimal:
        """How far test-helpers/exchange-rates/shift moved the pair off the snapshot (1: not at all)."""
        shifts = dict(RateShift.objects.filter(label__in=[source.label, destination.label]).values_list("label", "bps"))
        if not shifts:
            return Decimal(1)
        return (1 + Decimal(shifts.get(destination.label, 0)) / BPS) / (1 + Decimal(shifts.get(source.label, 0)) / BPS)

    def _address_key(self, chain: str, address: str) -> str:
        return address.lower() if self.chains[chain] == "EVM" else address

    def is_chain(self, method: str) -> bool:
        return method in self.chains

    def same_kind(self, source_method: str, destination_method: str) -> str | None:
        """ "crypto" or "fiat" when both methods are of that kind (the sandbox converts fiat to
        crypto or crypto to fiat only); None for an onramp or offramp."""
        if self.is_chain(source_method) != self.is_chain(destination_method):
            return None
        return "crypto" if self.is_chain(source_method) else "fiat"

    def rail_currency(self, rail: str) -> str:
        return self.rails[rail]["currency"]

    def rails_for(self, label: str) -> list[str]:
        return [rail for rail, spec in self.rails.items() if spec["currency"] == label]

    def check_method(self, method, path, *, location: str = "body") -> str:
        if method not in self.rails and method not in self.chains:
            raise validation_error(
                [
                    detail(
                        path, f"Unknown payment method '{method}'. Allowed: {', '.join(self.payment_methods)}", location
                    )
                ]
            )
        return method

    def allowed_currencies(self, method: str) -> list[str]:
        if method in self.chains:
            return list(self.tokens_by_chain[method])
        return [self.rail_currency(method)]

    def resolve(self, method: str, currency, path, *, location: str = "body") -> Currency:
        """The currency `currency` (label, or token contract address on a chain) on a known payment method."""
        found = None
        if isinstance(currency, str) and currency:
            if method in self.chains:
                found = self.tokens.get((method, currency.upper())) or self.tokens.get(
                    (method, self._address_key(method, currency))
                )
            elif currency.upper() == self.rail_currency(method):
                found = self.fiat[self.rail_currency(method)]
        if found is None:
            allowed = ", ".join(self.allowed_currencies(method))
            kind = "a label or contract address" if method in self.chains else "a currency code"
            raise validation_error(
                [
                    detail(
                        path, f"Currency '{currency}' is not available on {method}; give {kind} of: {allowed}", location
                    )
                ]
            )
        return found

    def check_places(self, currency: Currency, amount: Decimal, path, *, location: str = "body") -> Decimal:
        with localcontext() as ctx:
            ctx.prec = 60  # room for any amount decimal_string() reads, at any currency's places
            whole = amount == currency.quantize(amount, ROUND_DOWN)
        if not whole:
            raise validation_error(
                [detail(path, f"{currency.label} amounts have at most {currency.decimals} decimal places", location)]
            )
        return amount

    def price(
        self,
        *,
        source: Currency,
        source_method: str,
        destination: Currency,
        source_amount: Decimal | None = None,
        guarantee: bool = False,
        developer_fee_usd: Decimal = Decimal(0),
        amount_path=("sourceAmount",),
        location: str = "body",
    ) -> Pricing:
        fx = source.value_unit != destination.value_unit
        spread = 0
        if fx:
            spread = self.fx_spread_bps + (self.guaranteed_spread_bps if guarantee else 0)
        with localcontext() as ctx:
            ctx.prec = 60  # exact for any amount decimal_string() reads
            mid = destination.per_usd / source.per_usd * self._shift_factor(source, destination)
            rate = (mid * (1 - Decimal(spread) / BPS)).quantize(RATE_PLACES, rounding=ROUND_HALF_EVEN)
            flat_usd = self.flat_usd.get(source_method, self.flat_usd["default"])
            flat = source.quantize(flat_usd * source.per_usd)
            pricing = {
                "source": source,
                "destination": destination,
                "exchange_rate": rate,
                "fx": fx,
                "flat_fee": flat,
                "percentage_bps": self.percentage_bps,
            }
            if source_amount is None:
                return Pricing(**pricing)
            percentage = source.quantize(source_amount * self.percentage_bps / BPS)
            developer_fee = source.quantize(developer_fee_usd * source.per_usd)
            net = source_amount - flat - percentage - developer_fee
            if net <= 0:
                total = flat + percentage + developer_fee
                raise validation_error(
                    [
                        detail(
                            amount_path,
                            f"Source amount {amount_str(source_amount)} {source.label} does not cover the fees "
                            f"of {amount_str(total)} {source.label}",
                            location,
                        )
                    ]
                )
            destination_amount = destination.quantize(net * rate, rounding=ROUND_DOWN)
            if destination_amount >= Decimal(10) ** MAX_WHOLE_DIGITS:
                message = (
                    f"Too large: {amount_str(source_amount)} {source.label} would be more than "
                    f"{MAX_WHOLE_DIGITS} digits of {destination.label}"
                )
                raise validation_error([detail(amount_path, message, location)])
        return Pricing(
            **pricing,
            source_amount=source_amount,
            percentage_fee=percentage,
            developer_fee=developer_fee,
            developer_fee_usd=developer_fee_usd,
            destination_amount=destination_amount,
        )


@cache
def table() -> RateTable:
    with DATA_FILE.open() as handle:
        return RateTable(json.load(handle))
