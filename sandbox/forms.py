"""Forms of the hosted pages: KYC (individuals), KYB (businesses) and the bank account form.

Each form field stands for one place in the API's kycData/kybData object (its `paths` table),
so the same table builds the data from the form, prefills the form from the stored data on a
refill, and maps the API validator's error paths back onto the fields. The API's rules are not
repeated here: the form runs the API's validator (sandbox.serializers.customers) on what it builds.

A form edits one item of each list it touches (the government ID of `documents`, the first
associated person, the first business document). Stored items it does not show are kept after
it, and an image left empty on a refill keeps the image already on file.
"""

import base64
import datetime as dt
import itertools
from decimal import Decimal

import pycountry
from django import forms

from .kyc import choices
from .serializers.accounts import BankAccountFormIn
from .serializers.customers import CustomerUpdateSerializer

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
# Uploads are identified by their first bytes, never by name or declared type.
UPLOAD_SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"%PDF-": "application/pdf",
}
# The spec's hosted-form limit; the API itself asks at least 4 characters.
STREET_MAX_LENGTH = 100
STREET_MIN_LENGTH = 4
ID_SUBTYPES = ["NATIONAL_ID", "PASSPORT", "DRIVERS_LICENSE", "RESIDENCE_PERMIT"]

COUNTRIES = [
    ("", "Choose a country"),
    *sorted(((country.alpha_2, country.name) for country in pycountry.countries), key=lambda pair: pair[1]),
]


def _label(value: str) -> str:
    return value.replace("_", " ").capitalize()


def _choices(values, *, blank: str | None = "Choose…") -> list[tuple[str, str]]:
    return ([("", blank)] if blank is not None else []) + [(value, _label(value)) for value in values]


def country_field(label: str, *, required: bool = True) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=COUNTRIES, required=required)


def choice_field(label: str, values, *, required: bool = False) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=_choices(values), required=required)


def date_field(label: str, *, required: bool = True) -> forms.DateField:
    return forms.DateField(label=label, required=required, widget=forms.DateInput(attrs={"type": "date"}))


def street_field(label: str, *, required: bool) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=required,
        min_length=STREET_MIN_LENGTH,
        max_length=STREET_MAX_LENGTH,
        error_messages={
            "min_length": f"Must be at least {STREET_MIN_LENGTH} characters.",
            "max_length": f"Must be at most {STREET_MAX_LENGTH} characters (this is %(show_value)d).",
        },
        # No maxlength attribute: a browser would cut a pasted address short without a word.
        widget=forms.TextInput(attrs={"autocomplete": "address-line1"}),
    )


class DocumentUploadField(forms.FileField):
    """A PNG, JPEG or PDF of at most 10 MB, cleaned to a data URI string (the API's "strings
    carrying image content")."""

    widget = forms.FileInput(attrs={"accept": ",".join(UPLOAD_SIGNATURES.values())})

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "PNG, JPEG or PDF, up to 10 MB.")
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return None
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError("The file is larger than 10 MB. Send a smaller scan or photo.")
        head = upload.read(8)
        upload.seek(0)
        content_type = next((kind for magic, kind in UPLOAD_SIGNATURES.items() if head.startswith(magic)), None)
        if content_type is None:
            raise forms.ValidationError("The file is not a PNG, JPEG or PDF image. Upload a photo or scan.")
        return f"data:{content_type};base64,{base64.b64encode(upload.read()).decode()}"


# --- Paths in the API object --------------------------------------------------------------------


def get_path(data, path):
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def set_path(data: dict, path, value) -> None:
    for key, following in itertools.pairwise(path):
        container = [] if isinstance(following, int) else {}
        if isinstance(key, int):
            while len(data) <= key:
                data.append(container)
            data = data[key]
        else:
            data = data.setdefault(key, container)
    data[path[-1]] = value


def flatten_errors(errors, path=()):
    """DRF's nested errors as (path, message) pairs."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            yield from flatten_errors(value, (*path, key))
    elif isinstance(errors, list) and errors and all(isinstance(item, str) for item in errors):
        for message in errors:
            yield path, str(message)
    elif isinstance(errors, list):
        for index, value in enumerate(errors):
            yield from flatten_errors(value, (*path, index))
    else:
        yield path, str(errors)


class ApiDataForm(forms.Form):
    """A form whose fields are places in an API data object (see the module docstring)."""

    # "kycData" or "kybData", and the customer type the data belongs to
    data_key: str
    customer_type: str
    # form field -> path in the data object
    paths: dict[str, tuple] = {}
    # values the form always sends, e.g. the type of the ID document
    constants: dict[tuple, object] = {}
    # fieldsets: (legend, [field names])
    sections: list[tuple[str, list[str]]] = []

    def __init__(self, *args, stored: dict | None = None, **kwargs):
        self.stored = self.reorder(dict(stored or {}))
        kwargs.setdefault("initial", self.initial_from(self.stored))
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if not field.required and not isinstance(field, forms.BooleanField):
                field.label = f"{field.label} (optional)"
        for name, field in self.fields.items():
            if isinstance(field, DocumentUploadField) and get_path(self.stored, self.paths[name]):
                field.help_text = "An image is on file; upload a new one only to replace it. " + field.help_text

    # Which item of each list the form edits: moved to index 0, the others kept after it.
    def edited_index(self, key: str, items: list) -> int:
        return 0

    def list_keys(self) -> set[str]:
        return {path[0] for path in self.paths.values() if len(path) > 1 and isinstance(path[1], int)}

    def reorder(self, stored: dict) -> dict:
        for key in self.list_keys():
            items = [item for item in stored.get(key) or [] if isinstance(item, dict)]
            if items:
                index = self.edited_index(key, items)
                stored[key] = [items[index], *items[:index], *items[index + 1 :]]
        return stored

    def initial_from(self, stored: dict) -> dict:
        initial = {}
        for name, path in self.paths.items():
            value = get_path(stored, path)
            if value is not None and not isinstance(self.base_fields[name], DocumentUploadField):
                initial[name] = self.to_form(name, value)
        return initial

    def to_form(self, name, value):
        return value

    def to_api(self, name, value):
        if isinstance(value, dt.date):
            return value.isoformat()
        return value

    def api_data(self) -> dict:
        """The data object built from the cleaned form (call after is_valid())."""
        data: dict = {}
        for name, path in self.paths.items():
            value = self.cleaned_data.get(name)
            if value in (None, "") and isinstance(self.fields[name], DocumentUploadField):
                value = get_path(self.stored, path)
            if value in (None, ""):
                continue
            set_path(data, path, self.to_api(name, value))
        for path, value in self.constants.items():
            set_path(data, path, value)
        for key in self.list_keys():
            kept = (self.stored.get(key) or [])[1:]
            if kept:
                data[key] = [*data.get(key, []), *kept]
        return data

    def clean(self):
        """The API's own validation (serializers.customers, as for PATCH /customers) of the data the form
        builds, once the fields themselves are valid. Its result is `validated_data`."""
        cleaned = super().clean()
        if not self.errors:
            serializer = CustomerUpdateSerializer(
                data={self.data_key: self.api_data()}, partial=True, context={"customer_type": self.customer_type}
            )
            if serializer.is_valid():
                self.validated_data = serializer.validated_data
            else:
                self.add_api_errors(serializer.errors.get(self.data_key, serializer.errors))
        return cleaned

    def add_api_errors(self, errors) -> None:
        """Put the API validator's errors (relative to the data object) on their fields."""
        fields_by_path = {path: name for name, path in self.paths.items()}
        for path, message in flatten_errors(errors):
            name = fields_by_path.get(tuple(path))
            if name:
                self.add_error(name, message)
            else:
                where = ".".join(str(part) for part in path)
                self.add_error(None, f"{where}: {message}" if where else message)

    def fieldsets(self):
        return [(legend, [self[name] for name in names]) for legend, names in self.sections]


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
    id_subtype = forms.ChoiceField(label="Kind of ID", choices=_choices(ID_SUBTYPES, blank=None))
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


class KybForm(ApiDataForm):
    data_key, customer_type = "kybData", "BUSINESS"

    legal_business_name = forms.CharField(label="Legal business name", max_length=300)
    dba_name = forms.CharField(label="Trading name (DBA)", max_length=300, required=False)
    business_type = forms.ChoiceField(label="Legal form", choices=_choices(choices.BUSINESS_TYPES))
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
        label="Kind of document", choices=_choices(choices.BUSINESS_DOCUMENT_TYPES, blank=None)
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


class BankAccountForm(forms.Form):
    label_suffix = ""

    bankAccountOwnerName = forms.CharField(label="Account owner's name", max_length=200)
    bankName = forms.CharField(label="Bank name", max_length=200)
    bankAccountType = forms.ChoiceField(label="Account type", choices=_choices(["CHECKING", "SAVINGS"], blank=None))
    bankAccountNumber = forms.RegexField(
        label="Account number",
        regex=r"^\d{4,17}$",
        error_messages={"invalid": "Must be 4 to 17 digits."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    bankRoutingNumber = forms.RegexField(
        label="Routing number (ABA)",
        regex=r"^\d{9}$",
        error_messages={"invalid": "Must be the 9 digits of an ABA routing number."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    bankAccountPaymentMethod = forms.ChoiceField(
        label="Payment method", choices=[("ACH", "ACH"), ("WIRE", "Wire transfer")]
    )

    def clean(self):
        """The rules of the API's bank-account form helper (ABA checksum included)."""
        cleaned = super().clean()
        if not self.errors:
            fields = ["bankAccountOwnerName", "bankName", "bankAccountType", "bankAccountNumber", "bankRoutingNumber"]
            serializer = BankAccountFormIn(data={name: cleaned[name] for name in fields})
            if serializer.is_valid():
                method = cleaned["bankAccountPaymentMethod"]
                self.validated_data = {**serializer.validated_data, "bankAccountPaymentMethod": method}
            else:
                for path, message in flatten_errors(serializer.errors):
                    self.add_error(path[0] if path and path[0] in self.fields else None, message)
        return cleaned
