"""The KYC editor's identity documents: the form's own first document, and more as rows."""

import base64
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from customers.models import Customer
from tests.faulty_api import api_error
from tests.marks import marked

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
JPEG = b"\xff\xd8\xff" + b"\x00" * 64
pytestmark = pytest.mark.django_db


def upload(name, content=PNG):
    return SimpleUploadedFile(name, content, content_type="image/png")


def data_uri(content=PNG, mime="image/png"):
    return f"data:{mime};base64," + base64.b64encode(content).decode()


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def individual(upstream):
    """A CREATED individual, in the sandbox and the mirror."""
    from customers.upserts import customers_upsert
    from upstream.client import get_client
    from upstream.mirrored import Source

    answer = get_client().customers.create(
        customer_type="INDIVIDUAL", email="ada@example.com", first_name="Ada", last_name="Lovelace"
    )
    customers_upsert(items=[answer], seen_by=Source.SYNC)
    return Customer.objects.get(customer_id=answer.customer_id)


def rows(n: int) -> dict:
    return {"kyc_documents-TOTAL_FORMS": str(n), "kyc_documents-INITIAL_FORMS": "0"}


def test_the_page_offers_another_document(reviewer, individual):
    url = reverse("customers-edit-kyc", args=[individual.customer_id])
    html = reviewer.get(url).content.decode()
    add = reverse("customers-add-row", args=[individual.customer_id, "kyc_documents"])
    assert f'hx-get="{add}"' in html and 'name="add_row" value="kyc_documents"' in html
    html = reviewer.get(add, {"kyc_documents-TOTAL_FORMS": "0"}).content.decode()
    assert "Identity document 2" in html and 'name="kyc_documents-0-back_image"' in html
    assert 'for="id_kyc_documents-0-back_image"' in html  # every input labelled


def test_two_documents_are_sent_in_order(reviewer, individual):
    from sandbox.models import Customer as SandboxCustomer

    response = reviewer.post(
        reverse("customers-edit-kyc", args=[individual.customer_id]),
        marked(
            {
                **rows(2),
                "legal_first_name": "Ada",
                "document_type": "GOVERNMENT_ID",
                "document_subtype": "NATIONAL_ID",
                "front_image": upload("id-front.png"),
                "back_image": upload("id-back.png"),
                "kyc_documents-0-document_type": "GOVERNMENT_ID",
                "kyc_documents-0-document_subtype": "PASSPORT",
                "kyc_documents-0-front_image": upload("passport.jpg", JPEG),
                # A removed row is not sent.
                "kyc_documents-1-document_type": "OTHER",
                "kyc_documents-1-DELETE": "on",
            }
        ),
        follow=True,
    )
    assert "KYC update sent (documents, identity)." in response.content.decode()
    documents = SandboxCustomer.objects.get(id=individual.customer_id).kyc_data["documents"]
    assert [d["subtype"] for d in documents] == ["NATIONAL_ID", "PASSPORT"]
    assert documents[1]["frontIdImage"] == data_uri(JPEG, "image/jpeg")


def test_rows_alone_are_the_documents(reviewer, individual, faulty_upstream):
    """Without a first document in the form, row 0 is documents[0]: the API's errors follow."""
    faulty_upstream.answer(
        api_error(
            400,
            "VALIDATION_ERROR",
            "Invalid",
            details=[{"path": ["kycData", "documents", 0, "subtype"], "message": "Wrong kind."}],
        )
    )
    response = reviewer.post(
        reverse("customers-edit-kyc", args=[individual.customer_id]),
        marked(
            {
                **rows(1),
                "kyc_documents-0-document_type": "GOVERNMENT_ID",
                "kyc_documents-0-document_subtype": "PASSPORT",
            }
        ),
    )
    (patch,) = faulty_upstream.sent("PATCH")
    assert json.loads(patch.content)["kycData"] == {"documents": [{"type": "GOVERNMENT_ID", "subtype": "PASSPORT"}]}
    edit = response.context["edit"]
    assert edit.documents.forms[0].errors["document_subtype"] == ["Wrong kind."]
    assert "document_subtype" not in edit.form.errors


def test_a_row_is_checked_like_the_first_document(reviewer, individual, faulty_upstream):
    faulty_upstream.fail("down")
    response = reviewer.post(
        reverse("customers-edit-kyc", args=[individual.customer_id]),
        marked(
            {
                **rows(1),
                "kyc_documents-0-front_image": upload("front.png"),
                "kyc_documents-0-document_issued": "2020-01-02",
                "kyc_documents-0-document_expires": "2020-01-01",
            }
        ),
    )
    row = response.context["edit"].documents.forms[0]
    assert row.errors["document_type"] == ["Choose the document type of these images (usually Government ID)."]
    assert row.errors["document_expires"] == ["The expiry date must come after the issue date."]
    html = response.content.decode()
    assert "Check the fields marked below; nothing was sent." in html
    assert f'name="kyc_documents-0-front_image_kept" value="{data_uri()}"' in html
    assert faulty_upstream.requests == [], "the API was called"


def test_add_a_document_without_javascript(reviewer, individual):
    response = reviewer.post(
        reverse("customers-edit-kyc", args=[individual.customer_id]),
        marked({**rows(0), "legal_first_name": "Ada", "add_row": "kyc_documents"}),
    )
    assert len(response.context["edit"].documents.forms) == 1
    assert 'value="Ada"' in response.content.decode()
