"""The KYC/KYB editors answer the customer's open verification issues: they list them, mark
the fields they concern, ask first for what must be sent again, and send only that; against
the sandbox in-process (its stored customer is what reached it)."""

import base64
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from customers.forms.issues import documents_left_missing
from customers.models import Customer
from tests.marks import marked

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
IMAGE = "data:image/png;base64," + base64.b64encode(PNG).decode()
NATIONAL_ID = "123456789"
pytestmark = pytest.mark.django_db


def png(name):
    return SimpleUploadedFile(name, PNG, content_type="image/png")


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def reviewed(upstream, settings):
    """make(type, data) -> a customer the sandbox reviewed from `data`, in the mirror."""
    from customers.upserts import customers_upsert
    from upstream.client import get_client
    from upstream.mirrored import Source

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0

    def make(customer_type: str, data: dict | None) -> Customer:
        names = (
            {"firstName": "Ada", "lastName": "Lovelace", **({"kycData": data} if data is not None else {})}
            if customer_type == "INDIVIDUAL"
            else {"businessName": "Acme Ltd", **({"kybData": data} if data is not None else {})}
        )
        body = upstream.call("POST", "/customers", {"customerType": customer_type, "email": "c@example.com", **names})
        customers_upsert(items=[get_client().customers.get(customer_id=body["customerId"])], seen_by=Source.SYNC)
        return Customer.objects.get(customer_id=body["customerId"])

    return make


def kyc(*documents, **fields) -> dict:
    return {
        "nationalIdType": "ssn",
        "nationalIdNumber": NATIONAL_ID,
        "nationalIdIssuingCountry": "US",
        "documents": list(documents),
        **fields,
    }


def government_id(**images) -> dict:
    return {"type": "GOVERNMENT_ID", "subtype": "NATIONAL_ID", **images}


@pytest.fixture
def missing_back(reviewed):
    customer = reviewed("INDIVIDUAL", kyc(government_id(frontIdImage=IMAGE, proofOfAddressImage=IMAGE)))
    assert list(customer.issues.values_list("code", flat=True)) == ["DOCUMENT_MISSING_BACK"]
    return customer


def stored(customer: Customer) -> dict:
    from sandbox.models import Customer as SandboxCustomer

    row = SandboxCustomer.objects.get(id=customer.customer_id)
    return row.kyc_data or row.kyb_data or {}


def inputs_marked(html: str, kind: str = "asked") -> list[str]:
    """The names of the inputs whose field carries the mark ("asked" or "resend")."""
    names = []
    for chunk in html.split('<div class="field')[1:]:
        classes = chunk.split('"', 1)[0].split()
        if kind in classes:
            names.append(re.search(r'name="([^"]+)"', chunk).group(1))
    return names


def edit_url(customer: Customer) -> str:
    name = "customers-edit-kyc" if customer.customer_type == "INDIVIDUAL" else "customers-edit-kyb"
    return reverse(name, args=[customer.customer_id])


# --- What the form shows ----------------------------------------------------------------------


def test_the_form_lists_the_issue_marks_the_back_and_folds_the_rest(reviewer, missing_back):
    html = reviewer.get(edit_url(missing_back)).content.decode()

    assert '<span title="DOCUMENT_MISSING_BACK">Back of ID missing</span>' in html
    assert "The back of the government ID is missing." in html  # the API's own message
    assert inputs_marked(html) == ["back_image"]
    assert "Asked for: " in html and "⚑" in html  # a marker and words, not colour alone
    assert inputs_marked(html, "resend") == ["document_type", "front_image", "proof_of_address_image"]
    # What the issue asks for comes first; the sections it does not concern wait folded.
    documents = html.index('id="section-documents"')
    folded = html.index('<details class="other-sections">')
    assert documents < folded < html.index('id="section-identity"') and folded < html.index('id="section-national_id"')
    # The document type is preset to what the review asks for; the hosted form is offered.
    assert '<option value="GOVERNMENT_ID" selected>' in html
    assert "Add only what is missing on the hosted form" in html


def test_what_is_on_file_comes_from_the_mirror_and_the_audit(reviewer, missing_back):
    reviewer.post(edit_url(missing_back), marked({"legal_first_name": "Ada"}))  # not the documents
    Customer.objects.filter(pk=missing_back.pk).update(name="Ada L. (mirror)", email="ada@mirror.example")

    html = reviewer.get(edit_url(missing_back)).content.decode()

    assert "Ada L. (mirror)" in html and "ada@mirror.example" in html
    assert 'title="UNDER_REVIEW">Under review</span>' in html
    assert "identity — compliance-user" in html  # sent from here: the section, never its values
    assert "does not return the KYC data it holds" in html


@pytest.mark.parametrize(
    ("documents", "codes", "asked"),
    [
        (
            [],
            ["DOCUMENT_MISSING", "PROOF_OF_ADDRESS_MISSING"],
            ["document_type", "document_subtype", "front_image", "back_image", "proof_of_address_image"],
        ),
        ([government_id(backIdImage=IMAGE, proofOfAddressImage=IMAGE)], ["DOCUMENT_MISSING_FRONT"], ["front_image"]),
        (
            [government_id(frontIdImage=IMAGE, backIdImage=IMAGE)],
            ["PROOF_OF_ADDRESS_MISSING"],
            ["proof_of_address_image"],
        ),
    ],
)
def test_each_document_issue_marks_its_fields(reviewer, reviewed, documents, codes, asked):
    customer = reviewed("INDIVIDUAL", kyc(*documents))
    assert sorted(customer.issues.values_list("code", flat=True)) == sorted(codes)

    html = reviewer.get(edit_url(customer)).content.decode()

    for code in codes:
        assert f'<span title="{code}">' in html
    assert inputs_marked(html) == asked


def test_a_sanctioned_country_marks_the_nationality_of_a_closed_profile(reviewer, reviewed):
    customer = reviewed("INDIVIDUAL", kyc(nationality="KP"))
    assert customer.status == "REJECTED"

    html = reviewer.get(edit_url(customer)).content.decode()

    assert '<span title="SANCTIONED_COUNTRY">Sanctioned country</span>' in html
    assert inputs_marked(html) == ["nationality", "national_id_issuing_country"]
    assert "the API accepts changes only while a customer is created or needs additional information" in html
    assert "hosted form" not in html.split('id="h-open-issues"')[1].split("</section>")[0]


def test_the_kyb_form_asks_for_a_control_person_and_a_business_document(reviewer, reviewed):
    customer = reviewed("BUSINESS", {"businessInfo": {"legalBusinessName": "Acme Ltd", "registrationCountry": "GB"}})
    assert sorted(customer.issues.values_list("code", flat=True)) == [
        "BUSINESS_DOCUMENT_MISSING",
        "CONTROL_PERSON_MISSING",
    ]

    html = reviewer.get(edit_url(customer)).content.decode()

    assert '<span title="CONTROL_PERSON_MISSING">Control person missing</span>' in html
    assert '<span title="BUSINESS_DOCUMENT_MISSING">Company document missing</span>' in html
    assert inputs_marked(html) == ["persons-0-is_control_person", "documents-0-type", "documents-0-document_image"]
    folded = html.index('<details class="other-sections">')
    assert html.index('id="section-persons"') < folded < html.index('id="section-business"')
    assert "enter every associated person" in html


def test_without_issues_nothing_is_folded_or_marked(reviewer, reviewed):
    customer = reviewed("INDIVIDUAL", None)
    html = reviewer.get(edit_url(customer)).content.decode()
    assert "other-sections" not in html and inputs_marked(html) == [] and inputs_marked(html, "resend") == []
    assert "No open verification issues" in html


# --- What is sent -----------------------------------------------------------------------------


def test_answering_the_missing_back_sends_only_the_documents(reviewer, missing_back):
    response = reviewer.post(
        edit_url(missing_back),
        marked(
            {
                "document_type": "GOVERNMENT_ID",
                "document_subtype": "NATIONAL_ID",
                "front_image": png("front.png"),
                "back_image": png("back.png"),
                "proof_of_address_image": png("bill.png"),
            }
        ),
        follow=True,
    )

    assert "KYC update sent (documents). The customer is now Under review." in response.content.decode()
    data = stored(missing_back)
    assert data["documents"] == [government_id(frontIdImage=IMAGE, backIdImage=IMAGE, proofOfAddressImage=IMAGE)]
    assert data["nationalIdNumber"] == NATIONAL_ID  # not sent, kept by the merge
    assert documents_left_missing(data["documents"]) == []


def test_a_passport_answers_without_a_back_and_the_review_passes(reviewer, missing_back, upstream):
    response = reviewer.post(
        edit_url(missing_back),
        marked(
            {
                "document_type": "GOVERNMENT_ID",
                "document_subtype": "PASSPORT",
                "front_image": png("passport.png"),
                "proof_of_address_image": png("bill.png"),
            }
        ),
    )
    assert response.status_code == 302
    # The set the form let through is one the sandbox's review accepts.
    assert upstream.call("GET", f"/customer/{missing_back.customer_id}")["customerStatus"] == "ACTIVE"


def test_only_the_back_is_refused_before_it_wipes_the_documents_on_file(reviewer, missing_back, upstream):
    before = stored(missing_back)

    response = reviewer.post(
        edit_url(missing_back), marked({"document_type": "GOVERNMENT_ID", "back_image": png("back.png")})
    )

    html = response.content.decode()
    assert "Nothing was changed." in html
    assert "the review would find again: Front of ID missing, Proof of address missing" in html
    assert response.context["form"].errors["front_image"] == ["Upload this too, or the review finds it missing again."]
    assert f'name="back_image_kept" value="{IMAGE}"' in html  # the upload is kept
    assert stored(missing_back) == before
    missing_back.refresh_from_db()
    assert missing_back.status == "NEEDS_ADDITIONAL_INFORMATION"


def test_the_preset_document_type_alone_is_not_sent(reviewer, missing_back):
    before = stored(missing_back)["documents"]
    reviewer.post(edit_url(missing_back), marked({"document_type": "GOVERNMENT_ID", "legal_last_name": "Byron"}))
    data = stored(missing_back)
    assert data["legalLastName"] == "Byron" and data["documents"] == before


def test_a_person_list_without_a_control_person_is_refused(reviewer, reviewed):
    customer = reviewed("BUSINESS", {"businessInfo": {"legalBusinessName": "Acme Ltd"}})
    management = {"persons-TOTAL_FORMS": "1", "persons-INITIAL_FORMS": "0"}
    management |= {"documents-TOTAL_FORMS": "1", "documents-INITIAL_FORMS": "0"}
    person = {"persons-0-legal_first_name": "Ann", "persons-0-legal_last_name": "Owner"}

    response = reviewer.post(edit_url(customer), marked({**management, **person, "documents-0-type": "OTHER"}))

    edit = response.context["edit"]
    assert edit.persons.forms[0].errors["is_control_person"] == [
        "Tick “Control person” for someone who directs the business."
    ]
    assert edit.documents.forms[0].errors["document_image"] == ["Upload the document's file: the review asks for one."]
    assert "associatedPersons" not in stored(customer)

    reviewer.post(
        edit_url(customer),
        marked(
            {
                **management,
                **person,
                "persons-0-is_control_person": "on",
                "documents-0-type": "ARTICLES_OF_INCORPORATION",
                "documents-0-document_image": png("articles.png"),
            }
        ),
    )
    data = stored(customer)
    assert data["associatedPersons"][0]["isControlPerson"] is True
    assert data["businessDocuments"] == [{"type": "ARTICLES_OF_INCORPORATION", "documentImage": IMAGE}]
    assert data["businessInfo"] == {"legalBusinessName": "Acme Ltd"}  # not sent, kept


# --- The national ID and failures -------------------------------------------------------------


def test_the_national_id_is_never_in_the_page_and_survives_an_error(reviewer, missing_back):
    triple = {"national_id_type": "ssn", "national_id_number": "987654321", "national_id_issuing_country": "US"}

    html = reviewer.post(edit_url(missing_back), marked({**triple, "phone_number": "0123"})).content.decode()

    assert "987654321" not in html and "•••• 4321" in html
    kept = re.search(r'name="national_id_number_kept" value="([^"]+)"', html).group(1)
    response = reviewer.post(
        edit_url(missing_back),
        marked({"national_id_type": "ssn", "national_id_issuing_country": "US", "national_id_number_kept": kept}),
    )
    assert response.status_code == 302
    assert stored(missing_back)["nationalIdNumber"] == "987654321"
    assert "987654321" not in reviewer.get(edit_url(missing_back)).content.decode()


def test_a_tampered_kept_national_id_counts_as_not_typed(reviewer, missing_back):
    response = reviewer.post(
        edit_url(missing_back),
        marked({"national_id_type": "ssn", "national_id_issuing_country": "US", "national_id_number_kept": "forged"}),
    )
    assert "go together" in response.context["form"].errors["national_id_number"][0]
    assert stored(missing_back)["nationalIdNumber"] == NATIONAL_ID


def test_an_upstream_failure_keeps_everything_typed(reviewer, missing_back, faulty_upstream):
    before = stored(missing_back)
    faulty_upstream.fail("500")

    response = reviewer.post(
        edit_url(missing_back),
        marked(
            {
                "legal_first_name": "Augusta",
                "phone_number": "+12025550123",
                "national_id_type": "ssn",
                "national_id_number": "987654321",
                "national_id_issuing_country": "US",
                "document_type": "GOVERNMENT_ID",
                "document_subtype": "NATIONAL_ID",
                "front_image": png("front.png"),
                "back_image": png("back.png"),
                "proof_of_address_image": png("bill.png"),
            }
        ),
    )

    html = response.content.decode()
    assert response.status_code == 200 and 'role="alert"' in html
    assert 'value="Augusta"' in html and 'value="+12025550123"' in html
    for name in ("front_image", "back_image", "proof_of_address_image"):
        assert f'name="{name}_kept" value="{IMAGE}"' in html
    assert '<option value="NATIONAL_ID" selected>' in html
    assert "987654321" not in html and 'name="national_id_number_kept"' in html
    # Typed values of folded sections open them.
    assert '<details class="other-sections" open>' in html
    assert stored(missing_back) == before


# --- What the API merges and replaces (docs/kyc-updates.md) -----------------------------------


def test_the_api_merges_objects_and_replaces_lists(missing_back, reviewed, upstream):
    path = f"/customers/{missing_back.customer_id}"
    upstream.call("PATCH", path, {"kycData": {"documents": [government_id(backIdImage=IMAGE)]}})
    data = stored(missing_back)
    # The list is replaced whole: the front and the proof of address on file are gone.
    assert data["documents"] == [government_id(backIdImage=IMAGE)]
    assert documents_left_missing(data["documents"]) == ["DOCUMENT_MISSING_FRONT", "PROOF_OF_ADDRESS_MISSING"]
    assert data["nationalIdNumber"] == NATIONAL_ID  # fields not sent are kept

    business = reviewed(
        "BUSINESS", {"businessInfo": {"legalBusinessName": "Acme Ltd", "otherLinks": ["https://a.example"]}}
    )
    upstream.call(
        "PATCH",
        f"/customers/{business.customer_id}",
        {"kybData": {"businessInfo": {"dbaName": "Acme", "otherLinks": ["https://b.example"]}}},
    )
    info = stored(business)["businessInfo"]
    assert info == {"legalBusinessName": "Acme Ltd", "dbaName": "Acme", "otherLinks": ["https://b.example"]}
