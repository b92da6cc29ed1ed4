"""Quote and exchange-rate bodies."""

from rest_framework import serializers

from .accounts import PAYMENT_METHODS, RATES, CurrencyOut
from .fields import Boolean, DecimalStringField, Enum, StrictSerializer, Text, Uuid


class QuoteSourceIn(StrictSerializer):
    sourceCurrency = Text(help_text="Label, or token contract address on a chain")
    sourcePaymentMethod = Enum(PAYMENT_METHODS, help_text="Fiat rail or chain name")
    sourceAmount = DecimalStringField()
    sourcePaymentAccountId = Uuid()


class QuoteDestinationIn(StrictSerializer):
    destinationPaymentAccountId = Uuid()
    destinationPaymentMethod = Enum(PAYMENT_METHODS, help_text="Fiat rail or chain name")
    destinationCurrency = Text(help_text="Label, or token contract address on a chain")


class DeveloperFeeIn(StrictSerializer):
    developerFeeType = Enum(["USD"], help_text="USD (the only kind): the amount is in US dollars")
    developerFeeAmount = DecimalStringField(positive=False)

    def validate_developerFeeAmount(self, value):
        if value < 0:
            raise serializers.ValidationError("Must be 0 or more")
        return value


class QuoteCreateIn(StrictSerializer):
    customerId = Uuid()
    source = QuoteSourceIn()
    destination = QuoteDestinationIn()
    developerFee = DeveloperFeeIn(required=False)
    guaranteeQuote = Boolean(required=False, default=False)


class FeeAmountOut(serializers.Serializer):
    feeAmount = serializers.CharField()
    feeUSDAmount = serializers.CharField()


class FeesOut(serializers.Serializer):
    feeCurrency = CurrencyOut()
    serviceFee = FeeAmountOut()
    developerFee = FeeAmountOut()


class QuoteOut(serializers.Serializer):
    quoteId = serializers.CharField()
    expiresAt = serializers.DateTimeField()
    estimatedExchangeRate = serializers.CharField()
    destinationAmount = serializers.CharField()
    fees = FeesOut()


class ExchangeRateQuery(serializers.Serializer):
    sourceCurrency = Text(help_text="Label, or token contract address on a chain")
    sourcePaymentMethod = Enum(PAYMENT_METHODS, help_text="Fiat rail or chain name")
    sourceAmount = DecimalStringField(required=False, help_text="Decimal string; when given, fees and amount")
    destinationPaymentMethod = Enum(PAYMENT_METHODS, help_text="Fiat rail or chain name")
    destinationCurrency = Text(help_text="Label, or token contract address on a chain")


class FeeComponentOut(serializers.Serializer):
    feeType = serializers.ChoiceField(["FLAT", "PERCENTAGE"])
    feeAmount = serializers.CharField()
    feeCurrency = CurrencyOut()


class RateFeesOut(serializers.Serializer):
    feeCurrency = CurrencyOut()
    serviceFee = FeeAmountOut()


class ExchangeRateOut(serializers.Serializer):
    exchangeRate = serializers.CharField()
    feeComponents = FeeComponentOut(many=True)
    destinationAmount = serializers.CharField(required=False, help_text="Only with sourceAmount")
    fees = RateFeesOut(required=False, help_text="Only with sourceAmount")


class RateShiftIn(StrictSerializer):
    currency = Enum(
        sorted({*RATES.fiat, *(c.label for c in RATES.tokens.values())}), help_text="A currency label of the snapshot"
    )
    bps = serializers.IntegerField(
        min_value=-5000, max_value=5000, help_text="Basis points off the snapshot's units per USD; 0 puts it back"
    )


class RateShiftOut(serializers.Serializer):
    currency = serializers.CharField()
    bps = serializers.IntegerField()
