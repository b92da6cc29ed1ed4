"""The verification form of an INDIVIDUAL customer (kycData), behind its verificationLink."""

from django import forms

from ..serializers.kyc import choices
from .api_data import ApiDataForm
from .fields import DocumentUploadField, choice_field, choices_of, country_field, date_field

ID_SUBTYPES = ["NATIONAL_ID", "PASSPORT", "DRIVERS_LICENSE", "RESIDENCE_PERMIT"]


class KycForm(ApiDataForm):
    data_key, customer_type = "kycData", "INDIVIDUAL"

    legal_first_name = forms.CharField(label="Legal first name", max_length=200)
    legal_middle_name = forms.CharField(label="Legal middle name", max_length=200, required=False)
    legal_last_name = forms.CharField(label="Legal last name", max_length=200)
    date_of_birth = date_field("Date of birth")
    phone_number = forms.CharField(
        label="Phone number", max_length=32, help_text="International format, e.g. +12025550123."
    )
    nationality = country_field("Nationality")
    national_id_issuing_country = country_field("National ID issued by")
    national_id_type = forms.CharField(label="National ID type", max_length=32, help_text="Lower case, e.g. ssn.")
    national_id_number = forms.CharField(label="National ID number", max_length=64)
    employment_status = choice_field("Employment status", choices.EMPLOYMENT_STATUSES)
    source_of_funds = choice_field("Source of funds", choices.KYC_SOURCES_OF_FUNDS)
    account_purpose = choice_field("Purpose of the account", choices.KYC_ACCOUNT_PURPOSES)
    expected_monthly_payments_usd = choice_field(
        "Expected monthly payments (USD)", choices.EXPECTED_MONTHLY_PAYMENTS_USD
    )
    id_subtype = forms.ChoiceField(label="Kind of ID", choices=choices_of(ID_SUBTYPES, blank=None))
    id_country = country_field("ID issued by", required=False)
    id_number = forms.CharField(label="ID number", max_length=64, required=False)
    front_id_image = DocumentUploadField(label="Front of the ID")
    back_id_image = DocumentUploadField(label="Back of the ID", help_text="Not needed for a passport.")
    proof_of_address_image = DocumentUploadField(
        label="Proof of address", help_text="A utility bill or bank statement from the last 3 months."
    )

    paths = {
        "legal_first_name": ("legalFirstName",),
        "legal_middle_name": ("legalMiddleName",),
        "legal_last_name": ("legalLastName",),
        "date_of_birth": ("dateOfBirth",),
        "phone_number": ("phoneNumber",),
        "nationality": ("nationality",),
        "national_id_issuing_country": ("nationalIdIssuingCountry",),
        "national_id_type": ("nationalIdType",),
        "national_id_number": ("nationalIdNumber",),
        "employment_status": ("employmentStatus",),
        "source_of_funds": ("sourceOfFunds",),
        "account_purpose": ("accountPurpose",),
        "expected_monthly_payments_usd": ("expectedMonthlyPaymentsUsd",),
        "id_subtype": ("documents", 0, "subtype"),
        "id_country": ("documents", 0, "countryCode"),
        "id_number": ("documents", 0, "documentIdNumber"),
        "front_id_image": ("documents", 0, "frontIdImage"),
        "back_id_image": ("documents", 0, "backIdImage"),
        "proof_of_address_image": ("documents", 0, "proofOfAddressImage"),
    }
    constants = {("documents", 0, "type"): "GOVERNMENT_ID"}
    sections = [
        ("About you", ["legal_first_name", "legal_middle_name", "legal_last_name", "date_of_birth", "phone_number"]),
        (
            "Nationality and national ID",
            ["nationality", "national_id_issuing_country", "national_id_type", "national_id_number"],
        ),
        (
            "Your account",
            ["employment_status", "source_of_funds", "account_purpose", "expected_monthly_payments_usd"],
        ),
        (
            "Identity document",
            ["id_subtype", "id_country", "id_number", "front_id_image", "back_id_image", "proof_of_address_image"],
        ),
    ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["national_id_type"].initial = self.initial.get("national_id_type", "ssn")

    def edited_index(self, key, items):
        # The government ID, wherever the API put it.
        return next((i for i, item in enumerate(items) if item.get("type") == "GOVERNMENT_ID"), 0)
