"""The KYB editor: the business, its associated persons and its documents."""

from decimal import Decimal

from django import forms

from core.forms import ApiErrorsMixin

from .. import choices
from .api_form import NATIONAL_ID_FIELDS, ApiForm, check_document_type, check_national_id_triple, paths
from .fields import (
    DocumentField,
    MaskedIdInput,
    PastDateField,
    PhoneField,
    StreetField,
    choice_field,
    country_field,
    text_field,
    yes_no_field,
)
from .issues import KYB_ASKS, mark
from .rows import RowFormSet, row_formset, rows_filled, rows_valid

PERSONS, DOCUMENTS = "associatedPersons", "businessDocuments"


class PersonForm(ApiForm):
    """One associated person of a business (a row of the KYB form's formset)."""

    SECTIONS = {"person": "Person", "address": "Address", "national_id": "National ID", "documents": "Document"}

    legal_first_name = text_field("Legal first name", autocomplete="off")
    legal_middle_name = text_field("Legal middle name", autocomplete="off")
    legal_last_name = text_field("Legal last name", autocomplete="off")
    email = forms.EmailField(label="E-mail", required=False, max_length=254)
    phone_number = PhoneField(label="Phone number")
    date_of_birth = PastDateField(label="Date of birth", required=False)
    nationality = country_field("Nationality")
    title = text_field("Title", max_length=100, help_text="Role in the business, e.g. CEO.")
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
    city = text_field("City", max_length=100)
    state_region_province = text_field("State, region or province", max_length=100)
    postal_code = text_field("Postal code", max_length=20)
    country_code = country_field("Country")
    locale = text_field("Locale", max_length=20, help_text="Language and region, e.g. en-US.")
    national_id_type = choice_field("ID type", choices.NATIONAL_ID_TYPES)
    national_id_number = forms.CharField(label="ID number", max_length=64, required=False, widget=MaskedIdInput())
    national_id_issuing_country = country_field("Issuing country")
    document_type = choice_field("Document type", choices.DOCUMENT_TYPES)
    document_subtype = choice_field("Document kind", choices.DOCUMENT_SUBTYPES)
    front_image = DocumentField("Front of the ID")
    back_image = DocumentField("Back of the ID")
    proof_of_address_image = DocumentField("Proof of address")

    PATHS = {
        **paths(
            "person",
            "legal_first_name",
            "legal_middle_name",
            "legal_last_name",
            "email",
            "phone_number",
            "date_of_birth",
            "nationality",
            "title",
            "ownership_percentage",
            "is_control_person",
            "is_signer",
            "is_director",
        ),
        **paths(
            "address",
            "street_line1",
            "street_line2",
            "city",
            "state_region_province",
            "postal_code",
            "country_code",
            "locale",
            under=("address",),
        ),
        **paths("national_id", *NATIONAL_ID_FIELDS),
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
        check_national_id_triple(self, NATIONAL_ID_FIELDS)
        return data


class BusinessDocumentForm(ApiForm):
    SECTIONS = {"document": "Business document"}

    type = choice_field("Document type", choices.BUSINESS_DOCUMENT_TYPES)
    document_image = DocumentField("File")
    description = text_field("Description")

    PATHS = paths("document", "type", "document_image", "description")

    def clean(self):
        data = super().clean()
        check_document_type(self, "type", ["document_image"], "Choose what kind of document this is.")
        return data


class KybForm(ApiForm):
    SECTIONS = {
        "business": "Business",
        "funds": "Funds and purpose",
        "compliance": "Compliance",
    }

    legal_business_name = text_field("Legal business name")
    dba_name = text_field("Trading name (DBA)")
    business_type = choice_field("Legal form", choices.BUSINESS_TYPES)
    business_industries = text_field("Industry code", max_length=100)
    business_description = forms.CharField(
        label="What the business does", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    website = forms.URLField(label="Website", required=False, max_length=300, assume_scheme="https")
    other_links = forms.CharField(
        label="Other links", required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One address a line."
    )
    formation_date = PastDateField(label="Formation date", required=False)
    registration_country = country_field("Registration country")
    business_registration_number = text_field("Registration number", max_length=100)
    is_dao = yes_no_field("Is a DAO")
    source_of_funds = choice_field("Source of funds", choices.KYB_SOURCES_OF_FUNDS)
    source_of_funds_description = text_field("Source of funds, described")
    account_purpose = choice_field("Account purpose", choices.KYB_ACCOUNT_PURPOSES)
    account_purpose_other = text_field("Account purpose, other", help_text="When the purpose is Other.")
    expected_monthly_volume_usd = choice_field("Expected monthly volume", choices.EXPECTED_MONTHLY_VOLUMES_USD)
    estimated_annual_revenue_usd = choice_field("Estimated annual revenue", choices.ESTIMATED_ANNUAL_REVENUES_USD)
    conducts_money_services = yes_no_field("Conducts money services")
    conducts_money_services_description = text_field("Money services, described")
    conducts_money_services_through_service = yes_no_field("Money services through this service")
    operates_in_prohibited_countries = yes_no_field("Operates in prohibited countries")
    compliance_screening_description = text_field("Compliance screening, described")
    high_risk_activities = forms.MultipleChoiceField(
        label="High-risk activities",
        choices=choices.HIGH_RISK_ACTIVITIES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    high_risk_activities_explanation = text_field("High-risk activities, explained")

    PATHS = {
        **paths(
            "business",
            "legal_business_name",
            "dba_name",
            "business_type",
            "business_industries",
            "business_description",
            "website",
            "other_links",
            "formation_date",
            "registration_country",
            "is_dao",
            under=("businessInfo",),
        ),
        **paths("business", "business_registration_number"),
        **paths(
            "funds",
            "source_of_funds",
            "source_of_funds_description",
            "account_purpose",
            "account_purpose_other",
            "expected_monthly_volume_usd",
            "estimated_annual_revenue_usd",
        ),
        **paths(
            "compliance",
            "conducts_money_services",
            "conducts_money_services_description",
            "conducts_money_services_through_service",
            "operates_in_prohibited_countries",
            "compliance_screening_description",
            "high_risk_activities",
            "high_risk_activities_explanation",
        ),
    }

    def clean_other_links(self):
        return [line.strip() for line in self.cleaned_data["other_links"].splitlines() if line.strip()]


PersonFormSet = forms.formset_factory(
    PersonForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)


BusinessDocumentFormSet = forms.formset_factory(
    BusinessDocumentForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)


class KybEdit(ApiErrorsMixin):
    """The KYB editor: the business form, its persons and its documents, as one form.

    Arrays replace on the API: when any person (or document) row is filled, all the rows
    are sent, and they replace the ones on file.
    """

    def __init__(self, data=None, files=None, *, issues=()):
        self.issues = list(issues)
        self.form = KybForm(data, files, prefix="kyb")
        self.persons = row_formset(PersonFormSet, data, files, "persons")
        self.documents = row_formset(BusinessDocumentFormSet, data, files, "documents")
        self.top_errors: list[str] = []
        if data is None:
            self.persons.extra = 1
            self.documents.extra = 1
        # The open issues each list answers, and their marks on the fields.
        self.list_issues: dict[str, list] = {"persons": [], "documents": []}
        parts = {"form": [self.form], "persons": self.persons.forms, "documents": self.documents.forms}
        for issue in self.issues:
            part, names = KYB_ASKS.get(issue.code, ("form", ()))
            if part in self.list_issues:
                self.list_issues[part].append(issue)
            for form in parts[part]:
                for name in names:
                    mark(form, name, asked=[issue])
            if issue.code == "SANCTIONED_COUNTRY":
                for form in self.persons.forms:
                    mark(form, "nationality", asked=[issue])

    @property
    def answers(self) -> bool:
        """Some open issue concerns this form: what it asks for comes first, the rest folded."""
        concerned = any(section.concerned for section in self.form.sections_with_fields())
        return concerned or any(self.list_issues.values())

    @property
    def others_open(self) -> bool:
        """Something folded was typed or refused: the folded part opens to show it."""
        sections = [section for section in self.form.sections_with_fields() if not section.concerned]
        lists = [
            rows
            for key, rows in (("persons", self.persons), ("documents", self.documents))
            if not self.list_issues[key]
        ]
        return any(section.filled for section in sections) or any(rows_filled(rows) for rows in lists)

    def is_valid(self) -> bool:
        valid = all([self.form.is_valid(), rows_valid(self.persons), rows_valid(self.documents)])
        return valid and self._lists_answer_issues()

    def _lists_answer_issues(self) -> bool:
        """A list sent while an issue asks for it must answer the issue: it replaces the list on
        file, and the review would only ask again."""
        data = self.api_data()[0]
        persons = [f for f in self.persons.rows_to_send() if f.api_data()[0]]
        documents = [f for f in self.documents.rows_to_send() if f.api_data()[0]]
        answered = True
        if persons and self.list_issues["persons"] and not any(p.get("isControlPerson") for p in data[PERSONS]):
            persons[0].add_error("is_control_person", "Tick “Control person” for someone who directs the business.")
            answered = False
        if documents and self.list_issues["documents"] and not any(d.get("documentImage") for d in data[DOCUMENTS]):
            documents[0].add_error("document_image", "Upload the document's file: the review asks for one.")
            answered = False
        return answered

    def api_data(self) -> tuple[dict, set[str]]:
        data, sections = self.form.api_data()
        persons = [form.api_data()[0] for form in self.persons.rows_to_send()]
        if any(persons):
            data[PERSONS] = [p for p in persons if p]
            sections.add("associated_persons")
        documents = [form.api_data()[0] for form in self.documents.rows_to_send()]
        if any(documents):
            data[DOCUMENTS] = [d for d in documents if d]
            sections.add("business_documents")
        return data, sections

    def api_parts(self) -> dict:
        """Where the API's errors go (core.forms.ApiErrorsMixin): the rows sent, in order."""
        return {
            "kybData": self.form,
            f"kybData.{PERSONS}": [f for f in self.persons.rows_to_send() if f.api_data()[0]],
            f"kybData.{DOCUMENTS}": [f for f in self.documents.rows_to_send() if f.api_data()[0]],
        }

    def add_top_error(self, message: str) -> None:
        self.top_errors.append(message)
