"""Payment account bodies, plus the currency object every payments serializer shares.

Input serializers validate; output serializers only describe the answer for the OpenAPI document
(services build the answers as plain dicts, which keeps the hot paths cheap).
"""

from rest_framework import serializers

from ..models import ACCOUNT_DETAILS_KEYS, EXTERNAL_ACCOUNT_TYPES, PaymentAccountStatus, PaymentAccountType
from ..rates import table
from .fields import Boolean, DecimalStringField, Email, Enum, Pattern, StrictSerializer, Text, Uuid
from .pages import PageQuery

RATES = table()
CHAINS = list(RATES.chains)
FIAT_CURRENCIES = list(RATES.fiat)
CRYPTO_LABELS = sorted({currency.label for currency in RATES.tokens.values()})
PAYMENT_METHODS = list(RATES.payment_methods)


class CurrencyOut(serializers.Serializer):
    label = serializers.CharField()
    chain = serializers.ChoiceField(CHAINS, required=False, help_text="Crypto only")
    contractAddress = serializers.CharField(required=False, help_text="Tokens only (not native coins)")
    currencyDecimals = serializers.IntegerField(required=False, help_text="Crypto only")


class CurrencyStringDecimalsOut(CurrencyOut):
    currencyDecimals = serializers.CharField(required=False, help_text="Crypto only; a string here")


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


class PaymentAccountCreateIn(StrictSerializer):
    paymentAccountType = Enum(PaymentAccountType.values)
    customerId = Uuid()
    nickname = Text(required=False, allow_blank=True, max_length=200)
    organizationId = Uuid(required=False, help_text="If given, the organization of the API key")
    isThirdParty = Boolean(required=False, default=False)
    externalBankAccount = ExternalBankAccountIn(required=False)
    externalCryptoWallet = ExternalCryptoWalletIn(required=False)
    serviceCryptoWallet = ServiceCryptoWalletIn(required=False)
    serviceAutoFiatAccount = ServiceAutoFiatAccountIn(required=False)
    serviceFiatAccount = ServiceFiatAccountIn(required=False)

    def validate(self, attrs):
        wanted = ACCOUNT_DETAILS_KEYS[attrs["paymentAccountType"]]
        problems = {}
        if wanted not in attrs:
            problems[wanted] = f"Required for {attrs['paymentAccountType']}"
        for name in ACCOUNT_DETAILS_KEYS.values():
            if name != wanted and name in attrs:
                problems[name] = f"Not allowed for {attrs['paymentAccountType']}"
        if attrs.get("isThirdParty") and attrs["paymentAccountType"] not in EXTERNAL_ACCOUNT_TYPES:
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
