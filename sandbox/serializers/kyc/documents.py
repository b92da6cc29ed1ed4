"""Documents in KYC and KYB data: identity documents of persons, documents of businesses."""

from ..fields import Enum, StrictSerializer, Text
from .choices import BUSINESS_DOCUMENT_TYPES, DOCUMENT_SUBTYPES, DOCUMENT_TYPES
from .data_fields import Country, DateText


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


class BusinessDocumentSerializer(StrictSerializer):
    type = Enum(BUSINESS_DOCUMENT_TYPES, required=False)
    documentImage = Text(required=False, help_text="Image content, e.g. base64")
    description = Text(required=False)
