"""Strict fields of KYC and KYB data: dates, countries, phone numbers, fractions, national ID
types and street lines. The strict fields of every body are in sandbox/serializers/fields.py."""

import datetime as dt
import re
from decimal import Decimal

import phonenumbers
import pycountry
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ... import clock
from ..fields import Text


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


def street_line(**kwargs) -> Text:
    return Text(min_length=4, error_messages={"min_length": "Must be at least 4 characters."}, **kwargs)
