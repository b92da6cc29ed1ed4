"""Reads of the transactions workspace: what a quote may combine, list filters, stuck rules."""

import datetime as dt
from dataclasses import dataclass

import django_filters
from django import forms
from django.conf import settings
from django.db.models import Case, CharField, Q, QuerySet, Value, When
from django.utils import timezone

from customers.models import Customer, CustomerStatus

from .models import PaymentAccount, PaymentAccountStatus, Transaction, TransactionStatus

# The rails of the spec and the one currency each carries (docs/decisions/sandbox-payments.md).
RAIL_CURRENCY = {
    "ACH": "USD", "WIRE": "USD", "ACH_SAME_DAY": "USD", "SWIFT": "USD", "EC_LOCAL": "USD", "SV_LOCAL": "USD",
    "SEPA": "EUR", "AE_UAEFTS": "AED", "AR_TRANSFERS_3": "ARS", "AU_BECS": "AUD", "BD_BEFTN": "BDT",
    "BO_RTGS": "BOB", "BR_TED_DOC_PIX": "BRL", "CA_INTERAC": "CAD", "CL_TEF": "CLP", "CN_CNAPS": "CNY",
    "CO_ACH": "COP", "CR_SINPE": "CRC", "CZ_CERTIS": "CZK", "DK_NEMKONTO_FI": "DKK", "DO_ACH": "DOP",
    "EG_RTGS_IPN": "EGP", "GB_BACS_CHAPS_FPS": "GBP", "GH_GHIPSS": "GHS", "GT_ACH": "GTQ",
    "HK_HKICL_CHATS_ECG": "HKD", "HU_GIRO": "HUF", "ID_SKN_RTGS": "IDR", "IL_ZAHAV": "ILS",
    "IN_NEFT_RTGS_IMPS": "INR", "JM_LOCAL": "JMD", "JO_ACH": "JOD", "JP_ZENGIN": "JPY", "KE_KIBBS_PESALINK": "KES",
    "KR_LOCAL": "KRW", "LK_LOCAL": "LKR", "MX_SPEI": "MXN", "MY_IBG_RENTAS": "MYR", "NG_NIBSS_NEFT": "NGN",
    "NO_NICS": "NOK", "NP_LOCAL": "NPR", "NZ_LOCAL": "NZD", "PE_CCE": "PEN", "PH_INSTAPAY_PESONET": "PHP",
    "PK_RAAST_IBFT": "PKR", "PL_ELIXIR_BLUE_CASH": "PLN", "QA_QPS": "QAR", "RO_RTGS": "RON", "SA_MADA": "SAR",
    "SE_BANKGIROT": "SEK", "SG_FAST_MEPS": "SGD", "TH_BAHTNET_PROMPTPAY": "THB", "TR_FAST_EFT": "TRY",
    "TZ_RTGS": "TZS", "VN_IBPS": "VND", "ZA_RTGS_EFT": "ZAR",
}  # fmt: skip
# Tokens each chain carries.
CHAIN_TOKENS = {
    "ARBITRUM": ["USDC", "USDT", "ETH"],
    "BASE": ["USDC", "EURC", "ETH"],
    "ETHEREUM": ["USDC", "USDT", "EURC", "ETH"],
    "OPTIMISM": ["USDC", "USDT", "ETH"],
    "POLYGON": ["USDC", "USDT"],
    "SOLANA": ["USDC", "USDT", "EURC", "SOL"],
}
CHAINS = frozenset(CHAIN_TOKENS)


@dataclass(frozen=True)
class AccountOptions:
    """What a quote may use with one account: its payment methods and currencies."""

    methods: list[str]
    currencies: list[str]
    is_crypto: bool


def _label(currency) -> str:
    if isinstance(currency, dict):
        return currency.get("label") or currency.get("contractAddress") or ""
    return currency or ""


def account_options(account: PaymentAccount) -> AccountOptions:
    """The methods and currencies the API accepts for this account (sandbox-payments.md, Quotes)."""
    details = account.details or {}
    kind = account.account_type
    if kind == "EXTERNAL_BANK_ACCOUNT":
        method = details.get("bankAccountPaymentMethod") or "ACH"
        return AccountOptions([method], [_label(details.get("bankAccountCurrency")) or "USD"], False)
    if kind in ("EXTERNAL_CRYPTO_WALLET", "SERVICE_CRYPTO_WALLET"):
        chain = (details.get("address") or {}).get("chain") or details.get("chain") or ""
        if kind == "EXTERNAL_CRYPTO_WALLET":
            currencies = [_label(details.get("currency"))]
        else:
            currencies = CHAIN_TOKENS.get(chain, [])
        return AccountOptions([chain] if chain else [], [c for c in currencies if c], True)
    currency = _label(details.get("currency"))
    methods = details.get("supportedPaymentMethods") or [r for r, c in RAIL_CURRENCY.items() if c == currency]
    return AccountOptions(list(methods), [currency] if currency else [], False)


def direction_of(source_payment_method: str) -> str:
    """The API infers the kind from the methods: a fiat source is an onramp, a chain an offramp."""
    if not source_payment_method:
        return ""
    return "Offramp" if source_payment_method in CHAINS else "Onramp"


def customers_search(*, query: str, limit: int = 10) -> QuerySet[Customer]:
    """ACTIVE customers whose name or e-mail starts with `query`, or whose id is `query`."""
    query = query.strip()
    if not query:
        return Customer.objects.none()
    matches = Q(name__istartswith=query) | Q(email__istartswith=query) | Q(customer_id=query)
    return Customer.objects.filter(matches, status=CustomerStatus.ACTIVE, missing_upstream=False).order_by("name")[
        :limit
    ]


def quote_accounts(*, customer: Customer) -> tuple[list[PaymentAccount], list[PaymentAccount]]:
    """(sources, destinations): the customer's own ACTIVE accounts; destinations also the
    third-party accounts of the customer's organization (a payout to someone else)."""
    usable = PaymentAccount.objects.filter(
        status=PaymentAccountStatus.ACTIVE, account_id__isnull=False, missing_upstream=False
    ).order_by("nickname", "id")
    own = list(usable.filter(customer=customer))
    third_parties = usable.filter(is_third_party=True, customer__organization_id=customer.organization_id).exclude(
        customer=customer
    )
    sources = [a for a in own if not a.is_third_party]
    return sources, own + list(third_parties)


# --- The transactions list ----------------------------------------------------------------------


def _date_input():
    return forms.DateInput(attrs={"type": "date"})


class TransactionFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=TransactionStatus.choices, label="Status", empty_label="Any")
    customer = django_filters.CharFilter(field_name="customer__customer_id", label="Customer id")
    created_from = django_filters.DateFilter(
        field_name="created_upstream_at", method="filter_from", label="Created from", widget=_date_input()
    )
    created_until = django_filters.DateFilter(
        field_name="created_upstream_at", method="filter_until", label="Created until", widget=_date_input()
    )
    correlation_id = django_filters.CharFilter(field_name="correlation_id", label="Correlation id")

    class Meta:
        model = Transaction
        fields = []

    def filter_from(self, queryset, name, value):
        return queryset.filter(**{f"{name}__gte": dt.datetime.combine(value, dt.time.min, tzinfo=dt.UTC)})

    def filter_until(self, queryset, name, value):
        # The whole day counts: before the next midnight, a range the keyset index can seek.
        start = dt.datetime.combine(value + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)
        return queryset.filter(**{f"{name}__lt": start})


def transactions_listed() -> QuerySet[Transaction]:
    """The rows of the list pages, with what they show and no more."""
    return (
        Transaction.objects.select_related("customer")
        .only(
            "transaction_id",
            "status",
            "status_since",
            "source_payment_method",
            "source_currency",
            "source_amount",
            "destination_payment_method",
            "destination_currency",
            "destination_amount",
            "correlation_id",
            "expires_at",
            "created_upstream_at",
            "customer__name",
            "customer__customer_id",
        )
        .annotate(
            direction=Case(
                When(source_payment_method__in=CHAINS, then=Value("Offramp")),
                When(source_payment_method="", then=Value("")),
                default=Value("Onramp"),
                output_field=CharField(),
            )
        )
    )


EXPORT_COLUMNS = [
    ("transaction_id", "transactionId"),
    ("status", "status"),
    ("customer_upstream_id", "customerId"),
    ("quote_id", "quoteId"),
    ("source_payment_method", "sourcePaymentMethod"),
    ("source_currency", "sourceCurrency"),
    ("source_amount", "sourceAmount"),
    ("destination_payment_method", "destinationPaymentMethod"),
    ("destination_currency", "destinationCurrency"),
    ("destination_amount", "destinationAmount"),
    ("exchange_rate", "exchangeRate"),
    ("correlation_id", "correlationId"),
    ("created_upstream_at", "createdAt"),
    ("status_since", "statusSince"),
]


# --- Stuck work ---------------------------------------------------------------------------------


class StuckRule:
    AWAITING_EXPIRED = "awaiting-expired"
    PROCESSING_LONG = "processing-long"
    CREATED_LONG = "created-long"


STUCK_RULE_LABELS = {
    StuckRule.AWAITING_EXPIRED: "Awaiting transfer past expiry",
    StuckRule.PROCESSING_LONG: "Processing too long",
    StuckRule.CREATED_LONG: "Created too long",
}


def transactions_stuck(
    *, rule: str, processing_hours: int | None = None, created_minutes: int | None = None, now=None
) -> tuple[QuerySet[Transaction], tuple[str, ...]]:
    """The transactions one stuck rule selects, and the keyset ordering (oldest first) that
    follows its index: (status, expires_at) or (status, status_since)."""
    now = now or timezone.now()
    rows = transactions_listed()
    if rule == StuckRule.PROCESSING_LONG:
        hours = processing_hours if processing_hours is not None else settings.STUCK_PROCESSING_HOURS
        since = now - dt.timedelta(hours=hours)
        return rows.filter(status=TransactionStatus.PROCESSING, status_since__lt=since), ("status_since", "id")
    if rule == StuckRule.CREATED_LONG:
        minutes = created_minutes if created_minutes is not None else settings.STUCK_CREATED_MINUTES
        since = now - dt.timedelta(minutes=minutes)
        return rows.filter(status=TransactionStatus.CREATED, status_since__lt=since), ("status_since", "id")
    return rows.filter(status=TransactionStatus.AWAITING_TRANSFER, expires_at__lt=now), ("expires_at", "id")
