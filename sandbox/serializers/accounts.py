"""Payment account bodies, plus the small pieces every payments serializer shares.

Input serializers validate; output serializers only describe the answer for the OpenAPI document
(services build the answers as plain dicts, which keeps the hot paths cheap).
"""

import re
from decimal import Decimal

from django.core.validators import RegexValidator
from rest_framework import serializers

from ..kyc import Email, Enum, Pattern, StrictSerializer, Text, Uuid
from ..models import PaymentAccountStatus, PaymentAccountType
from ..rates import table

RATES = table()
CHAINS = list(RATES.chains)
FIAT_CURRENCIES = list(RATES.fiat)
CRYPTO_LABELS = sorted({currency.label for currency in RATES.tokens.values()})
PAYMENT_METHODS = list(RATES.payment_methods)


# --- shared --------------------------------------------------------------------------------------


# Decimal strings as the document describes them: digits, an optional fraction, no sign, no
# exponent, no spaces; a positive one has a non-zero digit. Decimal places per currency and amount
# limits are checked where the currency is known (docs/decisions/sandbox-contract.md).
DECIMAL_PATTERN = r"^[0-9]{1,30}(\.[0-9]{1,30})?$"
POSITIVE_DECIMAL_PATTERN = r"^([0-9]{0,29}[1-9][0-9]{0,29}(\.[0-9]{1,30})?|[0-9]{1,30}\.[0-9]{0,29}[1-9][0-9]{0,29})$"


class DecimalStringField(Pattern):
    """A decimal string ("10.50"). JSON numbers are refused: the spec carries amounts as strings."""

    default_error_messages = {
        "invalid": 'Must be a decimal string such as "10.50", not a JSON number',
        "not_string": 'Must be a decimal string such as "10.50", not a JSON number',
        "not_decimal": "'{value}' is not a decimal string",
        "not_positive": "Must be greater than 0",
    }

    def __init__(self, *, positive=True, **kwargs):
        self.positive = positive
        super().__init__(DECIMAL_PATTERN, **kwargs)
        if positive:
            # The document's pattern says "greater than 0" too; the message says it in words.
            self.validators[-1] = RegexValidator(POSITIVE_DECIMAL_PATTERN)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_string")
        try:
            text = super().to_internal_value(data)
        except serializers.ValidationError:
            self.fail("not_decimal", value=data)
        value = Decimal(text)
        if self.positive and value <= 0:
            self.fail("not_positive")
        return value


class StrictBooleanField(serializers.BooleanField):
    """true or false only, not "yes" or 1."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class CurrencyOut(serializers.Serializer):
    label = serializers.CharField()
    chain = serializers.ChoiceField(CHAINS, required=False, help_text="Crypto only")
    contractAddress = serializers.CharField(required=False, help_text="Tokens only (not native coins)")
    currencyDecimals = serializers.IntegerField(required=False, help_text="Crypto only")


class CurrencyStringDecimalsOut(CurrencyOut):
    currencyDecimals = serializers.CharField(required=False, help_text="Crypto only; a string here")


class QueryInteger(serializers.IntegerField):
    """Digits with an optional minus sign, nothing else (no "1.0", "+1" or spaces)."""

    def to_internal_value(self, data):
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,18}", data):
            self.fail("invalid")
        return super().to_internal_value(data)


class PageQuery(serializers.Serializer):
    pageToken = Text(required=False, help_text="nextPageToken of the previous page")
    pageSize = QueryInteger(required=False, default=10, min_value=1, max_value=100)


# --- input ---------------------------------------------------------------------------------------


def aba_checksum_ok(number: str) -> bool:
    digits = [int(c) for c in number]
    return sum(w * d for w, d in zip([3, 7, 1] * 3, digits, strict=True)) % 10 == 0


class ExternalBankAccountIn(StrictSerializer):
    bankAccountType = Enum(["CHECKING", "SAVINGS"])
    bankAccountOwnerName = Text(max_length=200)
    bankAccountOwnerEmail = Email(required=False)
    bankName = Text(required=False, max_length=200)
    bankAccountCurrency = Enum(["USD"], help_text="USD only")
    bankAccountPaymentMethod = Enum(["ACH", "WIRE"])
    bankAccountNumber = Pattern(
        r"^[0-9]{4,17}$", required=False, help_text="4 to 17 digits; without it the account is PENDING"
    )
    bankRoutingNumber = Pattern(r"^[0-9]{9}$", required=False, help_text="9-digit ABA routing number")

    def validate_bankRoutingNumber(self, value):
        if not aba_checksum_ok(value):
            raise serializers.ValidationError("Not a valid ABA routing number (checksum failed)")
        return value

    def validate(self, attrs):
        given = [name for name in ("bankAccountNumber", "bankRoutingNumber") if name in attrs]
        if len(given) == 1:
            missing = "bankRoutingNumber" if given == ["bankAccountNumber"] else "bankAccountNumber"
            raise serializers.ValidationError(
                {missing: "Give bankAccountNumber and bankRoutingNumber together, or neither for a hosted form"}
            )
        return attrs


class BankAccountFormIn(StrictSerializer):
    """What the hosted bank-account form submits."""

    bankAccountNumber = Pattern(r"^[0-9]{4,17}$")
    bankRoutingNumber = Pattern(r"^[0-9]{9}$")
    bankAccountType = Enum(["CHECKING", "SAVINGS"], required=False)
    bankAccountOwnerName = Text(required=False, max_length=200)
    bankAccountOwnerEmail = Email(required=False)
    bankName = Text(required=False, max_length=200)

    validate_bankRoutingNumber = ExternalBankAccountIn.validate_bankRoutingNumber


class WalletAddressIn(StrictSerializer):
    address = Text()
    chain = Enum(CHAINS)


class ExternalCryptoWalletIn(StrictSerializer):
    currency = Text(help_text="Token label or contract address on the chain")
    address = WalletAddressIn()


class ServiceCryptoWalletIn(StrictSerializer):
    cryptoWalletType = Enum(["EVM", "SOLANA"], required=False, help_text="Follows from the chain")
    chain = Enum(CHAINS)


class ServiceAutoFiatAccountIn(StrictSerializer):
    currency = Enum(FIAT_CURRENCIES, help_text="Fiat currency the account receives")
    supportedDestinationCurrencies = serializers.ListField(
        child=Enum(CRYPTO_LABELS), min_length=1, help_text="Token labels it converts into"
    )


class ServiceFiatAccountIn(StrictSerializer):
    currency = Enum(FIAT_CURRENCIES)


SUB_OBJECTS = {
    PaymentAccountType.EXTERNAL_BANK_ACCOUNT: "externalBankAccount",
    PaymentAccountType.EXTERNAL_CRYPTO_WALLET: "externalCryptoWallet",
    PaymentAccountType.SERVICE_CRYPTO_WALLET: "serviceCryptoWallet",
    PaymentAccountType.SERVICE_AUTO_FIAT_ACCOUNT: "serviceAutoFiatAccount",
    PaymentAccountType.SERVICE_FIAT_ACCOUNT: "serviceFiatAccount",
}
EXTERNAL_TYPES = {PaymentAccountType.EXTERNAL_BANK_ACCOUNT, PaymentAccountType.EXTERNAL_CRYPTO_WALLET}


class PaymentAccountCreateIn(StrictSerializer):
    paymentAccountType = Enum(PaymentAccountType.values)
    customerId = Uuid()
    nickname = Text(required=False, allow_blank=True, max_length=200)
    organizationId = Uuid(required=False, help_text="If given, the organization of the API key")
    isThirdParty = StrictBooleanField(required=False, default=False)
    externalBankAccount = ExternalBankAccountIn(required=False)
    externalCryptoWallet = ExternalCryptoWalletIn(required=False)
    serviceCryptoWallet = ServiceCryptoWalletIn(required=False)
    serviceAutoFiatAccount = ServiceAutoFiatAccountIn(required=False)
    serviceFiatAccount = ServiceFiatAccountIn(required=False)

    def validate(self, attrs):
        wanted = SUB_OBJECTS[attrs["paymentAccountType"]]
        problems = {}
        if wanted not in attrs:
            problems[wanted] = f"Required for {attrs['paymentAccountType']}"
        for name in SUB_OBJECTS.values():
            if name != wanted and name in attrs:
                problems[name] = f"Not allowed for {attrs['paymentAccountType']}"
        if attrs.get("isThirdParty") and attrs["paymentAccountType"] not in EXTERNAL_TYPES:
            problems["isThirdParty"] = "Only external bank accounts and external wallets can belong to a third party"
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class PaymentAccountListQuery(PageQuery):
    customerId = Uuid(required=False)


class BalanceQuery(serializers.Serializer):
    chain = Enum(CHAINS, required=False, help_text="Case-sensitive")
    currency = Text(required=False, help_text="Label or contract address; defaults to the account's")


class FundIn(StrictSerializer):
    currency = Text(required=False)
    chain = Enum(CHAINS, required=False)
    amount = DecimalStringField()


# --- output (schema only) -----------------------------------------------------------------------


class WalletAddressOut(serializers.Serializer):
    address = serializers.CharField()
    chain = serializers.ChoiceField(CHAINS)


class ExternalBankAccountOut(serializers.Serializer):
    bankAccountType = serializers.CharField()
    bankAccountOwnerName = serializers.CharField()
    bankAccountOwnerEmail = serializers.CharField()
    bankName = serializers.CharField()
    bankAccountCurrency = CurrencyOut()
    bankAccountMask = serializers.CharField(required=False, help_text="Absent while PENDING")
    bankAccountPaymentMethod = serializers.CharField()


class ServiceAutoFiatAccountOut(serializers.Serializer):
    currency = CurrencyOut()
    supportedDestinationCurrencies = CurrencyOut(many=True)


class ServiceFiatAccountOut(serializers.Serializer):
    currency = CurrencyOut()
    supportedPaymentMethods = serializers.ListField(child=serializers.CharField())


class ExternalCryptoWalletOut(serializers.Serializer):
    currency = CurrencyOut()
    address = WalletAddressOut()


class ServiceCryptoWalletOut(serializers.Serializer):
    cryptoWalletType = serializers.ChoiceField(["EVM", "SOLANA"])
    address = WalletAddressOut()


class PaymentAccountOut(serializers.Serializer):
    paymentAccountId = serializers.CharField(help_text='"" for a bank account awaiting its form')
    paymentAccountType = serializers.ChoiceField(PaymentAccountType.values)
    paymentAccountStatus = serializers.ChoiceField(PaymentAccountStatus.values)
    nickname = serializers.CharField()
    createdAt = serializers.DateTimeField(required=False, help_text="Absent while a bank account awaits its form")
    customerId = serializers.CharField()
    isThirdParty = serializers.BooleanField()
    bankAccountFormLink = serializers.URLField(required=False)
    externalBankAccount = ExternalBankAccountOut(required=False)
    serviceAutoFiatAccount = ServiceAutoFiatAccountOut(required=False)
    serviceFiatAccount = ServiceFiatAccountOut(required=False)
    externalCryptoWallet = ExternalCryptoWalletOut(required=False)
    serviceCryptoWallet = ServiceCryptoWalletOut(required=False)


class PaymentAccountListOut(serializers.Serializer):
    paymentAccounts = PaymentAccountOut(many=True)
    nextPageToken = serializers.CharField(allow_null=True)


class BalanceOut(serializers.Serializer):
    paymentAccountId = serializers.CharField()
    currency = CurrencyStringDecimalsOut()
    balance = serializers.CharField()
    usdValue = serializers.CharField()


def validated(serializer_class, data, *, location: str = "body") -> dict:
    """Validate `data`; failures become VALIDATION_ERROR details at `location` (body or query).

    In a query, an optional parameter given with an empty value counts as absent (DRF's way;
    the document says so with allowEmptyValue)."""
    serializer = serializer_class(data=data)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        exc.location = location
        raise
    return serializer.validated_data
