"""KYC/KYB editors and the customer page's actions, against the sandbox in-process."""

import base64
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditEvent
from customers.forms.kyb import KybForm
from customers.forms.kyc import KycForm
from customers.models import Customer, CustomerNote, HostedLinkHandout
from customers.upserts import customers_upsert
from tests.factories import CustomerFactory
from tests.faulty_api import api_error
from tests.marks import marked

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
pytestmark = pytest.mark.django_db


def png(name="back.png", content=PNG):
    return SimpleUploadedFile(name, content, content_type="image/png")


def data_uri(content=PNG):
    return "data:image/png;base64," + base64.b64encode(content).decode()


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def nai_customer(upstream, settings):
    """An individual the sandbox reviewed to NEEDS_ADDITIONAL_INFORMATION / DOCUMENT_MISSING_BACK."""
    from upstream.client import get_client
    from upstream.mirrored import Source

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0
    body = upstream.call(
        "POST",
        "/customers",
        {
            "customerType": "INDIVIDUAL",
            "email": "ada@example.com",
            "firstName": "Ada",
            "lastName": "Lovelace",
            "kycData": {
                "nationalIdType": "ssn",
                "nationalIdNumber": "123456789",
                "nationalIdIssuingCountry": "US",
                "documents": [
                    {
                        "type": "GOVERNMENT_ID",
                        "subtype": "NATIONAL_ID",
                        "frontIdImage": data_uri(),
                        "proofOfAddressImage": data_uri(),
                    }
                ],
            },
        },
    )
    customers_upsert(items=[get_client().customers.get(customer_id=body["customerId"])], seen_by=Source.SYNC)
    customer = Customer.objects.get(customer_id=body["customerId"])
    assert customer.status == "NEEDS_ADDITIONAL_INFORMATION"
    assert list(customer.issues.values_list("code", flat=True)) == ["DOCUMENT_MISSING_BACK"]
    return customer


def kyc_url(customer):
    return reverse("customers-edit-kyc", args=[customer.customer_id])


def kyb_url(customer):
    return reverse("customers-edit-kyb", args=[customer.customer_id])


# --- The customer page -----------------------------------------------------------------


def test_customer_page_explains_the_issue_and_offers_refill(reviewer, nai_customer):
    html = reviewer.get(reverse("customers-view-customer", args=[nai_customer.customer_id])).content.decode()
    assert "DOCUMENT_MISSING_BACK" in html
    assert "The back of the identity document is missing." in html
    assert "Refill hosted form" in html and "Edit KYC" in html
    assert nai_customer.verification_link in html and 'target="_blank"' in html
    assert "data-copy=" in html


def test_operations_sees_no_edit_buttons_and_gets_403_on_edit(client_as, nai_customer):
    client = client_as("operations")
    html = client.get(reverse("customers-view-customer", args=[nai_customer.customer_id])).content.decode()
    assert "Edit KYC" not in html and "Refresh from the API" not in html and "Claim" not in html
    assert client.get(kyc_url(nai_customer)).status_code == 403
    assert client.post(kyc_url(nai_customer), marked({"legal_first_name": "X"})).status_code == 403


def test_refresh_reads_the_api_and_audits(reviewer, nai_customer, upstream):
    Customer.objects.filter(pk=nai_customer.pk).update(synced_at=None)
    response = reviewer.post(reverse("customers-refresh-customer", args=[nai_customer.customer_id]))
    assert response.status_code == 302
    assert AuditEvent.objects.filter(action="customer.refresh", outcome="success").count() == 1
    nai_customer.refresh_from_db()
    assert nai_customer.synced_at is not None


def test_refresh_failure_is_shown_and_audited(reviewer, faulty_upstream):
    customer = CustomerFactory(synced_at=None)
    faulty_upstream.answer(api_error(503, "SERVICE_UNAVAILABLE", "503 from the gateway"))

    response = reviewer.post(reverse("customers-refresh-customer", args=[customer.customer_id]), follow=True)

    html = response.content.decode()
    assert "The Payments API did not answer; try again." in html and "503 from the gateway" not in html
    event = AuditEvent.objects.get(action="customer.refresh")
    assert (event.outcome, event.details) == ("failure", {"error": "SERVICE_UNAVAILABLE"})


def test_notes_and_handouts_are_recorded(reviewer):
    customer = CustomerFactory()
    reviewer.post(reverse("customers-add-note", args=[customer.customer_id]), {"body": "Asked for the back by phone."})
    response = reviewer.post(
        reverse("customers-record-handout", args=[customer.customer_id]), marked({"kind": "opened"})
    )
    assert response["Location"] == customer.verification_link
    response = reviewer.post(
        reverse("customers-record-handout", args=[customer.customer_id]),
        marked({"kind": "copied"}),
        headers={"HX-Request": "true"},
    )
    assert "Copied the link" in response.content.decode() and "<html" not in response.content.decode()
    assert CustomerNote.objects.get().author_username == "compliance-user"
    assert list(HostedLinkHandout.objects.order_by("id").values_list("kind", flat=True)) == ["opened", "copied"]
    html = reviewer.get(reverse("customers-view-customer", args=[customer.customer_id])).content.decode()
    assert "Asked for the back by phone." in html and "Opened the hosted form" in html
    # Notes stay private: the audit says a note was written, not what it says.
    assert AuditEvent.objects.get(action="customer.note_add").details == {}


def test_refill_only_when_needs_additional_information(reviewer):
    customer = CustomerFactory(status="UNDER_REVIEW")
    response = reviewer.post(
        reverse("customers-record-handout", args=[customer.customer_id]), marked({"kind": "refill"})
    )
    assert response["Location"] == reverse("customers-view-customer", args=[customer.customer_id])
    assert not HostedLinkHandout.objects.exists()


def test_assign_to_a_colleague_and_release(reviewer, make_staff):
    colleague = make_staff("compliance", username="colleague")
    make_staff("operations", username="not-a-reviewer")
    customer = CustomerFactory()
    url = reverse("customers-assign-customer", args=[customer.customer_id])
    reviewer.post(url, {"assignee": colleague.pk})
    customer.refresh_from_db()
    assert customer.assignee == colleague
    operations = Customer.objects.model._meta.get_field("assignee").related_model.objects.get(username="not-a-reviewer")
    reviewer.post(url, {"assignee": operations.pk})
    customer.refresh_from_db()
    assert customer.assignee == colleague  # operations cannot be given a case
    reviewer.post(url, {"assignee": ""})
    customer.refresh_from_db()
    assert customer.assignee is None and customer.claimed_at is None


def test_create_customer_then_kyc(reviewer, upstream):
    response = reviewer.post(
        reverse("customers-create-customer"),
        marked(
            {
                "customer_type": "INDIVIDUAL",
                "email": "new@example.com",
                "first_name": "Grace",
                "last_name": "Hopper",
                "add_data": "on",
            }
        ),
    )
    customer = Customer.objects.get(email="new@example.com")
    assert customer.status == "CREATED" and customer.name == "Grace Hopper"
    assert response["Location"] == kyc_url(customer)
    assert AuditEvent.objects.get(action="customer.create").target_id == customer.customer_id


def test_create_business_needs_its_name(reviewer):
    response = reviewer.post(
        reverse("customers-create-customer"), marked({"customer_type": "BUSINESS", "email": "b@example.com"})
    )
    assert "A business needs its name." in response.content.decode()


# --- KYC -------------------------------------------------------------------------------


def test_kyc_form_offers_no_removed_fields_and_never_prefills_the_id():
    html = KycForm().as_div()
    for removed in ('name="middle_name"', 'name="tax_id_number"', 'name="title"'):
        assert removed not in html
    assert 'name="legal_middle_name"' in html and 'type="password"' in html


def test_kyc_update_sends_the_back_image_and_restarts_verification(reviewer, nai_customer, upstream):
    from sandbox.models import Customer as SandboxCustomer

    response = reviewer.post(
        kyc_url(nai_customer),
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
    html = response.content.decode()
    assert "KYC update sent (documents). The customer is now Under review." in html
    nai_customer.refresh_from_db()
    assert nai_customer.status == "UNDER_REVIEW" and not nai_customer.issues.exists()
    sent = SandboxCustomer.objects.get(id=nai_customer.customer_id).kyc_data["documents"][0]
    assert sent["backIdImage"] == data_uri() and "nationalIdNumber" not in json.dumps(sent)
    event = AuditEvent.objects.get(action="customer.update_kyc")
    assert event.details == {"sections": ["documents"]} and event.actor_username == "compliance-user"


def test_only_filled_fields_are_sent_and_the_triple_together(reviewer, nai_customer, faulty_upstream):
    faulty_upstream.fail("down")
    reviewer.post(
        kyc_url(nai_customer),
        marked(
            {
                "legal_first_name": "Ada",
                "national_id_type": "ssn",
                "national_id_number": "987654321",
                "national_id_issuing_country": "US",
            }
        ),
    )
    (patch,) = faulty_upstream.sent("PATCH")
    assert json.loads(patch.content)["kycData"] == {
        "legalFirstName": "Ada",
        "nationalIdType": "ssn",
        "nationalIdNumber": "987654321",
        "nationalIdIssuingCountry": "US",
    }


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"national_id_number": "123456789"}, "national_id_type", "go together"),
        ({"national_id_type": "ssn", "national_id_number": "1"}, "national_id_issuing_country", "go together"),
        ({"date_of_birth": "2999-01-01"}, "date_of_birth", "This date is in the future."),
        ({"date_of_birth": "1990-02-30"}, "date_of_birth", "Enter a valid date."),
        ({"nationality": "XX"}, "nationality", "Select a valid choice."),
        ({"nationality": "us"}, "nationality", "Select a valid choice."),
        ({"phone_number": "0123"}, "phone_number", "international format"),
        (
            {"document_issued": "2020-01-02", "document_expires": "2020-01-01"},
            "document_expires",
            "after the issue date",
        ),
        ({"employment_status": "EMPLOYEDISH"}, "employment_status", "Select a valid choice."),
    ],
)
def test_kyc_rules_are_checked_before_any_call(reviewer, nai_customer, faulty_upstream, data, field, message):
    faulty_upstream.fail("down")
    response = reviewer.post(kyc_url(nai_customer), marked(data))
    errors = response.context["form"].errors
    assert any(message in e for e in errors[field]), errors
    assert faulty_upstream.requests == [], "the API was called"


def test_documents_are_checked_for_type_and_size(reviewer, nai_customer, monkeypatch):
    monkeypatch.setattr("customers.forms.fields.MAX_DOCUMENT_BYTES", 100)
    response = reviewer.post(
        kyc_url(nai_customer),
        marked(
            {
                "document_type": "GOVERNMENT_ID",
                "front_image": SimpleUploadedFile("id.gif", b"GIF89a....", content_type="image/png"),
                "back_image": png("huge.png", PNG + b"\x00" * 200),
            }
        ),
    )
    errors = response.context["form"].errors
    assert errors["front_image"] == ["id.gif is not a PNG, JPEG or PDF file. Upload a photo or a scan."]
    assert errors["back_image"][0].startswith("huge.png is 0.0 MB; the limit is 10 MB.")


def test_api_validation_errors_land_on_fields_and_input_survives(reviewer, nai_customer, faulty_upstream):
    faulty_upstream.answer(
        api_error(
            400,
            "VALIDATION_ERROR",
            "Invalid",
            details=[
                {"path": ["kycData", "documents", 0, "backIdImage"], "message": "Image unreadable."},
                {"path": ["kycData", "phoneNumber"], "message": "Not a mobile number."},
                {"path": ["kycData", "somethingNew"], "message": "Unknown thing."},
            ],
        )
    )
    response = reviewer.post(
        kyc_url(nai_customer),
        marked(
            {
                "legal_first_name": "Ada",
                "phone_number": "+12025550123",
                "national_id_type": "ssn",
                "national_id_number": "123456789",
                "national_id_issuing_country": "US",
                "document_type": "GOVERNMENT_ID",
                "front_image": png("front.png"),
                "back_image": png(),
                "proof_of_address_image": png("bill.png"),
            }
        ),
    )
    form = response.context["form"]
    assert form.errors["back_image"] == ["Image unreadable."]
    assert form.errors["phone_number"] == ["Not a mobile number."]
    html = response.content.decode()
    assert "kycData.somethingNew: Unknown thing." in html and "Nothing was changed." in html
    # Everything typed is still there, the image too (kept as its data URI), the ID masked.
    assert 'value="Ada"' in html and 'value="+12025550123"' in html
    assert f'name="back_image_kept" value="{data_uri()}"' in html
    assert "•••• 6789" in html and 'type="password" name="national_id_number"' in html
    assert AuditEvent.objects.get(action="customer.update_kyc").outcome == "failure"
    nai_customer.refresh_from_db()
    assert nai_customer.status == "NEEDS_ADDITIONAL_INFORMATION"


def test_other_api_errors_show_at_the_top(reviewer, nai_customer, faulty_upstream):
    faulty_upstream.answer(
        api_error(400, "BAD_REQUEST", "Customer is UNDER_REVIEW; its profile can be updated only in CREATED")
    )
    response = reviewer.post(kyc_url(nai_customer), marked({"legal_first_name": "Ada"}))
    html = response.content.decode()
    assert "The Payments API refused this: Customer is UNDER_REVIEW" in html
    assert 'value="Ada"' in html


def test_nothing_filled_sends_nothing(reviewer, nai_customer):
    response = reviewer.post(kyc_url(nai_customer), marked({}))
    assert "Nothing to send" in response.content.decode()


# --- KYB -------------------------------------------------------------------------------


@pytest.fixture
def business(upstream):
    from upstream.client import get_client
    from upstream.mirrored import Source

    body = get_client().customers.create(customer_type="BUSINESS", email="ops@acme.test", business_name="Acme Ltd")
    customers_upsert(items=[body], seen_by=Source.SYNC)
    return Customer.objects.get(customer_id=body.customer_id)


def person(i=0, **extra):
    base = {
        f"persons-{i}-legal_first_name": "Ann",
        f"persons-{i}-legal_last_name": "Owner",
        f"persons-{i}-email": "ann@acme.test",
        f"persons-{i}-nationality": "GB",
        f"persons-{i}-ownership_percentage": "25",
        f"persons-{i}-is_control_person": "on",
        f"persons-{i}-street_line1": "1 High Street",
        f"persons-{i}-city": "London",
        f"persons-{i}-postal_code": "N1 9GU",
        f"persons-{i}-country_code": "GB",
    }
    base.update({f"persons-{i}-{k}": v for k, v in extra.items()})
    return base


def formsets(persons=1, documents=0):
    return {
        "persons-TOTAL_FORMS": str(persons),
        "persons-INITIAL_FORMS": "0",
        "documents-TOTAL_FORMS": str(documents),
        "documents-INITIAL_FORMS": "0",
    }


def test_kyb_update_adds_a_person_with_ownership_as_a_fraction(reviewer, business):
    from sandbox.models import Customer as SandboxCustomer

    response = reviewer.post(
        kyb_url(business),
        marked(
            {
                **formsets(persons=1, documents=1),
                "kyb-legal_business_name": "Acme Ltd",
                "kyb-business_type": "LIMITED_LIABILITY_COMPANY",
                "kyb-registration_country": "GB",
                **person(),
                "documents-0-type": "ARTICLES_OF_INCORPORATION",
                "documents-0-document_image": png("articles.png"),
            }
        ),
        follow=True,
    )
    assert "KYB update sent (associated persons, business, business documents)." in response.content.decode()
    stored = SandboxCustomer.objects.get(id=business.customer_id).kyb_data
    assert stored["associatedPersons"][0]["ownershipPercentage"] == 0.25
    assert stored["associatedPersons"][0]["isControlPerson"] is True
    assert stored["associatedPersons"][0]["address"]["streetLine1"] == "1 High Street"
    assert stored["businessDocuments"][0]["documentImage"] == data_uri()
    business.refresh_from_db()
    assert business.status == "UNDER_REVIEW"
    assert AuditEvent.objects.get(action="customer.update_kyb").details == {
        "sections": ["associated_persons", "business", "business_documents"]
    }


def test_kyb_rules(reviewer, business):
    response = reviewer.post(
        kyb_url(business),
        marked({**formsets(), "kyb-business_type": "LLC", **person(street_line1="1 A", ownership_percentage="125")}),
    )
    edit = response.context["edit"]
    assert "Select a valid choice." in edit.form.errors["business_type"][0]
    row = edit.persons.forms[0]
    assert row.errors["street_line1"] == ["A street line needs at least 4 characters (this has 3)."]
    assert "less than or equal to 100" in row.errors["ownership_percentage"][0]


def test_kyb_offers_only_canonical_business_types():
    values = [value for value, _ in KybForm().fields["business_type"].choices if value]
    assert "LIMITED_LIABILITY_COMPANY" in values and "LLC" not in values and len(values) == 14


def test_kyb_api_errors_reach_the_right_row(reviewer, business, faulty_upstream):
    faulty_upstream.answer(
        api_error(
            400,
            "VALIDATION_ERROR",
            "Invalid",
            details=[
                {"path": ["kybData", "associatedPersons", 1, "address", "postalCode"], "message": "Bad postcode."},
                {"path": ["kybData", "businessInfo", "legalBusinessName"], "message": "Too short."},
            ],
        )
    )
    data = {**formsets(persons=3), "kyb-legal_business_name": "A", **person(0), **person(1), **person(2)}
    data["persons-1-legal_first_name"] = "Bob"
    data["persons-0-DELETE"] = "on"  # removed rows are not sent: API row 1 is form row 2
    response = reviewer.post(kyb_url(business), marked(data))
    edit = response.context["edit"]
    assert edit.persons.forms[2].errors["postal_code"] == ["Bad postcode."]
    assert edit.form.errors["legal_business_name"] == ["Too short."]
    assert 'value="Bob"' in response.content.decode()


def test_add_and_remove_rows_with_htmx(reviewer, business):
    url = reverse("customers-add-row", args=[business.customer_id, "persons"])
    html = reviewer.get(url, {"persons-TOTAL_FORMS": "2"}).content.decode()
    assert 'name="persons-2-legal_first_name"' in html
    assert 'id="id_persons-TOTAL_FORMS"' in html and 'value="3"' in html and 'hx-swap-oob="true"' in html
    html = reviewer.get(reverse("customers-remove-row", args=[business.customer_id]), {"prefix": "persons-2"}).content
    assert b'name="persons-2-DELETE" value="on"' in html


def test_add_person_without_javascript(reviewer, business):
    response = reviewer.post(kyb_url(business), marked({**formsets(persons=1), **person(), "add_row": "persons"}))
    edit = response.context["edit"]
    assert len(edit.persons.forms) == 2
    assert 'value="Ann"' in response.content.decode()


def test_an_unknown_handout_is_a_bad_request_and_records_nothing(reviewer):
    customer = CustomerFactory()
    response = reviewer.post(
        reverse("customers-record-handout", args=[customer.customer_id]), marked({"kind": "printed"})
    )
    assert response.status_code == 400
    assert "Unknown hand-out" in response.content.decode()
    assert not HostedLinkHandout.objects.exists()
