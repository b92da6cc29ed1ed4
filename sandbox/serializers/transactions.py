"""Transaction bodies (the create body is checked by the service, under its idempotency key)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .accounts import CHAINS, CurrencyOut
from .fields import StrictSerializer, Text
from .quotes import FeesOut


@extend_schema_field(OpenApiTypes.UUID)
class QuoteIdField(Text):
    """Any string: an id that is no UUID names no quote (404, as for every record id)."""


class TransactionCreateIn(StrictSerializer):
    quoteId = QuoteIdField(help_text="A valid, unexpired, unused quote")
    correlationId = Text(required=False, max_length=200)


class TransactionSourceOut(serializers.Serializer):
    sourceCurrency = CurrencyOut()
    sourcePaymentMethod = serializers.CharField()
    sourceAmount = serializers.CharField()
    sourcePaymentAccountId = serializers.CharField()
    sourceReferenceId = serializers.CharField(required=False, help_text="Once funds left the source")


class TransactionDestinationOut(serializers.Serializer):
    destinationPaymentAccountId = serializers.CharField()
    destinationPaymentMethod = serializers.CharField()
    destinationCurrency = CurrencyOut()
    exchangeRate = serializers.CharField()
    destinationAmount = serializers.CharField()
    destinationReferenceId = serializers.CharField(required=False, help_text="Once COMPLETED")


FIAT_FIELDS = [
    "transferBankAccountNumber",
    "transferRoutingNumber",
    "transferIban",
    "transferBicSwift",
    "transferIfscCode",
    "transferSortCode",
    "transferBsbNumber",
    "transferTransitNumber",
    "transferBankCode",
    "transferClabeNumber",
    "transferRoutingCode",
    "transferBranchCode",
    "transferClearingCode",
    "transferCnapsCode",
    "transferNubanCode",
    "transferPixCode",
    "transferPaymentLink",
]


class TransferInstructionsOut(serializers.Serializer):
    """type "fiat": bank details of the rail (only the fields it uses); type "crypto": a deposit address."""

    type = serializers.CharField(help_text="fiat or crypto")
    transferPaymentMethod = serializers.CharField(required=False)
    transferMessage = serializers.CharField(required=False, help_text="Reference to quote with the payment")
    transferBankName = serializers.CharField(required=False)
    transferBankAddress = serializers.CharField(required=False)
    transferBankBeneficiaryName = serializers.CharField(required=False)
    locals().update({name: serializers.CharField(required=False) for name in FIAT_FIELDS})
    depositAddress = serializers.CharField(required=False, help_text="crypto only")
    chain = serializers.ChoiceField(CHAINS, required=False, help_text="crypto only")
    currency = CurrencyOut(required=False, help_text="crypto only")
    amount = serializers.CharField(required=False, help_text="crypto only")


class TransactionOut(serializers.Serializer):
    transactionId = serializers.UUIDField()
    customerId = serializers.CharField()
    quoteId = serializers.CharField()
    transactionStatus = serializers.ChoiceField(
        ["AWAITING_TRANSFER", "PROCESSING", "COMPLETED", "FAILED", "CANCELLED", "CREATED", "EXPIRED"]
    )
    source = TransactionSourceOut()
    destination = TransactionDestinationOut()
    fees = FeesOut()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()
    correlationId = serializers.CharField(required=False)
    transferInstructions = TransferInstructionsOut(required=False)
    expiresAt = serializers.DateTimeField(required=False, help_text="Only while AWAITING_TRANSFER")


class MessageOut(serializers.Serializer):
    message = serializers.CharField()


# --- test helpers -------------------------------------------------------------------------------


class DepositLinkOut(serializers.Serializer):
    depositFormLink = serializers.URLField(help_text="{base_url}/forms/deposits/<signed token>")


class TransactionAdvanceIn(serializers.Serializer):
    to = serializers.ChoiceField(["AWAITING_TRANSFER", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"])
