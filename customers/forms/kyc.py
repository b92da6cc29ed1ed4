"""The KYC editor: the person's data, the national ID and identity documents."""

from django import forms

from core import labels
from core.forms import ApiErrorsMixin

from .. import choices
from .api_form import (
    NATIONAL_ID_FIELDS,
    ApiForm,
    check_document_dates,
    check_document_type,
    check_national_id_triple,
    paths,
)
from .fields import (
    DocumentField,
    MaskedIdInput,
    PastDateField,
    PhoneField,
    choice_field,
    country_field,
    text_field,
    yes_no_field,
)
from .issues import DOCUMENT_ISSUES, DOCUMENT_SET, KYC_ASKS, documents_left_missing, mark
from .rows import RowFormSet, row_formset, rows_filled, rows_valid

# While a document issue is open, the form's document is preset to what the review asks for;
# a document holding only this is not sent.
PRESET_DOCUMENT = {"type": "GOVERNMENT_ID"}
# Where the form's first document takes what a review would find missing.
MISSING_FIELD = {
    "DOCUMENT_MISSING": "document_type",
    "DOCUMENT_MISSING_FRONT": "front_image",
    "DOCUMENT_MISSING_BACK": "back_image",
    "PROOF_OF_ADDRESS_MISSING": "proof_of_address_image",
}


class IdentityDocumentForm(ApiForm):
    """One identity document of an individual, with its images and proof of address.

    KycForm holds the first document itself (a KYC update with one document needs no rows);
    each further one is a row of IdentityDocumentFormSet (see KycEdit).
    """

    SECTIONS = {"documents": "Identity document and proof of address"}

    document_type = choice_field("Document type", choices.DOCUMENT_TYPES)
    document_subtype = choice_field("Document kind", choices.DOCUMENT_SUBTYPES)
    document_country = country_field("Issued by")
    document_number = text_field("Document number", max_length=64, autocomplete="off")
    document_issued = forms.DateField(label="Issued on", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    document_expires = forms.DateField(
        label="Expires on", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    front_image = DocumentField("Front of the ID")
    back_image = DocumentField("Back of the ID", help_text="Not needed for a passport. PNG, JPEG or PDF, ≤ 10 MB.")
    proof_of_address_image = DocumentField(
        "Proof of address", help_text="Utility bill or bank statement, last 3 months. PNG, JPEG or PDF, ≤ 10 MB."
    )
    document_description = text_field("Description")

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
        check_document_dates(self, "document_issued", "document_expires")
        # The API reviews images of a GOVERNMENT_ID: say so rather than guess.
        message = "Choose the document type of these images (usually Government ID)."
        check_document_type(self, "document_type", ["front_image", "back_image"], message)
        return data


class KycForm(IdentityDocumentForm):
    """An individual's KYC data; its document fields (inherited) are the first document."""

    SECTIONS = {
        "identity": "Identity",
        "national_id": "National ID",
        "profile": "Occupation, funds and purpose",
        "documents": "Identity document and proof of address",
    }

    legal_first_name = text_field("Legal first name", autocomplete="off")
    legal_middle_name = text_field("Legal middle name", autocomplete="off")
    legal_last_name = text_field("Legal last name", autocomplete="off")
    date_of_birth = PastDateField(label="Date of birth", required=False)
    phone_number = PhoneField(label="Phone number")
    nationality = country_field("Nationality")
    national_id_type = choice_field("ID type", choices.NATIONAL_ID_TYPES)
    national_id_number = forms.CharField(
        label="ID number",
        max_length=64,
        required=False,
        widget=MaskedIdInput(),
        help_text="Never shown, not even here. Leave blank to keep the number on file; type, number and "
        "country go together.",
    )
    national_id_issuing_country = country_field("Issuing country")
    employment_status = choice_field("Employment status", choices.EMPLOYMENT_STATUSES)
    most_recent_occupation = text_field("Most recent occupation", max_length=100, help_text="Occupation code.")
    source_of_funds = choice_field("Source of funds", choices.KYC_SOURCES_OF_FUNDS)
    account_purpose = choice_field("Account purpose", choices.KYC_ACCOUNT_PURPOSES)
    account_purpose_other = text_field("Account purpose, other", help_text="When the purpose is Other.")
    expected_monthly_payments_usd = choice_field("Expected monthly payments", choices.EXPECTED_MONTHLY_PAYMENTS_USD)
    is_intermediary = yes_no_field("Acts for someone else (intermediary)")

    PATHS = {
        **paths(
            "identity",
            "legal_first_name",
            "legal_middle_name",
            "legal_last_name",
            "date_of_birth",
            "phone_number",
            "nationality",
        ),
        **paths("national_id", *NATIONAL_ID_FIELDS),
        **paths(
            "profile",
            "employment_status",
            "most_recent_occupation",
            "source_of_funds",
            "account_purpose",
            "account_purpose_other",
            "expected_monthly_payments_usd",
            "is_intermediary",
        ),
        # The first document: documents[0].
        **{name: (("documents", 0, *path), section) for name, (path, section) in IdentityDocumentForm.PATHS.items()},
    }
    field_order = list(PATHS)

    def clean(self):
        data = super().clean()
        check_national_id_triple(self, NATIONAL_ID_FIELDS)
        return data


IdentityDocumentFormSet = forms.formset_factory(
    IdentityDocumentForm, formset=RowFormSet, extra=0, can_delete=True, max_num=20, absolute_max=20
)


class KycEdit(ApiErrorsMixin):
    """The KYC editor: the KYC form (holding the first identity document) and further
    identity documents as rows. Documents replace on the API: all of them are sent together.

    With `issues` (the customer's open verification issues), the fields they concern are
    marked; while a document issue is open the document type is preset to the government ID
    the review asks for, and documents are sent only as a set the review accepts (a set that
    replaced those on file and still lacked an image would lose the ones on file).
    """

    def __init__(self, data=None, files=None, *, prefix=None, issues=()):
        self.issues = list(issues)
        codes = {issue.code for issue in self.issues}
        self.documents_asked = bool(codes & DOCUMENT_ISSUES)
        initial = {"document_type": PRESET_DOCUMENT["type"]} if self.documents_asked else None
        self.form = KycForm(data, files, prefix=prefix, initial=initial)
        self.documents = row_formset(IdentityDocumentFormSet, data, files, "kyc_documents")
        self.top_errors: list[str] = []
        for issue in self.issues:
            for name in KYC_ASKS.get(issue.code, ()):
                mark(self.form, name, asked=[issue])
        if self.documents_asked:
            for name in DOCUMENT_SET:
                mark(self.form, name, resend=True)

    @property
    def answers(self) -> bool:
        """Some open issue concerns fields of this form: those come first, the rest folded."""
        return any(section.concerned for section in self.form.sections_with_fields())

    @property
    def others_open(self) -> bool:
        """A folded section holds something typed or refused: it opens to show it."""
        folded = [section for section in self.form.sections_with_fields() if not section.concerned]
        rows = any(section.key == "documents" for section in folded) and rows_filled(self.documents)
        return rows or any(section.filled for section in folded)

    def is_valid(self) -> bool:
        valid = all([self.form.is_valid(), rows_valid(self.documents)])
        return valid and (not self.documents_asked or self._documents_complete())

    def _first_document(self) -> dict:
        """The form's own document as sent: nothing when it holds only the preset type."""
        document = (self.form.api_data()[0].get("documents") or [{}])[0]
        return {} if self.documents_asked and document == PRESET_DOCUMENT else document

    def _document_forms(self) -> list[ApiForm]:
        """The forms of the documents sent, in the request's order: documents[i] is the i-th."""
        first = [self.form] if self._first_document() else []
        return first + [row for row in self.documents.rows_to_send() if row.api_data()[0]]

    def api_data(self) -> tuple[dict, set[str]]:
        data, sections = self.form.api_data()
        first = self._first_document()
        documents = [first] if first else []
        documents += [d for d in (row.api_data()[0] for row in self.documents.rows_to_send()) if d]
        data.pop("documents", None)
        sections.discard("documents")
        if documents:
            data["documents"] = documents
            sections.add("documents")
        return data, sections

    def _documents_complete(self) -> bool:
        """Documents sent while a document issue is open must leave nothing missing."""
        documents = self.api_data()[0].get("documents")
        missing = documents_left_missing(documents) if documents else []
        if not missing:
            return True
        words = ", ".join(labels.label(labels.ISSUE, code) for code in missing)
        self.top_errors.append(
            "The documents sent replace all those on file (which the API does not show us), so as they are "
            f"the review would find again: {words}. Upload what is marked “Needed again” too, or add only the "
            "missing image on the hosted form, which keeps the documents on file."
        )
        if self._first_document().get("type") == "GOVERNMENT_ID" or "DOCUMENT_MISSING" in missing:
            for code in missing:
                name = MISSING_FIELD[code]
                if name not in self.form.errors:
                    self.form.add_error(name, "Upload this too, or the review finds it missing again.")
        return False

    def api_parts(self) -> dict:
        """Where the API's errors go (core.forms.ApiErrorsMixin): documents[i] is the i-th
        document sent, the form's own first (whose fields it names "documents.0.…") when sent."""
        return {"kycData": self.form, "kycData.documents": self._document_forms()}

    def add_top_error(self, message: str) -> None:
        self.top_errors.append(message)
