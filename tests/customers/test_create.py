"""Creating a customer, with or without its KYC/KYB data in the same POST /customers, against
the sandbox in-process."""

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditEvent
from customers.models import Customer
from tests.faulty_api import api_error
from tests.marks import marked

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
URL = reverse("customers-create-customer")
pytestmark = pytest.mark.django_db


def png(name):
    return SimpleUploadedFile(name, PNG, content_type="image/png")


def data_uri():
    return "data:image/png;base64," + base64.b64encode(PNG).decode()


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


def management(kyc_documents=0, persons=0, documents=0) -> dict:
    """The management forms of the page's rows, as the browser sends them."""
    return {
        "kyc_documents-TOTAL_FORMS": str(kyc_documents),
        "kyc_documents-INITIAL_FORMS": "0",
        "persons-TOTAL_FORMS": str(persons),
        "persons-INITIAL_FORMS": "0",
        "documents-TOTAL_FORMS": str(documents),
        "documents-INITIAL_FORMS": "0",
    }


def individual(**extra) -> dict:
    return marked(
        {
            **management(),
            "customer_type": "INDIVIDUAL",
            "email": "grace@example.com",
            "first_name": "Grace",
            "last_name": "Hopper",
            **extra,
        }
    )


def national_id() -> dict:
    return {
        "kyc-national_id_type": "ssn",
        "kyc-national_id_number": "123456789",
        "kyc-national_id_issuing_country": "US",
    }


def test_the_page_renders_only_the_chosen_types_part_and_the_other_on_demand(reviewer):
    html = reviewer.get(URL).content.decode()
    # No type chosen: neither part, two empty slots that say where their part comes from.
    assert "KYC data of the individual (optional)" not in html and "KYB data of the business (optional)" not in html
    assert f'id="kyc-slot" class="data-slot" data-empty data-url="{URL}?customer_type=INDIVIDUAL"' in html
    assert f'id="kyb-slot" class="data-slot" data-empty data-url="{URL}?customer_type=BUSINESS"' in html
    assert 'enctype="multipart/form-data"' in html and 'name="choose_type"' in html

    business = reviewer.get(URL, {"customer_type": "BUSINESS"}).content.decode()
    assert "KYB data of the business (optional)" in business and "KYC data of the individual" not in business
    assert 'name="kyb-legal_business_name"' in business and 'name="persons-0-legal_first_name"' in business
    assert 'name="kyc-legal_first_name"' not in business
    assert 'value="BUSINESS" id="id_customer_type_1" required checked' in business
    # Rows of a customer that does not exist yet come from the create page's own URLs.
    assert f'hx-get="{reverse("customers-add-new-row")}?kind=persons"' in business
    assert len(business) < len(html) + len(slot_of(reviewer, "kyb-slot", "BUSINESS")) + 2000


def slot_of(client, target: str, kind: str) -> str:
    return client.get(
        URL, {"customer_type": kind}, headers={"HX-Request": "true", "HX-Target": target}
    ).content.decode()


def test_htmx_fetches_the_slot_of_the_chosen_type_alone(reviewer):
    kyc = slot_of(reviewer, "kyc-slot", "INDIVIDUAL")
    assert kyc.strip().startswith('<div id="kyc-slot" class="data-slot">')
    assert 'name="kyc-legal_first_name"' in kyc and "<html" not in kyc and 'name="email"' not in kyc
    kyb = slot_of(reviewer, "kyb-slot", "BUSINESS")
    assert 'name="kyb-legal_business_name"' in kyb and 'name="kyc-legal_first_name"' not in kyb


def test_without_script_choosing_the_type_brings_its_part_and_keeps_what_was_typed(reviewer, upstream):
    response = reviewer.post(
        URL,
        marked(
            {"customer_type": "INDIVIDUAL", "email": "grace@example.com", "first_name": "Grace", "choose_type": "1"}
        ),
    )
    html = response.content.decode()
    assert response.status_code == 200 and not Customer.objects.exists()
    assert "KYC data of the individual (optional)" in html and "KYB data of the business" not in html
    assert 'value="grace@example.com"' in html and 'value="Grace"' in html
    assert "Check the fields marked below" not in html  # nothing was checked yet


def test_a_refused_form_keeps_the_other_types_typed_part_hidden_but_there(reviewer):
    """Typed into the KYB part, then switched to an individual: the page that comes back keeps
    both, as the browser had them."""
    html = reviewer.post(
        URL, individual(first_name="", **{"kyb-legal_business_name": "Acme Ltd", **national_id()})
    ).content.decode()
    assert "Check the fields marked below" in html
    assert 'name="kyb-legal_business_name"' in html and 'value="Acme Ltd"' in html
    assert 'name="kyc-national_id_number_kept" value="' in html  # the ID number, kept sealed


def test_individual_with_kyc_goes_under_review_in_one_call(reviewer, upstream):
    from sandbox.models import Customer as SandboxCustomer

    response = reviewer.post(
        URL,
        individual(
            **national_id(),
            **{
                "kyc-legal_first_name": "Grace",
                "kyc-date_of_birth": "1906-12-09",
                "kyc-document_type": "GOVERNMENT_ID",
                "kyc-document_subtype": "NATIONAL_ID",
                "kyc-front_image": png("front.png"),
                "kyc-back_image": png("back.png"),
                "kyc-proof_of_address_image": png("bill.png"),
            },
        ),
        follow=True,
    )
    customer = Customer.objects.get(email="grace@example.com")
    assert response.redirect_chain[-1][0] == reverse("customers-view-customer", args=[customer.customer_id])
    html = response.content.decode()
    assert "Customer Grace Hopper created with documents, identity, national id: Under review." in html
    assert customer.status == "UNDER_REVIEW"
    assert 'id="customer-status" title="UNDER_REVIEW">Under review<' in html
    stored = SandboxCustomer.objects.get(id=customer.customer_id).kyc_data
    assert stored["nationalIdNumber"] == "123456789" and stored["documents"][0]["backIdImage"] == data_uri()
    event = AuditEvent.objects.get(action="customer.create")
    # Which sections were sent, never their values.
    assert event.details == {"type": "INDIVIDUAL", "sections": ["documents", "identity", "national_id"]}
    assert "123456789" not in str(event.details)


def test_business_with_kyb_data(reviewer, upstream):
    from sandbox.models import Customer as SandboxCustomer

    response = reviewer.post(
        URL,
        marked(
            {
                **management(documents=1),
                "customer_type": "BUSINESS",
                "email": "hello@acme.test",
                "business_name": "Acme Ltd",
                "kyb-legal_business_name": "Acme Ltd",
                "kyb-business_type": "LIMITED_LIABILITY_COMPANY",
                "kyb-registration_country": "GB",
                "documents-0-type": "ARTICLES_OF_INCORPORATION",
                "documents-0-document_image": png("articles.png"),
                # The KYC part of the page is left out for a business, even when filled.
                "kyc-legal_first_name": "Not sent",
            }
        ),
    )
    customer = Customer.objects.get(email="hello@acme.test")
    assert response["Location"] == reverse("customers-view-customer", args=[customer.customer_id])
    assert customer.status == "UNDER_REVIEW" and customer.customer_type == "BUSINESS"
    sandbox = SandboxCustomer.objects.get(id=customer.customer_id)
    assert sandbox.kyb_data["businessInfo"]["businessType"] == "LIMITED_LIABILITY_COMPANY"
    assert sandbox.kyb_data["businessDocuments"][0]["documentImage"] == data_uri()
    assert not sandbox.kyc_data
    assert AuditEvent.objects.get(action="customer.create").details == {
        "type": "BUSINESS",
        "sections": ["business", "business_documents"],
    }


def test_without_data_the_customer_is_created(reviewer, upstream):
    response = reviewer.post(URL, individual(), follow=True)
    customer = Customer.objects.get(email="grace@example.com")
    assert customer.status == "CREATED"
    assert "Customer Grace Hopper created: Created." in response.content.decode()
    assert AuditEvent.objects.get(action="customer.create").details == {"type": "INDIVIDUAL", "sections": []}


def test_without_any_row_management_form_it_still_creates(reviewer, upstream):
    """A plain form (a script, an old page) sends no rows: not an error."""
    reviewer.post(URL, marked(customer_type="BUSINESS", email="b@acme.test", business_name="B Ltd"))
    assert Customer.objects.get(email="b@acme.test").status == "CREATED"


def test_an_api_validation_error_lands_on_its_row_field_and_input_survives(reviewer, upstream):
    """On creation the API wants each associated person's national ID: its error paths
    (kybData.associatedPersons.0.nationalIdType...) land on that row's fields."""
    response = reviewer.post(
        URL,
        marked(
            {
                **management(persons=1, documents=0),
                "customer_type": "BUSINESS",
                "email": "hello@acme.test",
                "business_name": "Acme Ltd",
                "kyb-legal_business_name": "Acme Ltd",
                "persons-0-legal_first_name": "Ann",
                "persons-0-legal_last_name": "Owner",
                "persons-0-ownership_percentage": "60",
            }
        ),
    )
    assert response.status_code == 200
    row = response.context["create"].kyb.persons.forms[0]
    message = "nationalIdType, nationalIdNumber and nationalIdIssuingCountry must be sent together."
    assert row.errors["national_id_type"] == [message]
    assert row.errors["national_id_issuing_country"] == [message]
    html = response.content.decode()
    assert "Nothing was created." in html and "The Payments API refused some fields; see the messages below." in html
    assert 'value="Ann"' in html and 'value="Acme Ltd"' in html and 'value="60"' in html
    assert not Customer.objects.exists()
    assert AuditEvent.objects.get(action="customer.create").outcome == "failure"


def test_top_level_api_errors_land_on_the_create_form(reviewer, faulty_upstream):
    faulty_upstream.answer(
        api_error(
            400,
            "VALIDATION_ERROR",
            "Invalid",
            details=[
                {"path": ["email"], "message": "Already used."},
                {"path": ["kycData", "phoneNumber"], "message": "Not a mobile number."},
                {"path": ["kycData", "documents", 1, "frontIdImage"], "message": "Image unreadable."},
            ],
        )
    )
    response = reviewer.post(
        URL,
        individual(
            **national_id(),
            **management(kyc_documents=1),
            **{
                "kyc-phone_number": "+12025550123",
                "kyc-document_type": "GOVERNMENT_ID",
                "kyc-front_image": png("front.png"),
                "kyc_documents-0-document_type": "GOVERNMENT_ID",
                "kyc_documents-0-document_subtype": "PASSPORT",
                "kyc_documents-0-front_image": png("passport.png"),
            },
        ),
    )
    create = response.context["create"]
    assert create.form.errors["email"] == ["Already used."]
    assert create.kyc.form.errors["phone_number"] == ["Not a mobile number."]
    assert create.kyc.documents.forms[0].errors["front_image"] == ["Image unreadable."]
    assert f'name="kyc_documents-0-front_image_kept" value="{data_uri()}"' in response.content.decode()


def test_the_national_id_triple_is_checked_before_any_call(reviewer, faulty_upstream):
    faulty_upstream.fail("down")
    response = reviewer.post(URL, individual(**{"kyc-national_id_number": "123456789"}))
    errors = response.context["create"].kyc.form.errors
    assert "go together" in errors["national_id_type"][0]
    assert "go together" in errors["national_id_issuing_country"][0]
    # And on creation, KYC data needs the national ID at all.
    response = reviewer.post(URL, individual(**{"kyc-legal_first_name": "Grace"}))
    errors = response.context["create"].kyc.form.errors
    assert errors["national_id_type"] == [
        "KYC data sent with a new customer needs the national ID: its type, number and issuing country."
    ]
    assert 'value="Grace"' in response.content.decode()
    assert faulty_upstream.requests == [], "the API was called"


def test_add_rows_before_the_customer_exists(reviewer):
    url = reverse("customers-add-new-row")
    html = reviewer.get(url, {"kind": "kyc_documents", "kyc_documents-TOTAL_FORMS": "1"}).content.decode()
    assert 'name="kyc_documents-1-front_image"' in html and "Identity document 3" in html
    assert 'id="id_kyc_documents-TOTAL_FORMS"' in html and 'value="2"' in html
    assert f'hx-get="{reverse("customers-remove-new-row")}?prefix=kyc_documents-1"' in html
    assert reviewer.get(url, {"kind": "nonsense"}).status_code == 404
    html = reviewer.get(reverse("customers-remove-new-row"), {"prefix": "persons-0"}).content
    assert b'name="persons-0-DELETE" value="on"' in html
    # Without JavaScript, "Add" posts the form and the page comes back with one more row.
    response = reviewer.post(URL, individual(**management(persons=1), add_row="persons"))
    assert len(response.context["create"].kyb.persons.forms) == 2
    assert 'value="Grace"' in response.content.decode()


def test_a_known_email_is_shown_and_confirmed_before_a_second_customer(reviewer, upstream):
    first = reviewer.post(URL, individual(), follow=True)
    known = Customer.objects.get(email="grace@example.com")
    assert first.redirect_chain[-1][0] == reverse("customers-view-customer", args=[known.customer_id])

    warned = reviewer.post(URL, individual(email="GRACE@example.com", first_name="Grace B."))
    assert warned.status_code == 200
    html = warned.content.decode()
    assert "Nothing was created: the back-office knows a customer with this e-mail already." in html
    assert f'href="{reverse("customers-view-customer", args=[known.customer_id])}">Grace Hopper</a>' in html
    assert 'value="Grace B."' in html  # what was typed is kept
    assert Customer.objects.count() == 1

    confirmed = reviewer.post(URL, individual(email="GRACE@example.com", first_name="Grace B.", same_email="on"))
    assert confirmed.status_code == 302
    assert Customer.objects.filter(email__iexact="grace@example.com").count() == 2
    assert AuditEvent.objects.filter(action="customer.create", outcome="success").count() == 2


def test_one_form_sent_again_creates_one_customer_and_answers_with_it(reviewer, upstream):
    from sandbox.models import Customer as SandboxCustomer

    data = individual()
    answers = [reviewer.post(URL, data) for _ in range(3)]
    customer = Customer.objects.get()
    assert {answer["Location"] for answer in answers} == {
        reverse("customers-view-customer", args=[customer.customer_id])
    }
    assert SandboxCustomer.objects.count() == 1
    assert AuditEvent.objects.filter(action="customer.create").count() == 1


def test_a_form_without_its_mark_creates_nothing_and_can_be_sent_again(reviewer, upstream):
    data = individual()
    del data["submission"]
    response = reviewer.post(URL, data)
    html = response.content.decode()
    assert "This form had lost its one-time mark" in html and 'value="Grace"' in html
    assert not Customer.objects.exists()
    # The page shown again carries a new mark: sending it creates the customer.
    mark = html.split('name="submission" value="')[1].split('"')[0]
    assert reviewer.post(URL, {**data, "submission": mark}).status_code == 302
    assert Customer.objects.count() == 1
