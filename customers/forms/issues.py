"""What the open verification issues ask of the KYC/KYB editors.

Each issue code the review gives (docs/decisions/sandbox-verification.md) concerns some fields
of the forms: the editor lists the issues it answers, marks those fields ("Asked for") and asks
only for what must be sent again. A PATCH replaces arrays whole and the API never returns what
is on file (docs/kyc-updates.md): an issue about one image of the identity document still needs
the whole list of documents again, so the images the list must hold are marked "Needed again"
and checked before anything is sent (`documents_left_missing`).
"""

from dataclasses import dataclass

from core import labels

from .. import choices

# KYC: the fields of the form's first document (and the person's own) each code concerns.
KYC_ASKS = {
    "DOCUMENT_MISSING": ("document_type", "document_subtype", "front_image", "back_image"),
    "DOCUMENT_MISSING_FRONT": ("front_image",),
    "DOCUMENT_MISSING_BACK": ("back_image",),
    "PROOF_OF_ADDRESS_MISSING": ("proof_of_address_image",),
    "SANCTIONED_COUNTRY": ("nationality", "national_id_issuing_country"),
}
DOCUMENT_ISSUES = frozenset(
    {"DOCUMENT_MISSING", "DOCUMENT_MISSING_FRONT", "DOCUMENT_MISSING_BACK", "PROOF_OF_ADDRESS_MISSING"}
)
# What a list of identity documents must hold for the review to find nothing missing.
DOCUMENT_SET = ("document_type", "front_image", "back_image", "proof_of_address_image")
SINGLE_SIDED_SUBTYPES = frozenset({"PASSPORT"})

# KYB: (which part of the editor, the fields of its rows or form) each code concerns.
KYB_ASKS = {
    "CONTROL_PERSON_MISSING": ("persons", ("is_control_person",)),
    "BUSINESS_DOCUMENT_MISSING": ("documents", ("type", "document_image")),
    "SANCTIONED_COUNTRY": ("form", ("registration_country",)),
}


@dataclass(frozen=True)
class OpenIssue:
    """An open verification issue as the editors show it: staff words, the code on hover."""

    code: str
    message: str

    @property
    def label(self) -> str:
        return labels.label(labels.ISSUE, self.code)

    @property
    def explanation(self) -> tuple[str, str] | None:
        return choices.ISSUE_EXPLANATIONS.get(self.code)


def open_issues(issues) -> list[OpenIssue]:
    """The mirror's VerificationIssue rows (or anything with code and message), in order."""
    return [OpenIssue(code=issue.code, message=issue.message) for issue in issues]


def mark(form, name: str, *, asked: list[OpenIssue] = (), resend: bool = False) -> None:
    """Mark a field of `form` for the template (`_field.html`): asked for by these issues, or
    needed again because the list it belongs to is replaced whole."""
    field = form[name]  # forms cache their bound fields: the template renders this one
    field.asked = [*getattr(field, "asked", []), *asked]
    field.resend = resend and not field.asked


def documents_left_missing(documents: list[dict]) -> list[str]:
    """The document issue codes a review of exactly these documents (kycData.documents) finds:
    one complete government ID (front, and back unless a passport) and a proof of address on
    any document, as docs/decisions/sandbox-verification.md states."""
    ids = [doc for doc in documents if doc.get("type") == "GOVERNMENT_ID"]
    missing = []
    if not ids:
        missing.append("DOCUMENT_MISSING")
    else:
        gaps = []
        for doc in ids:
            gap = [] if doc.get("frontIdImage") else ["DOCUMENT_MISSING_FRONT"]
            if not doc.get("backIdImage") and doc.get("subtype") not in SINGLE_SIDED_SUBTYPES:
                gap.append("DOCUMENT_MISSING_BACK")
            gaps.append(gap)
        missing.extend(gaps[0] if all(gaps) else [])  # one complete ID suffices, else the first's gaps
    if not any(doc.get("proofOfAddressImage") for doc in documents):
        missing.append("PROOF_OF_ADDRESS_MISSING")
    return missing
