"""Persons: the KYC data of an INDIVIDUAL customer and the associated persons of a business,
with the national ID rule they share."""

from collections.abc import Mapping

from ..fields import Boolean, Email, Enum, StrictSerializer, Text
from .choices import EMPLOYMENT_STATUSES, EXPECTED_MONTHLY_PAYMENTS_USD, KYC_ACCOUNT_PURPOSES, KYC_SOURCES_OF_FUNDS
from .data_fields import Country, Fraction, NationalIdType, PastDateText, Phone, street_line
from .documents import IdentityDocumentSerializer

NATIONAL_ID_FIELDS = ("nationalIdType", "nationalIdNumber", "nationalIdIssuingCountry")


class NationalIdSerializer(StrictSerializer):
    # A person's national ID: nationalIdType, nationalIdNumber and nationalIdIssuingCountry are
    # required on create, and sent all three or none on update (partial). No docstring: the
    # OpenAPI document describes these bodies with StrictSerializer's.

    def body_errors(self, data: Mapping) -> dict:
        return {**super().body_errors(data), **self._national_id_errors(data)}

    def _national_id_errors(self, data: Mapping) -> dict:
        sent = [name for name in NATIONAL_ID_FIELDS if name in data]
        if getattr(self.root, "partial", False) and not sent:
            return {}
        if len(sent) == len(NATIONAL_ID_FIELDS):
            return {}
        message = "nationalIdType, nationalIdNumber and nationalIdIssuingCountry must be sent together."
        return {name: [message] for name in NATIONAL_ID_FIELDS if name not in sent}


class PersonAddressSerializer(StrictSerializer):
    countryCode = Country(required=False)
    streetLine1 = street_line(required=False)
    streetLine2 = street_line(required=False)
    city = Text(required=False)
    stateRegionProvince = Text(required=False)
    postalCode = Text(required=False)
    locale = Text(required=False, help_text="Language-region tag, e.g. en-US")


class KycDataSerializer(NationalIdSerializer):
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


class AssociatedPersonSerializer(NationalIdSerializer):
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
