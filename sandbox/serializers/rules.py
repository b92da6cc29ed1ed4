"""Automation rule bodies."""

from croniter import croniter
from rest_framework import serializers

from .accounts import PAYMENT_METHODS, CurrencyOut
from .fields import DecimalStringField, Enum, Pattern, StrictSerializer, Text, Uuid
from .quotes import DeveloperFeeIn


class RuleSourceIn(StrictSerializer):
    sourcePaymentAccountId = Uuid()
    sourcePaymentMethod = Enum(PAYMENT_METHODS)
    sourceCurrency = Text(help_text="Label, or token contract address on a chain")


class RuleDestinationIn(StrictSerializer):
    destinationPaymentAccountId = Uuid()
    destinationPaymentMethod = Enum(PAYMENT_METHODS)
    destinationCurrency = Text(help_text="Label, or token contract address on a chain")


class RuleAmountIn(StrictSerializer):
    type = Enum(["FLAT"], required=False, help_text="FLAT (the only kind): value is a source amount")
    value = DecimalStringField(help_text="Source amount of each transaction")


class TransactionTemplateIn(StrictSerializer):
    source = RuleSourceIn()
    destination = RuleDestinationIn()
    amount = RuleAmountIn()
    developerFee = DeveloperFeeIn(required=False)


# Five fields of cron characters separated by spaces; croniter decides the rest.
CRON_PATTERN = r"^ *[0-9A-Za-z*/,?#-]+( +[0-9A-Za-z*/,?#-]+){4} *$"


class TriggerIn(StrictSerializer):
    """cronSchedule (five fields, UTC), thresholdAmount (source balance to reach), or both: a
    threshold checked on the schedule (THRESHOLD_BASED, as the spec's trigger shows them)."""

    type = Enum(
        ["THRESHOLD_BASED", "CRON_BASED"],
        required=False,
        help_text="THRESHOLD_BASED or CRON_BASED; follows from the fields",
    )
    cronSchedule = Pattern(
        CRON_PATTERN,
        required=False,
        message="Must be a cron expression of five fields (minute hour day-of-month month day-of-week).",
        help_text="Five fields separated by spaces (answered with single spaces), UTC",
    )
    thresholdAmount = DecimalStringField(required=False)

    def validate_cronSchedule(self, value):
        if not croniter.is_valid(value):
            raise serializers.ValidationError(
                f"'{value}' is not a cron expression of five fields (minute hour day-of-month month day-of-week)"
            )
        return " ".join(value.split())

    def validate(self, attrs):
        given = [name for name in ("cronSchedule", "thresholdAmount") if name in attrs]
        if not given:
            raise serializers.ValidationError("Give cronSchedule, thresholdAmount or both")
        wanted = "CRON_BASED" if given == ["cronSchedule"] else "THRESHOLD_BASED"
        if attrs.get("type", wanted) != wanted:
            raise serializers.ValidationError({"type": f"{' with '.join(given)} makes a {wanted} trigger"})
        return attrs


class RuleCreateIn(StrictSerializer):
    name = Text(min_length=1, max_length=200)
    customerId = Uuid()
    transactionTemplate = TransactionTemplateIn()
    trigger = TriggerIn()


class RuleUpdateIn(RuleCreateIn):
    id = Uuid(help_text="Must equal the path's ruleId")


class RuleListQuery(serializers.Serializer):
    customerId = Uuid(required=False)
    sourcePaymentAccountId = Uuid(required=False)


class RuleSourceOut(serializers.Serializer):
    sourcePaymentAccountId = serializers.CharField()
    sourcePaymentMethod = serializers.CharField()
    sourceCurrency = CurrencyOut()


class RuleDestinationOut(serializers.Serializer):
    destinationPaymentAccountId = serializers.CharField()
    destinationPaymentMethod = serializers.CharField()
    destinationCurrency = CurrencyOut()


class RuleAmountOut(serializers.Serializer):
    type = serializers.CharField(help_text="FLAT")
    value = serializers.CharField()


class DeveloperFeeOut(serializers.Serializer):
    developerFeeType = serializers.CharField()
    developerFeeAmount = serializers.CharField()


class TransactionTemplateOut(serializers.Serializer):
    source = RuleSourceOut()
    destination = RuleDestinationOut()
    amount = RuleAmountOut()
    developerFee = DeveloperFeeOut()


class TriggerOut(serializers.Serializer):
    type = serializers.CharField(help_text="THRESHOLD_BASED or CRON_BASED")
    cronSchedule = serializers.CharField(required=False)
    thresholdAmount = serializers.CharField(required=False)


class RuleOut(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    customerId = serializers.CharField()
    transactionTemplate = TransactionTemplateOut()
    trigger = TriggerOut()
    createdAt = serializers.DateTimeField()


class RuleListOut(serializers.Serializer):
    automationRules = RuleOut(many=True)


class RuleRunItemOut(serializers.Serializer):
    ruleId = serializers.CharField()
    name = serializers.CharField()
    transactionId = serializers.CharField(required=False)
    transactionStatus = serializers.CharField(required=False)
    message = serializers.CharField(required=False)


class RuleRunOut(serializers.Serializer):
    fired = RuleRunItemOut(many=True)
    failed = RuleRunItemOut(many=True)
