"""The verification form of a BUSINESS customer (kybData), behind its verificationLink."""

from decimal import Decimal

from django import forms

from ..serializers.kyc import choices
from .api_data import ApiDataForm
from .fields import DocumentUploadField, choice_field, choices_of, country_field, date_field, street_field


class KybForm(ApiDataForm):
    data_key, customer_type = "kybData", "BUSINESS"

    legal_business_name = forms.CharField(label="Legal business name", max_length=300)
    dba_name = forms.CharField(label="Trading name (DBA)", max_length=300, required=False)
    business_type = forms.ChoiceField(label="Legal form", choices=choices_of(choices.BUSINESS_TYPES))
    registration_country = country_field("Country of registration")
    business_registration_number = forms.CharField(label="Registration number", max_length=100)
    formation_date = date_field("Date of formation", required=False)
    website = forms.CharField(label="Website", max_length=300, required=False)
    business_description = forms.CharField(
        label="What the business does", max_length=1000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    source_of_funds = choice_field("Source of funds", choices.KYB_SOURCES_OF_FUNDS)
    account_purpose = choice_field("Purpose of the account", choices.KYB_ACCOUNT_PURPOSES)
    expected_monthly_volume_usd = choice_field("Expected monthly volume (USD)", choices.EXPECTED_MONTHLY_VOLUMES_USD)
    estimated_annual_revenue_usd = choice_field("Estimated annual revenue (USD)", choices.ESTIMATED_ANNUAL_REVENUES_USD)

    person_first_name = forms.CharField(label="Legal first name", max_length=200)
    person_last_name = forms.CharField(label="Legal last name", max_length=200)
    person_email = forms.EmailField(label="E-mail", max_length=254)
    person_phone = forms.CharField(label="Phone number", max_length=32, help_text="International format.")
    person_date_of_birth = date_field("Date of birth")
    person_title = forms.CharField(label="Title or role", max_length=100, required=False, help_text="e.g. CEO")
    person_ownership = forms.DecimalField(
        label="Ownership (%)", min_value=0, max_value=100, decimal_places=2, required=False
    )
    person_is_control_person = forms.BooleanField(label="Controls the business (e.g. CEO)", required=False)
    person_is_signer = forms.BooleanField(label="Signs for the business", required=False)
    person_is_director = forms.BooleanField(label="Director", required=False)
    person_nationality = country_field("Nationality")
    person_national_id_issuing_country = country_field("National ID issued by")
    person_national_id_type = forms.CharField(label="National ID type", max_length=32, help_text="e.g. ssn")
    person_national_id_number = forms.CharField(label="National ID number", max_length=64)
    person_street_line1 = street_field("Street address", required=True)
    person_street_line2 = street_field("Street address, line 2", required=False)
    person_city = forms.CharField(label="City", max_length=100)
    person_state = forms.CharField(label="State, region or province", max_length=100, required=False)
    person_postal_code = forms.CharField(label="Postal code", max_length=20)
    person_country = country_field("Country")

    business_document_type = forms.ChoiceField(
        label="Kind of document", choices=choices_of(choices.BUSINESS_DOCUMENT_TYPES, blank=None)
    )
    business_document_image = DocumentUploadField(label="Document")

    paths = {
        "legal_business_name": ("businessInfo", "legalBusinessName"),
        "dba_name": ("businessInfo", "dbaName"),
        "business_type": ("businessInfo", "businessType"),
        "registration_country": ("businessInfo", "registrationCountry"),
        "formation_date": ("businessInfo", "formationDate"),
        "website": ("businessInfo", "website"),
        "business_description": ("businessInfo", "businessDescription"),
        "business_registration_number": ("businessRegistrationNumber",),
        "source_of_funds": ("sourceOfFunds",),
        "account_purpose": ("accountPurpose",),
        "expected_monthly_volume_usd": ("expectedMonthlyVolumeUsd",),
        "estimated_annual_revenue_usd": ("estimatedAnnualRevenueUsd",),
        "person_first_name": ("associatedPersons", 0, "legalFirstName"),
        "person_last_name": ("associatedPersons", 0, "legalLastName"),
        "person_email": ("associatedPersons", 0, "email"),
        "person_phone": ("associatedPersons", 0, "phoneNumber"),
        "person_date_of_birth": ("associatedPersons", 0, "dateOfBirth"),
        "person_title": ("associatedPersons", 0, "title"),
        "person_ownership": ("associatedPersons", 0, "ownershipPercentage"),
        "person_is_control_person": ("associatedPersons", 0, "isControlPerson"),
        "person_is_signer": ("associatedPersons", 0, "isSigner"),
        "person_is_director": ("associatedPersons", 0, "isDirector"),
        "person_nationality": ("associatedPersons", 0, "nationality"),
        "person_national_id_issuing_country": ("associatedPersons", 0, "nationalIdIssuingCountry"),
        "person_national_id_type": ("associatedPersons", 0, "nationalIdType"),
        "person_national_id_number": ("associatedPersons", 0, "nationalIdNumber"),
        "person_street_line1": ("associatedPersons", 0, "address", "streetLine1"),
        "person_street_line2": ("associatedPersons", 0, "address", "streetLine2"),
        "person_city": ("associatedPersons", 0, "address", "city"),
        "person_state": ("associatedPersons", 0, "address", "stateRegionProvince"),
        "person_postal_code": ("associatedPersons", 0, "address", "postalCode"),
        "person_country": ("associatedPersons", 0, "address", "countryCode"),
        "business_document_type": ("businessDocuments", 0, "type"),
        "business_document_image": ("businessDocuments", 0, "documentImage"),
    }
    sections = [
        (
            "The business",
            [
                "legal_business_name",
                "dba_name",
                "business_type",
                "registration_country",
                "business_registration_number",
                "formation_date",
                "website",
                "business_description",
            ],
        ),
        (
            "The account",
            ["source_of_funds", "account_purpose", "expected_monthly_volume_usd", "estimated_annual_revenue_usd"],
        ),
        (
            "Associated person",
            [
                "person_first_name",
                "person_last_name",
                "person_email",
                "person_phone",
                "person_date_of_birth",
                "person_title",
                "person_ownership",
                "person_is_control_person",
                "person_is_signer",
                "person_is_director",
                "person_nationality",
                "person_national_id_issuing_country",
                "person_national_id_type",
                "person_national_id_number",
            ],
        ),
        (
            "Associated person's address",
            [
                "person_street_line1",
                "person_street_line2",
                "person_city",
                "person_state",
                "person_postal_code",
                "person_country",
            ],
        ),
        ("Business document", ["business_document_type", "business_document_image"]),
    ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["person_national_id_type"].initial = self.initial.get("person_national_id_type", "ssn")

    # The API keeps ownership as a fraction (a quarter is 0.25); people think in percent.
    def to_form(self, name, value):
        if name == "person_ownership" and isinstance(value, (int, float)):
            return Decimal(str(value)) * 100
        return value

    def to_api(self, name, value):
        if name == "person_ownership":
            return float(value / 100)
        return super().to_api(name, value)
