"""The strict fields every sandbox body is read with, and `validated`, the one way to read one.

Strict on purpose, so that an integrator finds a wrong body against the sandbox rather than
against production: JSON types are not coerced, unknown fields are refused, removed fields are
refused by name. Every failure becomes one VALIDATION_ERROR details item {path, message,
location} through sandbox.errors (DRF's nested errors carry the path).
"""

import re
from collections.abc import Mapping

from django.core.validators import RegexValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..rates import NotAnAmount, decimal_string

# Fields the 14 November 2025 change removed: refused by name, with what to send instead.
REMOVED_FIELDS = {
    "kycLink": "kycLink was removed; the customer's verificationLink replaces it",
    "middleName": "middleName was removed; send legalMiddleName",
    "taxIdNumber": "taxIdNumber was removed; send nationalIdType, nationalIdNumber and nationalIdIssuingCountry",
    "title": "title was removed from KYC data",
}

# A string the sandbox accepts: not only whitespace, and no NUL character (no database stores
# one). Documented as the field's pattern and checked on the value as sent, nothing trimmed, so
# that the OpenAPI document and the server agree on every string (docs/decisions/sandbox-contract.md).
TEXT_PATTERN = r"^[^\x00]*[^\x00 \t\n\r\f\v][^\x00]*$"
BLANK_TEXT_PATTERN = r"^[^\x00]*$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# Decimal strings as the document describes them: digits, an optional fraction, no sign, no
# exponent, no spaces; a positive one has a non-zero digit. Decimal places per currency and amount
# limits are checked where the currency is known (docs/decisions/sandbox-contract.md).
DECIMAL_PATTERN = r"^[0-9]{1,30}(\.[0-9]{1,30})?$"
POSITIVE_DECIMAL_PATTERN = r"^([0-9]{0,29}[1-9][0-9]{0,29}(\.[0-9]{1,30})?|[0-9]{1,30}\.[0-9]{0,29}[1-9][0-9]{0,29})$"


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


class DecimalStringField(Pattern):
    """A decimal string ("10.50"). JSON numbers are refused: the spec carries amounts as strings."""

    default_error_messages = {
        "not_decimal": "'{value}' is not a decimal string of at most 30 digits before and after the point",
    }

    def __init__(self, *, positive=True, **kwargs):
        self.positive = positive
        super().__init__(DECIMAL_PATTERN, **kwargs)
        if positive:
            # The document's pattern says "greater than 0" too; the message says it in words.
            self.validators[-1] = RegexValidator(POSITIVE_DECIMAL_PATTERN)

    def to_internal_value(self, data):
        # The one reading of amounts (sandbox/rates.py): bounded, so that no amount is a 500.
        try:
            value = decimal_string(data, positive=self.positive)
        except NotAnAmount as exc:
            raise serializers.ValidationError(str(exc), code="invalid") from None
        if re.fullmatch(self.regex.removeprefix("^").removesuffix("$"), data) is None:  # leading zeros
            self.fail("not_decimal", value=data[:40])
        return value

    def run_validators(self, value):
        """The text was checked against the documented pattern above; `value` is a Decimal,
        whose str() may be in exponent form ("1E-9") and must not meet the pattern again."""


class QueryInteger(serializers.IntegerField):
    """Digits with an optional minus sign, nothing else (no "1.0", "+1" or spaces)."""

    def to_internal_value(self, data):
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,18}", data):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know (removed ones by name) and reports them with the rest."""

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
        """Failures seen on the raw object: unknown fields (subclasses add their own rules)."""
        errors = {}
        for key in data:
            if key not in self.fields:
                errors[key] = [REMOVED_FIELDS[key] if key in self.removed_fields else self._unknown(key)]
        return errors

    def _unknown(self, key) -> str:
        return f"Unknown field '{key}'; allowed fields here: {', '.join(self.fields)}."


def validated(serializer_class, data, *, location: str = "body", **options) -> dict:
    """Validate `data`; failures become VALIDATION_ERROR details at `location` (body or query).
    `options` go to the serializer (partial, context).

    In a query, an optional parameter given with an empty value counts as absent (DRF's way;
    the document says so with allowEmptyValue)."""
    serializer = serializer_class(data=data, **options)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        exc.location = location
        raise
    return serializer.validated_data
