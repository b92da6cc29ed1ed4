"""Quotes: a priced conversion between two payment accounts, valid for QUOTE_LIFETIME and usable once;
and the exchange rates they are priced at."""

import datetime as dt
from decimal import Decimal

from django.db import transaction

from .. import clock
from ..auth import check_organization
from ..errors import bad_request, detail, not_found, validation_error
from ..models import (
    ApiKey,
    Customer,
    CustomerStatus,
    PaymentAccount,
    PaymentAccountStatus,
    PaymentAccountType,
    Quote,
    RateShift,
    Tier,
)
from ..rates import Currency, Pricing, amount_str, rate_str, table
from .customers import customer_for_key
from .records import parse_id, record_for_key

QUOTE_LIFETIME = dt.timedelta(minutes=5)


def check_account(
    *, account: PaymentAccount, customer: Customer, method: str, currency: str, side: str, path: list
) -> Currency:
    """The account may be used on this side of a conversion with this method and currency."""
    rates = table()
    label = f"Payment account {account.account_id}"
    if account.status != PaymentAccountStatus.ACTIVE:
        raise bad_request(f"{label} is {account.status}, not ACTIVE")
    if account.customer_id != customer.pk:
        # A third party's account (registered by another customer of the organization) may be paid into.
        if not (side == "destination" and account.is_third_party):
            raise bad_request(f"{label} does not belong to customer {customer.pk}")
    elif account.is_third_party and side == "source":
        raise bad_request(f"{label} belongs to a third party and cannot be a source of funds")
    details = account.details
    method_path = [*path[:-1], f"{side}PaymentMethod"]
    if account.account_type == PaymentAccountType.EXTERNAL_BANK_ACCOUNT:
        allowed = [details["bankAccountPaymentMethod"]]
    elif account.account_type in (PaymentAccountType.EXTERNAL_CRYPTO_WALLET, PaymentAccountType.SERVICE_CRYPTO_WALLET):
        allowed = [details["address"]["chain"]]
    else:
        allowed = rates.rails_for(details["currency"]["label"])
    if method not in allowed:
        message = f"{label} ({account.account_type}) takes payment method {' or '.join(allowed)}, not {method}"
        raise validation_error([detail(method_path, message)])
    found = rates.resolve(method, currency, path)
    own = details.get("currency") or details.get("bankAccountCurrency")
    if own and own["label"] != found.label:
        message = f"{label} holds {own['label']}, not {found.label}"
        raise validation_error([detail(path, message)])
    return found


def price_request(*, api_key: ApiKey, data: dict, customer: Customer) -> tuple[Pricing, PaymentAccount, PaymentAccount]:
    """Validate a quote request (or an automation template) against accounts and rates, and price it."""
    rates = table()
    source, destination = data["source"], data["destination"]
    src_method = rates.check_method(source["sourcePaymentMethod"], ["source", "sourcePaymentMethod"])
    dst_method = rates.check_method(
        destination["destinationPaymentMethod"], ["destination", "destinationPaymentMethod"]
    )
    kind = rates.same_kind(src_method, dst_method)
    if kind:
        raise bad_request(
            f"{src_method} -> {dst_method} is {kind} to {kind}: the sandbox converts fiat to crypto (onramp) "
            "or crypto to fiat (offramp) only"
        )
    wanted = [
        parse_id(source["sourcePaymentAccountId"], "Payment account"),
        parse_id(destination["destinationPaymentAccountId"], "Payment account"),
    ]
    found = {a.account_id: a for a in PaymentAccount.objects.filter(account_id__in=wanted)}
    accounts = []
    for account_id in wanted:
        if account_id not in found:
            raise not_found("Payment account", account_id)
        check_organization(api_key, found[account_id].organization_id)
        accounts.append(found[account_id])
    src_account, dst_account = accounts
    src = check_account(
        account=src_account,
        customer=customer,
        method=src_method,
        currency=source["sourceCurrency"],
        side="source",
        path=["source", "sourceCurrency"],
    )
    dst = check_account(
        account=dst_account,
        customer=customer,
        method=dst_method,
        currency=destination["destinationCurrency"],
        side="destination",
        path=["destination", "destinationCurrency"],
    )
    amount = rates.check_places(src, source["sourceAmount"], ["source", "sourceAmount"])
    developer_fee = data.get("developerFee") or {}
    developer_fee_usd = developer_fee.get("developerFeeAmount", Decimal(0))
    if developer_fee_usd != developer_fee_usd.quantize(Decimal("0.01")):
        message = "USD developer fees have at most 2 decimal places"
        raise validation_error([detail(["developerFee", "developerFeeAmount"], message)])
    pricing = rates.price(
        source=src,
        source_method=src_method,
        destination=dst,
        source_amount=amount,
        guarantee=data.get("guaranteeQuote", False),
        developer_fee_usd=developer_fee_usd,
        amount_path=["source", "sourceAmount"],
    )
    if api_key.tier == Tier.BUILDER:
        service_fee_usd = src.to_usd(pricing.service_fee)
        if developer_fee_usd < service_fee_usd:
            message = (
                f"Builder-tier keys must set a developer fee of at least the service fee "
                f"({amount_str(service_fee_usd)} USD); got {amount_str(developer_fee_usd)} USD"
            )
            raise validation_error([detail(["developerFee", "developerFeeAmount"], message)])
    return pricing, src_account, dst_account


@transaction.atomic
def quote_create(*, api_key: ApiKey, data: dict) -> Quote:
    customer = customer_for_key(api_key=api_key, customer_id=data["customerId"])
    if customer.status != CustomerStatus.ACTIVE:
        raise bad_request(
            f"Customer {customer.pk} is {customer.status}: quotes can be created only for ACTIVE customers"
        )
    pricing, src_account, dst_account = price_request(api_key=api_key, data=data, customer=customer)
    now = clock.now()
    developer_fee = data.get("developerFee")
    return Quote.objects.create(
        api_key=api_key,
        customer=customer,
        source_account=src_account,
        source_payment_method=data["source"]["sourcePaymentMethod"],
        source_currency=pricing.source.label,
        source_amount=pricing.source_amount,
        destination_account=dst_account,
        destination_payment_method=data["destination"]["destinationPaymentMethod"],
        destination_currency=pricing.destination.label,
        exchange_rate=pricing.exchange_rate,
        destination_amount=pricing.destination_amount,
        fees=pricing.fees(with_developer_fee=True),
        developer_fee=(
            {"developerFeeType": "USD", "developerFeeAmount": amount_str(developer_fee["developerFeeAmount"])}
            if developer_fee
            else None
        ),
        guarantee=data.get("guaranteeQuote", False),
        created_at=now,
        expires_at=now + QUOTE_LIFETIME,
    )


def quote_body(quote: Quote) -> dict:
    return {
        "quoteId": str(quote.pk),
        "expiresAt": clock.iso(quote.expires_at),
        "estimatedExchangeRate": rate_str(quote.exchange_rate),
        "destinationAmount": amount_str(quote_currencies(quote)[1].quantize(quote.destination_amount)),
        "fees": quote.fees,
    }


def quote_currencies(quote: Quote) -> tuple[Currency, Currency]:
    rates = table()
    return (
        rates.resolve(quote.source_payment_method, quote.source_currency, ["sourceCurrency"]),
        rates.resolve(quote.destination_payment_method, quote.destination_currency, ["destinationCurrency"]),
    )


def quote_for_key(*, api_key: ApiKey, quote_id, lock: bool = False) -> Quote:
    quotes = Quote.objects.select_related("customer")
    if lock:
        quotes = quotes.select_for_update(of=("self",))
    return record_for_key(quotes, api_key=api_key, kind="Quote", record_id=quote_id)


# --- exchange rates -----------------------------------------------------------------------------


def exchange_rate_body(
    *, source_method: str, source_currency: str, destination_method: str, destination_currency: str, source_amount
) -> dict:
    """GET /exchange-rates: the rate and the FLAT fee; with a source amount (not None) also the
    PERCENTAGE fee, the fees and the destination amount (no developer fee). Query parameters."""
    rates = table()
    src_method = rates.check_method(source_method, ["sourcePaymentMethod"], location="query")
    dst_method = rates.check_method(destination_method, ["destinationPaymentMethod"], location="query")
    kind = rates.same_kind(src_method, dst_method)
    if kind:
        raise bad_request(
            f"{src_method} -> {dst_method} is {kind} to {kind}: rates exist from fiat to crypto (onramp) "
            "and from crypto to fiat (offramp) only"
        )
    source = rates.resolve(src_method, source_currency, ["sourceCurrency"], location="query")
    destination = rates.resolve(dst_method, destination_currency, ["destinationCurrency"], location="query")
    if source_amount is not None:
        rates.check_places(source, source_amount, ["sourceAmount"], location="query")
    pricing = rates.price(
        source=source, source_method=src_method, destination=destination, source_amount=source_amount, location="query"
    )
    body = {"exchangeRate": rate_str(pricing.exchange_rate), "feeComponents": pricing.fee_components()}
    if source_amount is not None:
        body["destinationAmount"] = amount_str(pricing.destination_amount)
        body["fees"] = pricing.fees(with_developer_fee=False)
    return body


def exchange_rate_shift(*, currency: str, bps: int) -> dict:
    """Test helper: move `currency`'s mid-rate `bps` basis points off the snapshot (its units
    per USD), for every key, until set again; 0 puts it back."""
    rates = table()
    label = currency.strip().upper()
    if label not in {*rates.fiat, *(c.label for c in rates.tokens.values())}:
        raise validation_error([detail(["currency"], f"Unknown currency '{currency}'")])
    RateShift.objects.update_or_create(label=label, defaults={"bps": bps})
    return {"currency": label, "bps": bps}
