"""Validation of customer create/update bodies, KYC data and KYB data.

Strict on purpose, so that an integrator finds a wrong body against the sandbox rather than
against production: JSON types are not coerced, unknown fields are refused, removed fields are
refused by name. Every failure becomes one VALIDATION_ERROR details item {path, message,
location} through sandbox.errors (DRF's nested errors carry the path).

The allowed values of every enumeration are the constants below (listed in
docs/decisions/sandbox-customers.md too, because the back-office may not import the sandbox).
"""

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal

import phonenumbers
import pycountry
from django.core.validators import RegexValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from . import clock
from .models import CustomerType

# --- Allowed values ---------------------------------------------------------------------------
# The spec lists one or two values "seen" per enumeration; the rest are our documented choice.

BUSINESS_TYPES = [
    "B_CORPORATION",
    "C_CORPORATION",
    "S_CORPORATION",
    "CLOSE_CORPORATION",
    "COOPERATIVE",
    "NONPROFIT_CORPORATION",
    "GENERAL_PARTNERSHIP",
    "LIMITED_PARTNERSHIP",
    "LIMITED_LIABILITY_PARTNERSHIP",
    "LIMITED_LIABILITY_COMPANY",
    "SOLE_PROPRIETORSHIP",
    "TRUST",
    "OTHER",
    "INDIVIDUAL",
]
EMPLOYMENT_STATUSES = ["EMPLOYED", "SELF_EMPLOYED", "UNEMPLOYED", "RETIRED", "STUDENT", "OTHER"]
KYC_SOURCES_OF_FUNDS = [
    "SALARY",
    "BUSINESS_INCOME",
    "SAVINGS",
    "INVESTMENTS",
    "PENSION",
    "INHERITANCE",
    "GIFT",
    "SALE_OF_ASSETS",
    "GOVERNMENT_BENEFITS",
    "LOAN",
    "OTHER",
]
KYC_ACCOUNT_PURPOSES = [
    "PERSONAL_EXPENSES",
    "SAVINGS",
    "INVESTMENTS",
    "PAYMENTS_TO_FRIENDS_OR_FAMILY",
    "PURCHASE_OF_GOODS_AND_SERVICES",
    "RECEIVE_SALARY",
    "OTHER",
]
EXPECTED_MONTHLY_PAYMENTS_USD = [
    "LESS_THAN_10000",
    "BETWEEN_10000_49999",
    "BETWEEN_50000_99999",
    "MORE_THAN_100000",
]
KYB_SOURCES_OF_FUNDS = [
    "SALE_OF_GOODS_AND_SERVICES",
    "BUSINESS_LOANS",
    "INVESTMENT_INCOME",
    "EQUITY_FUNDING",
    "GRANTS",
    "DONATIONS",
    "OTHER",
]
KYB_ACCOUNT_PURPOSES = [
    "CHARITABLE_DONATIONS",
    "PAYROLL",
    "PAYMENTS_TO_SUPPLIERS",
    "RECEIVE_PAYMENTS_FOR_GOODS_AND_SERVICES",
    "TREASURY_MANAGEMENT",
    "INVESTMENTS",
    "OTHER",
]
EXPECTED_MONTHLY_VOLUMES_USD = [
    "LESS_THAN_10000",
    "BETWEEN_10000_99999",
    "BETWEEN_100000_999999",
    "MORE_THAN_1000000",
]
ESTIMATED_ANNUAL_REVENUES_USD = [
    "LESS_THAN_100000",
    "BETWEEN_100000_999999",
    "BETWEEN_1000000_9999999",
    "MORE_THAN_10000000",
]
HIGH_RISK_ACTIVITIES = [
    "ADULT_ENTERTAINMENT",
    "FOREIGN_EXCHANGE_OR_BROKERAGE",
    "GAMBLING",
    "WEAPONS_OR_FIREARMS",
    "CANNABIS",
    "MONEY_SERVICES",
    "PRECIOUS_METALS_OR_JEWELRY",
    "VIRTUAL_CURRENCIES",
    "NONE_OF_THE_ABOVE",
]
DOCUMENT_TYPES = ["GOVERNMENT_ID", "PROOF_OF_ADDRESS", "SELFIE", "OTHER"]
DOCUMENT_SUBTYPES = [
    "NATIONAL_ID",
    "PASSPORT",
    "DRIVERS_LICENSE",
    "RESIDENCE_PERMIT",
    "UTILITY_BILL",
    "BANK_STATEMENT",
    "OTHER",
]
BUSINESS_DOCUMENT_TYPES = [
    "ARTICLES_OF_INCORPORATION",
    "CERTIFICATE_OF_INCORPORATION",
    "CERTIFICATE_OF_GOOD_STANDING",
    "OPERATING_AGREEMENT",
    "PARTNERSHIP_AGREEMENT",
    "SHAREHOLDER_REGISTER",
    "PROOF_OF_ADDRESS",
    "BUSINESS_LICENSE",
    "TRUST_DEED",
    "OTHER",
]

# Fields the 14 November 2025 change removed: refused by name, with what to send instead.
REMOVED_FIELDS = {
    "kycLink": "kycLink was removed; the customer's verificationLink replaces it",
    "middleName": "middleName was removed; send legalMiddleName",
    "taxIdNumber": "taxIdNumber was removed; send nationalIdType, nationalIdNumber and nationalIdIssuingCountry",
    "title": "title was removed from KYC data",
}
NATIONAL_ID_FIELDS = ("nationalIdType", "nationalIdNumber", "nationalIdIssuingCountry")

# --- Strict fields ----------------------------------------------------------------------------


# A string the sandbox accepts: not only whitespace, and no NUL character (no database stores
# one). Documented as the field's pattern and checked on the value as sent, nothing trimmed, so
# that the OpenAPI document and the server agree on every string (docs/decisions/sandbox-contract.md).
TEXT_PATTERN = r"^[^\x00]*[^\x00 \t\n\r\f\v][^\x00]*$"
BLANK_TEXT_PATTERN = r"^[^\x00]*$"


def usable_text(value: str, *, allow_blank: bool = False) -> bool:
    return re.fullmatch(BLANK_TEXT_PATTERN if allow_blank else TEXT_PATTERN, value) is not None


class Text(serializers.CharField):
    """A JSON string, never a number or boolean turned into one; kept exactly as sent (no
    trimming), refused when blank (only whitespace) or holding a NUL character."""

    default_error_messages = {
        "invalid": "Must be a string.",
        "blank": "Must not be empty or only whitespace.",
        "nul": "Must not contain NUL characters.",
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)
        # The pattern is for the OpenAPI document; to_internal_value gives the precise message.
        pattern = BLANK_TEXT_PATTERN if self.allow_blank else TEXT_PATTERN
        self.validators.append(RegexValidator(pattern))

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if "\x00" in data:
            self.fail("nul")
        if not self.allow_blank and not usable_text(data):
            self.fail("blank")
        return super().to_internal_value(data)


class Pattern(Text):
    """A string matching `regex` in full (documented as the field's pattern)."""

    def __init__(self, regex: str, *, message: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.regex = regex
        self.validators[-1] = RegexValidator(regex)
        escaped = regex.replace("{", "{{").replace("}", "}}")
        self.error_messages["pattern"] = message or f"Must match the pattern {escaped}."

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if re.fullmatch(self.regex.removeprefix("^").removesuffix("$"), value) is None:
            self.fail("pattern")
        return value


UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


@extend_schema_field(OpenApiTypes.UUID)
class Uuid(serializers.UUIDField):
    """A UUID written 8-4-4-4-12 (no braces, urn: or bare hex), as a JSON string."""

    default_error_messages = {
        "invalid": "Must be a UUID written 8-4-4-4-12, e.g. 1b4e28ba-2fa1-11d2-883f-a0c9e3a4c4d0."
    }

    def to_internal_value(self, data):
        if not isinstance(data, str) or not re.fullmatch(UUID_PATTERN, data):
            self.fail("invalid")
        return super().to_internal_value(data)


class Email(serializers.EmailField):
    default_error_messages = {"invalid": "Must be a valid e-mail address."}

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class Boolean(serializers.BooleanField):
    """true or false only: "true", 1 and "yes" are refused."""

    default_error_messages = {"invalid": "Must be a boolean (true or false)."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class Enum(serializers.ChoiceField):
    """One of a fixed list; the message lists the allowed values."""

    def __init__(self, choices, **kwargs):
        super().__init__(choices, **kwargs)
        allowed = ", ".join(choices)
        self.error_messages["invalid_choice"] = f"'{{input}}' is not allowed; allowed values: {allowed}."
        self.error_messages["invalid"] = f"Must be a string, one of: {allowed}."

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(OpenApiTypes.DATE)
class DateText(Text):
    """A real calendar date written YYYY-MM-DD, kept as the string sent."""

    default_error_messages = {"date": "Must be a date written YYYY-MM-DD."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            self.fail("date")
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            self.fail("date")
        return value


class PastDateText(DateText):
    default_error_messages = {"future": "Must not be in the future."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if dt.date.fromisoformat(value) > clock.now().date():
            self.fail("future")
        return value


@extend_schema_field({"type": "string", "pattern": "^[A-Z]{2}$", "example": "US"})
class Country(Text):
    default_error_messages = {
        "country": "Must be an existing two-letter (ISO 3166-1 alpha-2) country code, upper-case."
    }

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not re.fullmatch(r"[A-Z]{2}", value) or pycountry.countries.get(alpha_2=value) is None:
            self.fail("country")
        return value


@extend_schema_field({"type": "string", "pattern": r"^\+[0-9]{6,15}$", "example": "+12025550123"})
class Phone(Text):
    default_error_messages = {"phone": "Must be a valid phone number in international format, e.g. +12025550123."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not value.startswith("+"):
            self.fail("phone")
        try:
            number = phonenumbers.parse(value, None)
        except phonenumbers.NumberParseException:
            self.fail("phone")
        if not phonenumbers.is_valid_number(number):
            self.fail("phone")
        return value


class Fraction(serializers.FloatField):
    """A JSON number from 0 to 1 (a quarter is 0.25), kept as sent."""

    default_error_messages = {
        "invalid": "Must be a number from 0 to 1 (a quarter is 0.25).",
        "range": "Must be from 0 to 1 (a quarter is 0.25).",
    }

    def __init__(self, **kwargs):
        super().__init__(min_value=0, max_value=1, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        if not Decimal(0) <= Decimal(str(data)) <= Decimal(1):
            self.fail("range")
        return data


@extend_schema_field({"type": "string", "pattern": "^[a-z][a-z0-9_]*$", "example": "ssn"})
class NationalIdType(Text):
    default_error_messages = {"lower": "Must be a lower-case type such as ssn."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not re.fullmatch(r"[a-z][a-z0-9_]*", value):
            self.fail("lower")
        return value


def StreetLine(**kwargs):
    return Text(min_length=4, error_messages={"min_length": "Must be at least 4 characters."}, **kwargs)


# --- Objects ----------------------------------------------------------------------------------


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know (removed ones by name) and reports them with the rest."""

    # National ID triple rule, for serializers that carry the three fields.
    national_id_triple = False
    # `title` was removed from KYC data only: elsewhere it is simply unknown.
    removed_fields = ("kycLink", "middleName", "taxIdNumber")

    def to_internal_value(self, data):
        errors = self.body_errors(data) if isinstance(data, Mapping) else {}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            # A Serializer always raises a mapping of field -> errors.
            errors = {**exc.detail, **errors}
        if errors:
            raise serializers.ValidationError(errors)
        return value

    def body_errors(self, data: Mapping) -> dict:
        """Failures seen on the raw object: unknown fields, the national ID triple."""
        errors = {}
        for key in data:
            if key not in self.fields:
                errors[key] = [REMOVED_FIELDS[key] if key in self.removed_fields else self._unknown(key)]
        if self.national_id_triple:
            errors.update(self._national_id_errors(data))
        return errors

    def _unknown(self, key) -> str:
        return f"Unknown field '{key}'; allowed fields here: {', '.join(self.fields)}."

    def _national_id_errors(self, data) -> dict:
        """On create all three are required; on update (partial) all three or none."""
        sent = [name for name in NATIONAL_ID_FIELDS if name in data]
        if getattr(self.root, "partial", False) and not sent:
            return {}
        if len(sent) == len(NATIONAL_ID_FIELDS):
            return {}
        message = "nationalIdType, nationalIdNumber and nationalIdIssuingCountry must be sent together."
        return {name: [message] for name in NATIONAL_ID_FIELDS if name not in sent}


class PersonAddressSerializer(StrictSerializer):
    countryCode = Country(required=False)
    streetLine1 = StreetLine(required=False)
    streetLine2 = StreetLine(required=False)
    city = Text(required=False)
    stateRegionProvince = Text(required=False)
    postalCode = Text(required=False)
    locale = Text(required=False, help_text="Language-region tag, e.g. en-US")


class IdentityDocumentSerializer(StrictSerializer):
    type = Enum(DOCUMENT_TYPES, required=False)
    subtype = Enum(DOCUMENT_SUBTYPES, required=False)
    countryCode = Country(required=False)
    documentIdNumber = Text(required=False)
    issuanceDate = DateText(required=False)
    expirationDate = DateText(required=False)
    frontIdImage = Text(required=False, help_text="Image content, e.g. base64")
    backIdImage = Text(required=False, help_text="Image content, e.g. base64")
    proofOfAddressImage = Text(required=False, help_text="Image content, e.g. base64")
    description = Text(required=False)


class KycDataSerializer(StrictSerializer):
    national_id_triple = True
    removed_fields = (*StrictSerializer.removed_fields, "title")

    legalFirstName = Text(required=False)
    legalMiddleName = Text(required=False)
    legalLastName = Text(required=False)
    phoneNumber = Phone(required=False)
    dateOfBirth = PastDateText(required=False)
    nationalIdIssuingCountry = Country(required=False)
    nationalIdType = NationalIdType(required=False)
    nationalIdNumber = Text(required=False)
    nationality = Country(required=False)
    employmentStatus = Enum(EMPLOYMENT_STATUSES, required=False)
    mostRecentOccupation = Text(required=False, help_text="Occupation code")
    sourceOfFunds = Enum(KYC_SOURCES_OF_FUNDS, required=False)
    accountPurpose = Enum(KYC_ACCOUNT_PURPOSES, required=False)
    accountPurposeOther = Text(required=False)
    expectedMonthlyPaymentsUsd = Enum(EXPECTED_MONTHLY_PAYMENTS_USD, required=False)
    isIntermediary = Boolean(required=False)
    documents = IdentityDocumentSerializer(many=True, required=False)


class BusinessInfoSerializer(StrictSerializer):
    legalBusinessName = Text(required=False)
    dbaName = Text(required=False)
    businessType = Enum(BUSINESS_TYPES, required=False)
    businessIndustries = Text(required=False, help_text="Industry code")
    businessDescription = Text(required=False)
    website = Text(required=False)
    otherLinks = serializers.ListField(child=Text(), required=False)
    formationDate = PastDateText(required=False)
    registrationCountry = Country(required=False)
    isDao = Boolean(required=False)


class AssociatedPersonSerializer(StrictSerializer):
    national_id_triple = True

    legalFirstName = Text(required=False)
    legalMiddleName = Text(required=False)
    legalLastName = Text(required=False)
    email = Email(required=False)
    phoneNumber = Phone(required=False)
    dateOfBirth = PastDateText(required=False)
    address = PersonAddressSerializer(required=False)
    ownershipPercentage = Fraction(required=False)
    # An associated person keeps `title` (a role such as "CEO"); only KYC data lost it.
    title = Text(required=False)
    isControlPerson = Boolean(required=False)
    isSigner = Boolean(required=False)
    isDirector = Boolean(required=False)
    nationalIdIssuingCountry = Country(required=False)
    nationalIdType = NationalIdType(required=False)
    nationalIdNumber = Text(required=False)
    nationality = Country(required=False)
    documents = IdentityDocumentSerializer(many=True, required=False)


class BusinessDocumentSerializer(StrictSerializer):
    type = Enum(BUSINESS_DOCUMENT_TYPES, required=False)
    documentImage = Text(required=False, help_text="Image content, e.g. base64")
    description = Text(required=False)


class KybDataSerializer(StrictSerializer):
    businessInfo = BusinessInfoSerializer(required=False)
    businessRegistrationNumber = Text(required=False)
    sourceOfFunds = Enum(KYB_SOURCES_OF_FUNDS, required=False)
    sourceOfFundsDescription = Text(required=False)
    accountPurpose = Enum(KYB_ACCOUNT_PURPOSES, required=False)
    accountPurposeOther = Text(required=False)
    expectedMonthlyVolumeUsd = Enum(EXPECTED_MONTHLY_VOLUMES_USD, required=False)
    estimatedAnnualRevenueUsd = Enum(ESTIMATED_ANNUAL_REVENUES_USD, required=False)
    conductsMoneyServices = Boolean(required=False)
    conductsMoneyServicesDescription = Text(required=False)
    conductsMoneyServicesThroughService = Boolean(required=False)
    operatesInProhibitedCountries = Boolean(required=False)
    complianceScreeningDescription = Text(required=False)
    highRiskActivities = serializers.ListField(child=Enum(HIGH_RISK_ACTIVITIES), required=False)
    highRiskActivitiesExplanation = Text(required=False)
    associatedPersons = AssociatedPersonSerializer(many=True, required=False)
    businessDocuments = BusinessDocumentSerializer(many=True, required=False)


# --- Request bodies ---------------------------------------------------------------------------

# Which name fields each customer type takes; the other type's fields are refused.
TYPE_FIELDS = {
    CustomerType.INDIVIDUAL: {"required": ("firstName", "lastName"), "data": "kycData"},
    CustomerType.BUSINESS: {"required": ("businessName",), "data": "kybData"},
}


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
