"""Forms of the compliance workspace: the queue's filters, case work, and the KYC/KYB editors.

Each field of a KYC/KYB form stands for one place in the API's kycData/kybData (its `PATHS`
table: field -> (path, section)); the same table builds the request from the form and puts
the API's VALIDATION_ERROR paths back onto the fields. The spec's rules are checked here
first, so a request the API would refuse is never sent.
"""

import base64
import binascii
import datetime as dt
import itertools
import re
from decimal import Decimal

import phonenumbers
from django import forms
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import UploadedFile
from django.template.loader import render_to_string

from . import choices
from .models import CustomerStatus, CustomerType

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
# Uploads are recognised by their first bytes, never by their name or declared type.
DOCUMENT_SIGNATURES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"%PDF-": "application/pdf"}
NATIONAL_ID_FIELDS = ["national_id_type", "national_id_number", "national_id_issuing_country"]
NATIONAL_ID_ON_CREATE = "KYC data sent with a new customer needs the national ID: its type, number and issuing country."
NATIONAL_ID_MESSAGE = "Type, number and issuing country of the national ID go together: fill in all three, or none."


# --- The queue ----------------------------------------------------------------------------


def colleagues():
    """The active staff who may work on customers (compliance, admin), by username."""
    return (
        get_user_model()
        .objects.filter(is_active=True, groups__permissions__codename="change_customers")
        .distinct()
        .order_by("username")
    )


class QueueFilterForm(forms.Form):
    VIEWS = [("queue", "Needs a person"), ("all", "All customers")]
    SORTS = [("age", "Oldest in state first"), ("updated", "Last update first")]
    ASSIGNEES = [("", "Anyone"), ("me", "Me"), ("none", "Unassigned")]

    view = forms.ChoiceField(choices=VIEWS, required=False, label="Show")
    q = forms.CharField(
        required=False,
        max_length=254,
        label="Name or e-mail starts with",
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )
    status = forms.MultipleChoiceField(
        choices=CustomerStatus.choices, required=False, label="Status", widget=forms.CheckboxSelectMultiple
    )
    type = forms.ChoiceField(choices=[("", "Any type"), *CustomerType.choices], required=False, label="Type")
    organization = forms.CharField(required=False, max_length=64, label="Organization id")
    issue = forms.CharField(
        required=False,
        max_length=64,
        label="Issue code",
        widget=forms.TextInput(attrs={"list": "issue-codes", "autocomplete": "off"}),
    )
    updated_since = forms.DateField(
        required=False, label="Updated since", widget=forms.DateInput(attrs={"type": "date"})
    )
    assignee = forms.ChoiceField(choices=ASSIGNEES, required=False, label="Assignee")
    sort = forms.ChoiceField(choices=SORTS, required=False, label="Sort")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # One query for the select and its validation: a colleague's pk, as text.
        self.colleague_choices = [(str(pk), name) for pk, name in colleagues().values_list("pk", "username")]
        self.fields["assignee"].choices = [*self.ASSIGNEES, ("Colleagues", self.colleague_choices)]

    def clean_issue(self):
        return self.cleaned_data["issue"].strip().upper()

    def clean_q(self):
        return self.cleaned_data["q"].strip()


# --- Case work ----------------------------------------------------------------------------


class AssignForm(forms.Form):
    """Claim (assign to me), hand to a colleague, or release a case."""

    assignee = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), required=False, label="Assign to", empty_label="Nobody"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Only those who may work on customers can be given a case.
        self.fields["assignee"].queryset = colleagues()


class NoteForm(forms.Form):
    body = forms.CharField(
        label="Internal note",
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Seen by staff only; never sent to the Payments API.",
    )


class HandoutForm(forms.Form):
    kind = forms.ChoiceField(choices=[("copied", "copied"), ("opened", "opened"), ("refill", "refill")])


class CustomerCreateForm(forms.Form):
    customer_type = forms.ChoiceField(choices=CustomerType.choices, label="Type", widget=forms.RadioSelect)
    email = forms.EmailField(label="E-mail", max_length=254)
    first_name = forms.CharField(label="First name", max_length=200, required=False, help_text="Individuals")
    last_name = forms.CharField(label="Last name", max_length=200, required=False, help_text="Individuals")
    business_name = forms.CharField(label="Business name", max_length=300, required=False, help_text="Businesses")
    add_data = forms.BooleanField(
        label="Enter KYC/KYB data next", required=False, help_text="Opens the KYC or KYB form once the customer exists."
    )

    def clean(self):
        data = super().clean()
        if data.get("customer_type") == CustomerType.INDIVIDUAL:
            for name in ("first_name", "last_name"):
                if not data.get(name):
                    self.add_error(name, "An individual needs a first and a last name.")
        elif data.get("customer_type") == CustomerType.BUSINESS and not data.get("business_name"):
            self.add_error("business_name", "A business needs its name.")
        return data


# --- Building blocks of the KYC/KYB forms -------------------------------------------------


def _choice(label, values, *, help_text=""):
    return forms.ChoiceField(label=label, choices=[("", "—"), *values], required=False, help_text=help_text)


def _country(label, *, help_text=""):
    return _choice(label, choices.COUNTRIES, help_text=help_text)


def _yes_no(label, *, help_text=""):
    """Three states: left empty, the value is not sent (an update keeps what the API has)."""
    return forms.TypedChoiceField(
        label=label,
        choices=[("", "—"), ("true", "Yes"), ("false", "No")],
        coerce=lambda value: value == "true",
        empty_value=None,
        required=False,
        help_text=help_text,
    )


def _text(label, *, max_length=300, help_text="", **attrs):
    return forms.CharField(
        label=label, max_length=max_length, required=False, help_text=help_text, widget=forms.TextInput(attrs=attrs)
    )


class PastDateField(forms.DateField):
    widget = forms.DateInput(attrs={"type": "date"})

    def validate(self, value):
        super().validate(value)
        if value and value > dt.date.today():
            raise forms.ValidationError("This date is in the future.")
        if value and value.year < 1900:
            raise forms.ValidationError("This date is before 1900.")


class PhoneField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "International format, e.g. +12025550123.")
        super().__init__(max_length=32, required=False, widget=forms.TextInput(attrs={"type": "tel"}), **kwargs)

    def clean(self, value):
        value = super().clean(value).replace(" ", "")
        if not value:
            return value
        try:
            valid = value.startswith("+") and phonenumbers.is_valid_number(phonenumbers.parse(value, None))
        except phonenumbers.NumberParseException:
            valid = False
        if not valid:
            raise forms.ValidationError("Enter a valid phone number in international format, e.g. +12025550123.")
        return value


class StreetField(forms.CharField):
    def __init__(self, label, **kwargs):
        super().__init__(label=label, required=False, max_length=100, help_text="At least 4 characters.", **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value and len(value) < 4:
            raise forms.ValidationError(f"A street line needs at least 4 characters (this has {len(value)}).")
        return value


def encode_document(upload: UploadedFile) -> str:
    """The upload as the string the API expects: a data URI with base64 content."""
    if upload.size > MAX_DOCUMENT_BYTES:
        raise forms.ValidationError(
            f"{upload.name} is {upload.size / 1024 / 1024:.1f} MB; the limit is 10 MB. Upload a smaller scan."
        )
    upload.seek(0)
    content = upload.read()
    upload.seek(0)
    mime = next((m for sig, m in DOCUMENT_SIGNATURES.items() if content.startswith(sig)), None)
    if mime is None:
        raise forms.ValidationError(f"{upload.name} is not a PNG, JPEG or PDF file. Upload a photo or a scan.")
    return f"data:{mime};base64,{base64.b64encode(content).decode()}"


def _check_data_uri(value: str) -> str:
    """A document kept from an earlier submit of this form: the same checks as an upload."""
    head, _, payload = value.partition(",")
    mime = head.removeprefix("data:").removesuffix(";base64")
    try:
        content = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise forms.ValidationError("The kept document could not be read; upload it again.") from None
    if mime not in DOCUMENT_SIGNATURES.values() or not any(content.startswith(s) for s in DOCUMENT_SIGNATURES):
        raise forms.ValidationError("The kept document is not a PNG, JPEG or PDF file; upload it again.")
    if len(content) > MAX_DOCUMENT_BYTES:
        raise forms.ValidationError("The kept document is larger than 10 MB; upload a smaller one.")
    return value


class DocumentInput(forms.FileInput):
    """A file input that keeps an accepted file across a failed submit (as a hidden data URI)
    and previews images: nothing the staff member gave is lost on an error."""

    def __init__(self, attrs=None):
        super().__init__({"accept": "image/png,image/jpeg,application/pdf", "data-preview": "", **(attrs or {})})

    def value_from_datadict(self, data, files, name):
        return files.get(name) or data.get(f"{name}_kept") or None

    def value_omitted_from_data(self, data, files, name):
        return name not in files and f"{name}_kept" not in data

    def render(self, name, value, attrs=None, renderer=None):
        kept = value if isinstance(value, str) else None
        if isinstance(value, UploadedFile):
            try:
                kept = encode_document(value)
            except forms.ValidationError:
                kept = None
        context = self.get_context(name, None, attrs)
        context["widget"]["kept"] = kept
        context["widget"]["kept_is_image"] = bool(kept and kept.startswith("data:image/"))
        return render_to_string("customers/_document_input.html", context)


class DocumentField(forms.Field):
    widget = DocumentInput

    def __init__(self, label, **kwargs):
        kwargs.setdefault("help_text", "PNG, JPEG or PDF, at most 10 MB.")
        super().__init__(label=label, required=False, **kwargs)

    def to_python(self, value):
        if not value:
            return None
        if isinstance(value, UploadedFile):
            return encode_document(value)
        return _check_data_uri(str(value))


# --- KYC/KYB forms ------------------------------------------------------------------------


class ApiForm(forms.Form):
    """A form whose fields map to places in an API object.

    PATHS: field name -> (path inside the object, section name). A field left empty is not
    sent; `sections` names the parts that were (for the audit log: names, never values).
    """

    PATHS: dict[str, tuple[tuple, str]] = {}
    SECTIONS: dict[str, str] = {}

    def to_api(self, name, value):
        if isinstance(value, dt.date):
            return value.isoformat()
        return value

    def api_data(self) -> tuple[dict, set[str]]:
        data: dict = {}
        sections: set[str] = set()
        for name, (path, section) in self.PATHS.items():
            value = self.cleaned_data.get(name)
            if value in (None, "", []):
                continue
            _set_path(data, path, self.to_api(name, value))
            sections.add(section)
        return data, sections

    def field_for_path(self, path: tuple) -> str | None:
        for name, (field_path, _section) in self.PATHS.items():
            if tuple(field_path) == tuple(path):
                return name
        return None

    def sections_with_fields(self):
        """[(section title, [bound fields])] in the order of SECTIONS, for the template."""
        grouped = {key: [] for key in self.SECTIONS}
        for name, (_path, section) in self.PATHS.items():
            grouped[section].append(self[name])
        return [(self.SECTIONS[key], fields) for key, fields in grouped.items() if fields]


def _set_path(data: dict, path: tuple, value) -> None:
    node = data
    for key, next_key in itertools.pairwise(path):
        if isinstance(key, int):
            while len(node) <= key:
                node.append({} if not isinstance(next_key, int) else [])
            node = node[key]
        else:
            node = node.setdefault(key, [] if isinstance(next_key, int) else {})
    node[path[-1]] = value


def _national_id_triple(form, names) -> None:
    given = [name for name in names if form.cleaned_data.get(name)]
    if given and len(given) < len(names):
        for name in names:
            if not form.cleaned_data.get(name) and name not in form.errors:
                form.add_error(name, NATIONAL_ID_MESSAGE)


def _document_dates(form, issued, expires) -> None:
    start, end = form.cleaned_data.get(issued), form.cleaned_data.get(expires)
    if start and start > dt.date.today():
        form.add_error(issued, "The issue date is in the future.")
    if start and end and end <= start:
        form.add_error(expires, "The expiry date must come after the issue date.")


class MaskedIdInput(forms.PasswordInput):
    """The national ID number is typed like a password: kept across an error, never shown."""

    def __init__(self):
        super().__init__(render_value=True, attrs={"autocomplete": "off", "spellcheck": "false"})


def masked(number: str) -> str:
    return f"•••• {number[-4:]}" if len(number) > 4 else "••••"


class IdentityDocumentForm(ApiForm):
    """One identity document of an individual, with its images and proof of address.

    KycForm holds the first document itself (a KYC update with one document needs no rows);
    each further one is a row of IdentityDocumentFormSet (see KycEdit).
    """

    SECTIONS = {"documents": "Identity document and proof of address"}

    document_type = _choice("Document type", choices.DOCUMENT_TYPES)
    document_subtype = _choice("Document kind", choices.DOCUMENT_SUBTYPES)
    document_country = _country("Issued by")
    document_number = _text("Document number", max_length=64, autocomplete="off")
    document_issued = forms.DateField(label="Issued on", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    document_expires = forms.DateField(
        label="Expires on", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    front_image = DocumentField("Front of the ID")
    back_image = DocumentField("Back of the ID", help_text="Not needed for a passport. PNG, JPEG or PDF, ≤ 10 MB.")
    proof_of_address_image = DocumentField(
        "Proof of address", help_text="Utility bill or bank statement, last 3 months. PNG, JPEG or PDF, ≤ 10 MB."
    )
    document_description = _text("Description")

    PATHS = {
        "document_type": (("type",), "documents"),
        "document_subtype": (("subtype",), "documents"),
        "document_country": (("countryCode",), "documents"),
        "document_number": (("documentIdNumber",), "documents"),
        "document_issued": (("issuanceDate",), "documents"),
        "document_expires": (("expirationDate",), "documents"),
        "front_image": (("frontIdImage",), "documents"),
        "back_image": (("backIdImage",), "documents"),
        "proof_of_address_image": (("proofOfAddressImage",), "documents"),
        "document_description": (("description",), "documents"),
    }

    def clean(self):
        data = super().clean()
        _document_dates(self, "document_issued", "document_expires")
        has_image = any(data.get(n) for n in ("front_image", "back_image"))
        if has_image and not data.get("document_type"):
            # The API reviews images of a GOVERNMENT_ID: say so rather than guess.
            self.add_error("document_type", "Choose the document type of these images (usually Government ID).")
        return data


class KycForm(IdentityDocumentForm):
    """An individual's KYC data; its document fields (inherited) are the first document."""

    SECTIONS = {
        "identity": "Identity",
        "national_id": "National ID",
        "profile": "Occupation, funds and purpose",
        "documents": "Identity document and proof of address",
    }

    legal_first_name = _text("Legal first name", autocomplete="off")
    legal_middle_name = _text("Legal middle name", autocomplete="off")
    legal_last_name = _text("Legal last name", autocomplete="off")
    date_of_birth = PastDateField(label="Date of birth", required=False)
    phone_number = PhoneField(label="Phone number")
    nationality = _country("Nationality")
    national_id_type = _choice("ID type", choices.NATIONAL_ID_TYPES)
    national_id_number = forms.CharField(
        label="ID number",
        max_length=64,
        required=False,
        widget=MaskedIdInput(),
        help_text="Never shown again once sent. Type, number and country go together.",
    )
    national_id_issuing_country = _country("Issuing country")
    employment_status = _choice("Employment status", choices.EMPLOYMENT_STATUSES)
    most_recent_occupation = _text("Most recent occupation", max_length=100, help_text="Occupation code.")
    source_of_funds = _choice("Source of funds", choices.KYC_SOURCES_OF_FUNDS)
    account_purpose = _choice("Account purpose", choices.KYC_ACCOUNT_PURPOSES)
    account_purpose_other = _text("Account purpose, other", help_text="When the purpose is Other.")
    expected_monthly_payments_usd = _choice("Expected monthly payments", choices.EXPECTED_MONTHLY_PAYMENTS_USD)
    is_intermediary = _yes_no("Acts for someone else (intermediary)")

    PATHS = {
        "legal_first_name": (("legalFirstName",), "identity"),
        "legal_middle_name": (("legalMiddleName",), "identity"),
        "legal_last_name": (("legalLastName",), "identity"),
        "date_of_birth": (("dateOfBirth",), "identity"),
        "phone_number": (("phoneNumber",), "identity"),
        "nationality": (("nationality",), "identity"),
        "national_id_type": (("nationalIdType",), "national_id"),
        "national_id_number": (("nationalIdNumber",), "national_id"),
        "national_id_issuing_country": (("nationalIdIssuingCountry",), "national_id"),
        "employment_status": (("employmentStatus",), "profile"),
        "most_recent_occupation": (("mostRecentOccupation",), "profile"),
        "source_of_funds": (("sourceOfFunds",), "profile"),
        "account_purpose": (("accountPurpose",), "profile"),
        "account_purpose_other": (("accountPurposeOther",), "profile"),
        "expected_monthly_payments_usd": (("expectedMonthlyPaymentsUsd",), "profile"),
        "is_intermediary": (("isIntermediary",), "profile"),
        # The first document: documents[0].
        **{name: (("documents", 0, *path), section) for name, (path, section) in IdentityDocumentForm.PATHS.items()},
    }
    field_order = list(PATHS)

    def clean(self):
        data = super().clean()
        _national_id_triple(self, NATIONAL_ID_FIELDS)
        return data

    def national_id_hint(self) -> str:
        number = self.data.get(self.add_prefix("national_id_number"), "") if self.is_bound else ""
        return masked(number) if number else ""


class PersonForm(ApiForm):
    """One associated person of a business (a row of the KYB form's formset)."""

    SECTIONS = {"person": "Person", "address": "Address", "national_id": "National ID", "documents": "Document"}

    legal_first_name = _text("Legal first name", autocomplete="off")
    legal_middle_name = _text("Legal middle name", autocomplete="off")
    legal_last_name = _text("Legal last name", autocomplete="off")
    email = forms.EmailField(label="E-mail", required=False, max_length=254)
    phone_number = PhoneField(label="Phone number")
    date_of_birth = PastDateField(label="Date of birth", required=False)
    nationality = _country("Nationality")
    title = _text("Title", max_length=100, help_text="Role in the business, e.g. CEO.")
    ownership_percentage = forms.DecimalField(
        label="Ownership (%)",
        required=False,
        min_value=0,
        max_value=100,
        max_digits=7,
        decimal_places=4,
        help_text="In percent: 25 means a quarter (sent as 0.25).",
    )
    is_control_person = forms.BooleanField(label="Control person", required=False)
    is_signer = forms.BooleanField(label="Signer", required=False)
    is_director = forms.BooleanField(label="Director", required=False)
    street_line1 = StreetField("Street line 1")
    street_line2 = StreetField("Street line 2")
    city = _text("City", max_length=100)
    state_region_province = _text("State, region or province", max_length=100)
    postal_code = _text("Postal code", max_length=20)
    country_code = _country("Country")
    locale = _text("Locale", max_length=20, help_text="Language and region, e.g. en-US.")
    national_id_type = _choice("ID type", choices.NATIONAL_ID_TYPES)
    national_id_number = forms.CharField(label="ID number", max_length=64, required=False, widget=MaskedIdInput())
    national_id_issuing_country = _country("Issuing country")
    document_type = _choice("Document type", choices.DOCUMENT_TYPES)
    document_subtype = _choice("Document kind", choices.DOCUMENT_SUBTYPES)
    front_image = DocumentField("Front of the ID")
    back_image = DocumentField("Back of the ID")
    proof_of_address_image = DocumentField("Proof of address")

    PATHS = {
        "legal_first_name": (("legalFirstName",), "person"),
        "legal_middle_name": (("legalMiddleName",), "person"),
        "legal_last_name": (("legalLastName",), "person"),
        "email": (("email",), "person"),
        "phone_number": (("phoneNumber",), "person"),
        "date_of_birth": (("dateOfBirth",), "person"),
        "nationality": (("nationality",), "person"),
        "title": (("title",), "person"),
        "ownership_percentage": (("ownershipPercentage",), "person"),
        "is_control_person": (("isControlPerson",), "person"),
        "is_signer": (("isSigner",), "person"),
        "is_director": (("isDirector",), "person"),
        "street_line1": (("address", "streetLine1"), "address"),
        "street_line2": (("address", "streetLine2"), "address"),
        "city": (("address", "city"), "address"),
        "state_region_province": (("address", "stateRegionProvince"), "address"),
        "postal_code": (("address", "postalCode"), "address"),
        "country_code": (("address", "countryCode"), "address"),
        "locale": (("address", "locale"), "address"),
        "national_id_type": (("nationalIdType",), "national_id"),
        "national_id_number": (("nationalIdNumber",), "national_id"),
        "national_id_issuing_country": (("nationalIdIssuingCountry",), "national_id"),
        "document_type": (("documents", 0, "type"), "documents"),
        "document_subtype": (("documents", 0, "subtype"), "documents"),
        "front_image": (("documents", 0, "frontIdImage"), "documents"),
        "back_image": (("documents", 0, "backIdImage"), "documents"),
        "proof_of_address_image": (("documents", 0, "proofOfAddressImage"), "documents"),
    }

    def to_api(self, name, value):
        if name == "ownership_percentage":
            return (value / Decimal(100)).normalize()  # 25 % -> 0.25, as the API wants
        return super().to_api(name, value)

    def api_data(self):
        data, sections = super().api_data()
        # Unticked boxes are a "no" for a person that is sent (a person is sent whole).
        if data:
            for name in ("is_control_person", "is_signer", "is_director"):
                data.setdefault(self.PATHS[name][0][0], False)
        return data, sections

    def clean(self):
        data = super().clean()
        _national_id_triple(self, ["national_id_type", "national_id_number", "national_id_issuing_country"])
        return data


class BusinessDocumentForm(ApiForm):
    SECTIONS = {"document": "Business document"}

    type = _choice("Document type", choices.BUSINESS_DOCUMENT_TYPES)
    document_image = DocumentField("File")
    description = _text("Description")

    PATHS = {
        "type": (("type",), "document"),
        "document_image": (("documentImage",), "document"),
        "description": (("description",), "document"),
    }

    def clean(self):
        data = super().clean()
        if data.get("document_image") and not data.get("type"):
            self.add_error("type", "Choose what kind of document this is.")
        return data


class KybForm(ApiForm):
    SECTIONS = {
        "business": "Business",
        "funds": "Funds and purpose",
        "compliance": "Compliance",
    }

    legal_business_name = _text("Legal business name")
    dba_name = _text("Trading name (DBA)")
    business_type = _choice("Legal form", choices.BUSINESS_TYPES)
    business_industries = _text("Industry code", max_length=100)
    business_description = forms.CharField(
        label="What the business does", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    website = forms.URLField(label="Website", required=False, max_length=300, assume_scheme="https")
    other_links = forms.CharField(
        label="Other links", required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One address a line."
    )
    formation_date = PastDateField(label="Formation date", required=False)
    registration_country = _country("Registration country")
    business_registration_number = _text("Registration number", max_length=100)
    is_dao = _yes_no("Is a DAO")
    source_of_funds = _choice("Source of funds", choices.KYB_SOURCES_OF_FUNDS)
    source_of_funds_description = _text("Source of funds, described")
    account_purpose = _choice("Account purpose", choices.KYB_ACCOUNT_PURPOSES)
    account_purpose_other = _text("Account purpose, other", help_text="When the purpose is Other.")
    expected_monthly_volume_usd = _choice("Expected monthly volume", choices.EXPECTED_MONTHLY_VOLUMES_USD)
    estimated_annual_revenue_usd = _choice("Estimated annual revenue", choices.ESTIMATED_ANNUAL_REVENUES_USD)
    conducts_money_services = _yes_no("Conducts money services")
    conducts_money_services_description = _text("Money services, described")
    conducts_money_services_through_service = _yes_no("Money services through this service")
    operates_in_prohibited_countries = _yes_no("Operates in prohibited countries")
    compliance_screening_description = _text("Compliance screening, described")
    high_risk_activities = forms.MultipleChoiceField(
        label="High-risk activities",
        choices=choices.HIGH_RISK_ACTIVITIES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    high_risk_activities_explanation = _text("High-risk activities, explained")

    PATHS = {
        "legal_business_name": (("businessInfo", "legalBusinessName"), "business"),
        "dba_name": (("businessInfo", "dbaName"), "business"),
        "business_type": (("businessInfo", "businessType"), "business"),
        "business_industries": (("businessInfo", "businessIndustries"), "business"),
        "business_description": (("businessInfo", "businessDescription"), "business"),
        "website": (("businessInfo", "website"), "business"),
        "other_links": (("businessInfo", "otherLinks"), "business"),
        "formation_date": (("businessInfo", "formationDate"), "business"),
        "registration_country": (("businessInfo", "registrationCountry"), "business"),
        "is_dao": (("businessInfo", "isDao"), "business"),
        "business_registration_number": (("businessRegistrationNumber",), "business"),
        "source_of_funds": (("sourceOfFunds",), "funds"),
        "source_of_funds_description": (("sourceOfFundsDescription",), "funds"),
        "account_purpose": (("accountPurpose",), "funds"),
        "account_purpose_other": (("accountPurposeOther",), "funds"),
        "expected_monthly_volume_usd": (("expectedMonthlyVolumeUsd",), "funds"),
        "estimated_annual_revenue_usd": (("estimatedAnnualRevenueUsd",), "funds"),
        "conducts_money_services": (("conductsMoneyServices",), "compliance"),
        "conducts_money_services_description": (("conductsMoneyServicesDescription",), "compliance"),
        "conducts_money_services_through_service": (("conductsMoneyServicesThroughService",), "compliance"),
        "operates_in_prohibited_countries": (("operatesInProhibitedCountries",), "compliance"),
        "compliance_screening_description": (("complianceScreeningDescription",), "compliance"),
        "high_risk_activities": (("highRiskActivities",), "compliance"),
        "high_risk_activities_explanation": (("highRiskActivitiesExplanation",), "compliance"),
    }

    def clean_other_links(self):
        return [line.strip() for line in self.cleaned_data["other_links"].splitlines() if line.strip()]


class RowFormSet(forms.BaseFormSet):
    def rows_to_send(self) -> list:
        """The filled rows not marked for removal, in order: row i of the request."""
        return [
            form
            for form in self.forms
            if form.has_changed() and not (self.can_delete and self._should_delete_form(form))
        ]


PersonFormSet = forms.formset_factory(
    PersonForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)
BusinessDocumentFormSet = forms.formset_factory(
    BusinessDocumentForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)
IdentityDocumentFormSet = forms.formset_factory(
    IdentityDocumentForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)
# Row kinds of the KYC/KYB forms: formset prefix -> formset (the prefixes differ, since the
# create page shows the KYC and the KYB parts together).
ROW_FORMSETS = {
    "persons": PersonFormSet,
    "documents": BusinessDocumentFormSet,
    "kyc_documents": IdentityDocumentFormSet,
}


def row_formset(formset_class, data, files, prefix: str):
    """A formset of rows, bound only when the request carries its management form: a request
    without one (one document, a script) has no rows rather than a "tampered" error."""
    bound = data is not None and f"{prefix}-TOTAL_FORMS" in data
    return formset_class(data if bound else None, files if bound else None, prefix=prefix)


def _rows_valid(formset) -> bool:
    return not formset.is_bound or formset.is_valid()


def _strip_root(path, root: str) -> tuple:
    return tuple(path[1:]) if tuple(path[:1]) == (root,) else tuple(path)


class KybEdit:
    """The KYB editor: the business form, its persons and its documents, as one form.

    Arrays replace on the API: when any person (or document) row is filled, all the rows
    are sent, and they replace the ones on file.
    """

    def __init__(self, data=None, files=None):
        self.form = KybForm(data, files, prefix="kyb")
        self.persons = row_formset(PersonFormSet, data, files, "persons")
        self.documents = row_formset(BusinessDocumentFormSet, data, files, "documents")
        self.top_errors: list[str] = []
        if data is None:
            self.persons.extra = 1
            self.documents.extra = 1

    def is_valid(self) -> bool:
        return all([self.form.is_valid(), _rows_valid(self.persons), _rows_valid(self.documents)])

    def api_data(self) -> tuple[dict, set[str]]:
        data, sections = self.form.api_data()
        persons = [form.api_data()[0] for form in self.persons.rows_to_send()]
        if any(persons):
            data["associatedPersons"] = [p for p in persons if p]
            sections.add("associated_persons")
        documents = [form.api_data()[0] for form in self.documents.rows_to_send()]
        if any(documents):
            data["businessDocuments"] = [d for d in documents if d]
            sections.add("business_documents")
        return data, sections

    def add_api_errors(self, errors) -> None:
        """VALIDATION_ERROR details onto the fields, rows included; the rest at the top."""
        rows = {
            "associatedPersons": [f for f in self.persons.rows_to_send() if f.api_data()[0]],
            "businessDocuments": [f for f in self.documents.rows_to_send() if f.api_data()[0]],
        }
        for error in errors:
            path = tuple(error.path[1:]) if error.path[:1] == ("kybData",) else tuple(error.path)
            target, name = self.form, self.form.field_for_path(path)
            if name is None and len(path) >= 3 and path[0] in rows and isinstance(path[1], int):
                forms_list = rows[path[0]]
                if path[1] < len(forms_list):
                    target = forms_list[path[1]]
                    name = target.field_for_path(path[2:])
            if name is not None:
                target.add_error(name, error.message)
            else:
                self.top_errors.append(f"{error.field or 'Request'}: {error.message}")


class KycEdit:
    """The KYC editor: the KYC form (holding the first identity document) and further
    identity documents as rows. Documents replace on the API: all of them are sent together."""

    def __init__(self, data=None, files=None, *, prefix=None):
        self.form = KycForm(data, files, prefix=prefix)
        self.documents = row_formset(IdentityDocumentFormSet, data, files, "kyc_documents")
        self.top_errors: list[str] = []

    def is_valid(self) -> bool:
        return all([self.form.is_valid(), _rows_valid(self.documents)])

    def _document_forms(self) -> list[ApiForm]:
        """The forms of the documents sent, in the request's order: documents[i] is the i-th."""
        first = [self.form] if self.form.api_data()[0].get("documents") else []
        return first + [row for row in self.documents.rows_to_send() if row.api_data()[0]]

    def api_data(self) -> tuple[dict, set[str]]:
        data, sections = self.form.api_data()
        more = [row.api_data()[0] for row in self.documents.rows_to_send()]
        if any(more):
            data["documents"] = [*data.get("documents", []), *(d for d in more if d)]
            sections.add("documents")
        return data, sections

    def add_api_errors(self, errors) -> None:
        """VALIDATION_ERROR details onto the fields, document rows included; the rest at the top."""
        documents = self._document_forms()
        for error in errors:
            path = _strip_root(error.path, "kycData")
            target, name = self.form, None
            if len(path) >= 3 and path[0] == "documents" and isinstance(path[1], int):
                if path[1] < len(documents):
                    target = documents[path[1]]
                    name = target.field_for_path(("documents", 0, *path[2:]) if target is self.form else path[2:])
            else:
                name = self.form.field_for_path(path)
            if name is not None:
                target.add_error(name, error.message)
            else:
                self.top_errors.append(f"{error.field or 'Request'}: {error.message}")


class CustomerCreate:
    """The create form, with the KYC data (an individual) or the KYB data (a business) that
    may go in the same POST /customers. Only the part of the chosen type is checked and sent;
    the other keeps what was typed, should the type be switched back."""

    def __init__(self, data=None, files=None):
        self.form = CustomerCreateForm(data)
        self.kyc = KycEdit(data, files, prefix="kyc")
        self.kyb = KybEdit(data, files)
        self.top_errors: list[str] = []
        kind = data.get("customer_type") if data is not None else None
        self.data_part = {CustomerType.INDIVIDUAL: self.kyc, CustomerType.BUSINESS: self.kyb}.get(kind)

    def is_valid(self) -> bool:
        valid = all([self.form.is_valid(), self.data_part is None or self.data_part.is_valid()])
        if valid and self.data_part is self.kyc:
            # Unlike an update, a creation with KYC data must carry the national ID.
            kyc_data, _sections = self.kyc.api_data()
            if kyc_data and "nationalIdType" not in kyc_data:
                for name in NATIONAL_ID_FIELDS:
                    self.kyc.form.add_error(name, NATIONAL_ID_ON_CREATE)
                valid = False
        return valid

    def service_kwargs(self) -> dict:
        """The arguments of services.customer_create (a valid form's)."""
        data = self.form.cleaned_data
        individual = data["customer_type"] == CustomerType.INDIVIDUAL
        api_data, sections = self.data_part.api_data()
        return {
            "customer_type": data["customer_type"],
            "email": data["email"],
            "first_name": data["first_name"] if individual else "",
            "last_name": data["last_name"] if individual else "",
            "business_name": "" if individual else data["business_name"],
            "kyc_data": (api_data or None) if individual else None,
            "kyb_data": None if individual else (api_data or None),
            "sections": sections,
        }

    def add_api_errors(self, errors) -> None:
        """kycData/kybData paths onto their part; the top level onto the create form (its
        fields are the API's names in snake case); the rest at the top."""
        roots = {"kycData": self.kyc, "kybData": self.kyb}
        parts: dict[str, list] = {"kycData": [], "kybData": []}
        for error in errors:
            root = str(error.path[0]) if error.path else ""
            name = re.sub(r"([A-Z])", r"_\1", root).lower()
            if root in roots:
                parts[root].append(error)
            elif name in self.form.fields and len(error.path) == 1:
                self.form.add_error(name, error.message)
            else:
                self.top_errors.append(f"{error.field or 'Request'}: {error.message}")
        for root, part in roots.items():
            if parts[root]:
                part.add_api_errors(parts[root])
                self.top_errors += part.top_errors

    @property
    def open_part(self) -> str:
        """The data part to show unfolded: the chosen type's, once something was typed in it."""
        part = self.data_part
        if part is None:
            return ""
        rows = (row for formset in self._row_formsets() for row in formset.forms)
        if not (part.form.has_changed() or any(row.has_changed() for row in rows)):
            return ""
        return "kyc" if part is self.kyc else "kyb"

    @property
    def has_errors(self) -> bool:
        part = self.data_part
        return bool(
            self.form.errors
            or (part is not None and part.form.errors)
            or any(fs.total_error_count() for fs in self._row_formsets())
        )

    def _row_formsets(self):
        if self.data_part is self.kyc:
            return [self.kyc.documents]
        if self.data_part is self.kyb:
            return [self.kyb.persons, self.kyb.documents]
        return []
