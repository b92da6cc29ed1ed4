"""Customer bodies: create and update requests (with their KYC/KYB data), the list and read
queries, the review helper's body, and the customer object as the API answers it.

The declared fields of the answer describe it for the OpenAPI document; `to_representation`
builds it directly, because two fields appear only under conditions:
- availablePaymentMethods: in list items always, in a single read only with
  includePaymentMethods=true (context "payment_methods");
- verificationIssues: only in NEEDS_ADDITIONAL_INFORMATION, UNDER_REVIEW and REJECTED.
"""

import re
from collections.abc import Mapping

from django.urls import reverse
from rest_framework import serializers

from .. import clock
from ..models import Customer, CustomerStatus, CustomerType
from .fields import Email, Enum, StrictSerializer, Text, Uuid
from .kyc.businesses import KybDataSerializer
from .kyc.persons import KycDataSerializer
from .pages import PageQuery

FIAT_METHODS = ["ACH", "WIRE", "SEPA"]
# Domestic rails added when the customer's country is known to be theirs.
COUNTRY_METHODS = {"CA": "CA_INTERAC", "IN": "IN_NEFT_RTGS_IMPS"}
CHAIN_METHODS = ["ARBITRUM", "BASE", "ETHEREUM", "OPTIMISM", "POLYGON", "SOLANA"]
PAYMENT_METHODS = [*FIAT_METHODS, *COUNTRY_METHODS.values(), *CHAIN_METHODS]
ISSUE_STATUSES = (
    CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
    CustomerStatus.UNDER_REVIEW,
    CustomerStatus.REJECTED,
)
# What the review test helper may decide.
REVIEW_OUTCOMES = (
    CustomerStatus.ACTIVE,
    CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
    CustomerStatus.REJECTED,
)
# Which name fields each customer type takes; the other type's fields are refused.
TYPE_FIELDS = {
    CustomerType.INDIVIDUAL: {"required": ("firstName", "lastName"), "data": "kycData"},
    CustomerType.BUSINESS: {"required": ("businessName",), "data": "kybData"},
}


def customer_country(customer: Customer) -> str | None:
    if customer.customer_type == CustomerType.INDIVIDUAL:
        return (customer.kyc_data or {}).get("nationality")
    return ((customer.kyb_data or {}).get("businessInfo") or {}).get("registrationCountry")


def available_payment_methods(customer: Customer) -> list[str]:
    """Only an ACTIVE customer can pay: US rails, SEPA and every chain, plus the domestic rail
    of Canada or India for a customer of that country (nationality or registration country)."""
    if customer.status != CustomerStatus.ACTIVE:
        return []
    local = COUNTRY_METHODS.get(customer_country(customer))
    return [*FIAT_METHODS, *([local] if local else []), *CHAIN_METHODS]


def verification_link(request, customer: Customer) -> str:
    """{forms_url}/verify/<token>, {forms_url} being {base_url}/forms of this very request
    (worked out once per request: a page lists a hundred customers)."""
    base = getattr(request, "_sandbox_verify_base", None)
    if base is None:
        base = request._sandbox_verify_base = request.build_absolute_uri(f"{reverse('sandbox-index')}forms/verify/")
    return base + customer.verification_token


# --- Requests ----------------------------------------------------------------------------------


class CustomerCreateSerializer(StrictSerializer):
    customerType = Enum(CustomerType.values)
    email = Email(max_length=254)
    firstName = Text(required=False, max_length=200, help_text="Required for INDIVIDUAL customers")
    lastName = Text(required=False, max_length=200, help_text="Required for INDIVIDUAL customers")
    businessName = Text(required=False, max_length=300, help_text="Required for BUSINESS customers")
    kycData = KycDataSerializer(required=False, help_text="INDIVIDUAL customers only")
    kybData = KybDataSerializer(required=False, help_text="BUSINESS customers only")

    def body_errors(self, data: Mapping) -> dict:
        errors = super().body_errors(data)
        customer_type = data.get("customerType")
        if isinstance(customer_type, str) and customer_type in TYPE_FIELDS:
            errors.update(_type_errors(customer_type, data, creating=True))
        return errors


class CustomerUpdateSerializer(StrictSerializer):
    """PATCH body: any subset of kycData and kybData. Use with partial=True and
    context={"customer_type": ...}."""

    kycData = KycDataSerializer(required=False, help_text="INDIVIDUAL customers only")
    kybData = KybDataSerializer(required=False, help_text="BUSINESS customers only")

    def body_errors(self, data: Mapping) -> dict:
        return {**super().body_errors(data), **_type_errors(self.context["customer_type"], data, creating=False)}


def _type_errors(customer_type: str, data: Mapping, *, creating: bool) -> dict:
    """The name fields a type requires, and the other type's fields it refuses."""
    own = TYPE_FIELDS[customer_type]
    other_type, other = next((t, f) for t, f in TYPE_FIELDS.items() if t != customer_type)
    errors = {}
    if creating:
        for name in own["required"]:
            if name not in data:
                errors[name] = [f"This field is required for {customer_type} customers."]
    for name in (*(other["required"] if creating else ()), other["data"]):
        if name in data:
            errors[name] = [f"{name} applies to {other_type} customers only, not {customer_type}."]
    return errors


class CustomerListQuerySerializer(PageQuery):
    organizationId = Uuid(required=False, help_text="Only this organization's customers")


class CustomerReadQuerySerializer(serializers.Serializer):
    includePaymentMethods = serializers.BooleanField(
        required=False, default=False, help_text="true adds availablePaymentMethods"
    )


# --- Test helpers -------------------------------------------------------------------------------


class ReviewIssueSerializer(StrictSerializer):
    code = Text(max_length=64, help_text="Upper-case code, e.g. DOCUMENT_MISSING_BACK")
    message = Text(max_length=500)

    def validate_code(self, value):
        if not re.fullmatch(r"[A-Z0-9_]+", value):
            raise serializers.ValidationError("Must be an upper-case code such as DOCUMENT_MISSING_BACK.")
        return value


class CustomerReviewSerializer(StrictSerializer):
    outcome = Enum(REVIEW_OUTCOMES)
    issues = ReviewIssueSerializer(many=True, required=False, default=list)

    def validate(self, attrs):
        if attrs["outcome"] == "NEEDS_ADDITIONAL_INFORMATION" and not attrs["issues"]:
            raise serializers.ValidationError(
                {"issues": "At least one issue is needed for NEEDS_ADDITIONAL_INFORMATION."}
            )
        if attrs["outcome"] == "ACTIVE" and attrs["issues"]:
            raise serializers.ValidationError({"issues": "An ACTIVE outcome has no issues."})
        return attrs


# --- Answers -----------------------------------------------------------------------------------


class VerificationIssueSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="e.g. DOCUMENT_MISSING_BACK")
    message = serializers.CharField()
    timestamp = serializers.DateTimeField()


class CustomerSerializer(serializers.Serializer):
    customerId = serializers.UUIDField()
    customerStatus = serializers.ChoiceField(CustomerStatus.values)
    customerType = serializers.ChoiceField(CustomerType.values)
    name = serializers.CharField(help_text="Full name of the customer or business")
    email = serializers.CharField()
    verificationLink = serializers.URLField(help_text="Hosted KYC/KYB form")
    updatedAt = serializers.DateTimeField(help_text="Last status change")
    organizationId = serializers.UUIDField()
    availablePaymentMethods = serializers.ListField(
        child=serializers.ChoiceField(PAYMENT_METHODS),
        required=False,
        help_text="In list items; in a single read only with includePaymentMethods=true",
    )
    verificationIssues = VerificationIssueSerializer(
        many=True,
        required=False,
        help_text="Only in NEEDS_ADDITIONAL_INFORMATION, UNDER_REVIEW and REJECTED",
    )

    def to_representation(self, customer: Customer) -> dict:
        body = {
            "customerId": str(customer.id),
            "customerStatus": customer.status,
            "customerType": customer.customer_type,
            "name": customer.name,
            "email": customer.email,
            "verificationLink": verification_link(self.context["request"], customer),
            "updatedAt": clock.iso(customer.updated_at),
            "organizationId": str(customer.organization_id),
        }
        if self.context.get("payment_methods"):
            body["availablePaymentMethods"] = available_payment_methods(customer)
        if customer.status in ISSUE_STATUSES:
            # .all() so that a prefetch of the list is used.
            issues = sorted(customer.issues.all(), key=lambda issue: (issue.timestamp, issue.pk))
            body["verificationIssues"] = [
                {"code": issue.code, "message": issue.message, "timestamp": clock.iso(issue.timestamp)}
                for issue in issues
            ]
        return body


class CustomerListSerializer(serializers.Serializer):
    customers = CustomerSerializer(many=True)
    nextPageToken = serializers.CharField(allow_null=True, help_text="null on the last page")
