"""Hosted forms through the Django test client: the KYC/KYB form behind verificationLink, the
bank account form behind bankAccountFormLink, and their framing headers."""

import base64
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from sandbox.forms.individual import KycForm
from sandbox.models import Customer, Event, PaymentAccount

from .conftest import KYC_DATA, ROUTING

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
JPEG = b"\xff\xd8\xff\xe0" + b"\0" * 32


def png(name="id.png", content=PNG):
    return SimpleUploadedFile(name, content, content_type="image/png")


def path_of(url: str) -> str:
    return urlsplit(url).path


KYC_FORM = {
    "legal_first_name": "Ada",
    "legal_last_name": "Lovelace",
    "date_of_birth": "1990-12-10",
    "phone_number": "+12025550123",
    "nationality": "US",
    "national_id_issuing_country": "US",
    "national_id_type": "ssn",
    "national_id_number": "123-45-6789",
    "id_subtype": "NATIONAL_ID",
    "id_country": "US",
}
KYB_FORM = {
    "legal_business_name": "Analytical Engines LLC",
    "business_type": "LIMITED_LIABILITY_COMPANY",
    "registration_country": "US",
    "business_registration_number": "REG-1",
    "person_first_name": "Grace",
    "person_last_name": "Hopper",
    "person_email": "grace@engines.example",
    "person_phone": "+12025550199",
    "person_date_of_birth": "1980-01-02",
    "person_ownership": "25",
    "person_is_control_person": "on",
    "person_nationality": "US",
    "person_national_id_issuing_country": "US",
    "person_national_id_type": "ssn",
    "person_national_id_number": "987-65-4321",
    "person_street_line1": "1 Main Street",
    "person_city": "Springfield",
    "person_postal_code": "12345",
    "person_country": "US",
    "business_document_type": "ARTICLES_OF_INCORPORATION",
}


@pytest.fixture
def instant_review(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0


@pytest.fixture
def submit(client, django_capture_on_commit_callbacks):
    """submit(link, fields) posts the form the way a browser does, commit hooks included."""

    def post(link: str, fields: dict):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path_of(link), fields)

    return post


# --- KYC ------------------------------------------------------------------------------------------


def test_kyc_form_shows_labelled_fields(client, customer_factory):
    customer = customer_factory("CREATED")

    response = client.get(path_of(customer["verificationLink"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Verify your identity" in html
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<label for="id_legal_first_name">Legal first name</label>' in html
    assert '<label for="id_back_id_image">Back of the ID (optional)</label>' in html


@pytest.mark.usefixtures("instant_review")
def test_kyc_form_submits_the_data_and_the_review_runs(client, customer_factory, submit):
    customer = customer_factory("CREATED")
    fields = {**KYC_FORM, "front_id_image": png(), "back_id_image": png("back.png"), "proof_of_address_image": png()}

    response = submit(customer["verificationLink"], fields)

    assert response.status_code == 302
    assert response["Location"] == path_of(customer["verificationLink"]) + "/submitted"
    row = Customer.objects.get(pk=customer["customerId"])
    assert row.status == "ACTIVE"
    document = row.kyc_data["documents"][0]
    assert document["type"] == "GOVERNMENT_ID"
    assert document["frontIdImage"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert row.kyc_data["legalFirstName"] == "Ada"
    assert row.kyc_data["dateOfBirth"] == "1990-12-10"
    statuses = [
        e.data["customerStatus"] for e in Event.objects.filter(event_type="customer.update").order_by("created_at")
    ]
    assert statuses == ["UNDER_REVIEW", "ACTIVE"]
    page = client.get(response["Location"])
    assert "Details submitted" in page.content.decode()
    assert "is verified" in page.content.decode()


def test_kyc_form_validates_with_the_api_rules(client, customer_factory, submit):
    customer = customer_factory("CREATED")

    response = submit(
        customer["verificationLink"], {**KYC_FORM, "phone_number": "12345", "date_of_birth": "2999-01-01"}
    )

    assert response.status_code == 400
    form = response.context["form"]
    assert form.errors["phone_number"] == ["Must be a valid phone number in international format, e.g. +12025550123."]
    assert form.errors["date_of_birth"] == ["Must not be in the future."]
    assert Customer.objects.get(pk=customer["customerId"]).status == "CREATED"


def test_non_image_upload_is_refused(client, customer_factory, submit):
    customer = customer_factory("CREATED")
    script = SimpleUploadedFile("id.png", b"#!/bin/sh\necho hi\n", content_type="image/png")

    response = submit(customer["verificationLink"], {**KYC_FORM, "front_id_image": script})

    assert response.status_code == 400
    assert response.context["form"].errors["front_id_image"] == [
        "The file is not a PNG, JPEG or PDF image. Upload a photo or scan."
    ]
    assert Customer.objects.get(pk=customer["customerId"]).kyc_data is None


def test_an_upload_over_10_mb_is_refused(client, customer_factory, submit):
    customer = customer_factory("CREATED")
    big = png(content=PNG + b"\0" * (10 * 1024 * 1024))

    response = submit(customer["verificationLink"], {**KYC_FORM, "front_id_image": big})

    assert response.status_code == 400
    assert "larger than 10 MB" in response.context["form"].errors["front_id_image"][0]


@pytest.mark.usefixtures("instant_review")
def test_refill_in_needs_additional_information(client, customer_factory, submit):
    customer = customer_factory("CREATED")
    link = customer["verificationLink"]
    first = {**KYC_FORM, "front_id_image": png(), "proof_of_address_image": png()}
    submit(link, first)
    assert Customer.objects.get(pk=customer["customerId"]).status == "NEEDS_ADDITIONAL_INFORMATION"

    page = client.get(path_of(link))

    html = page.content.decode()
    assert page.status_code == 200
    assert "We need more information" in html
    assert "DOCUMENT_MISSING_BACK" in html and "backIdImage" in html
    # Prefilled with the non-image data; images are kept unless replaced.
    assert page.context["form"].initial["legal_first_name"] == "Ada"
    assert page.context["form"].initial["nationality"] == "US"
    assert "An image is on file" in html

    response = submit(link, {**KYC_FORM, "back_id_image": SimpleUploadedFile("b.jpg", JPEG, "image/jpeg")})

    assert response.status_code == 302
    row = Customer.objects.get(pk=customer["customerId"])
    assert row.status == "ACTIVE"
    document = row.kyc_data["documents"][0]
    assert document["frontIdImage"].startswith("data:image/png;base64,")
    assert document["backIdImage"].startswith("data:image/jpeg;base64,")


@pytest.mark.usefixtures("instant_review")
def test_refill_with_nothing_changed_says_so(client, customer_factory, submit):
    customer = customer_factory("CREATED")
    link = customer["verificationLink"]
    submit(link, {**KYC_FORM, "front_id_image": png(), "proof_of_address_image": png()})

    response = submit(link, KYC_FORM)

    assert response.status_code == 400
    assert "Nothing was changed" in response.content.decode()
    assert Customer.objects.get(pk=customer["customerId"]).status == "NEEDS_ADDITIONAL_INFORMATION"


@pytest.mark.parametrize(
    ("status", "title"),
    [
        ("UNDER_REVIEW", "Verification is under review"),
        ("ACTIVE", "You are already verified"),
        ("REJECTED", "Verification was declined"),
        ("DEACTIVATED", "This account is closed"),
    ],
)
def test_other_states_show_a_page_without_form(client, customer_factory, status, title):
    customer = customer_factory(status)

    for response in (
        client.get(path_of(customer["verificationLink"])),
        client.post(path_of(customer["verificationLink"]), KYC_FORM),
    ):
        assert response.status_code == 200
        html = response.content.decode()
        assert title in html
        assert "<form" not in html


def test_unknown_token_is_a_404_page(client):
    response = client.get("/sandbox/forms/verify/no-such-token")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "Form not found" in response.content.decode()


# --- KYB ------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("instant_review")
def test_kyb_form_submits_a_person_and_a_document(client, customer_factory, submit):
    customer = customer_factory("CREATED", "BUSINESS")
    assert "Verify your business" in client.get(path_of(customer["verificationLink"])).content.decode()

    response = submit(customer["verificationLink"], {**KYB_FORM, "business_document_image": png()})

    assert response.status_code == 302
    row = Customer.objects.get(pk=customer["customerId"])
    assert row.status == "ACTIVE"
    person = row.kyb_data["associatedPersons"][0]
    assert person["isControlPerson"] is True
    assert person["ownershipPercentage"] == 0.25
    assert person["address"]["streetLine1"] == "1 Main Street"
    assert row.kyb_data["businessInfo"]["businessType"] == "LIMITED_LIABILITY_COMPANY"
    assert row.kyb_data["businessDocuments"][0]["documentImage"].startswith("data:image/png;base64,")


def test_street_address_over_100_characters_is_refused_on_the_field(client, customer_factory, submit):
    customer = customer_factory("CREATED", "BUSINESS")

    response = submit(customer["verificationLink"], {**KYB_FORM, "person_street_line1": "x" * 101})

    assert response.status_code == 400
    assert response.context["form"].errors["person_street_line1"] == ["Must be at most 100 characters (this is 101)."]
    assert Customer.objects.get(pk=customer["customerId"]).status == "CREATED"


def test_street_address_under_4_characters_is_refused(client, customer_factory, submit):
    customer = customer_factory("CREATED", "BUSINESS")

    response = submit(customer["verificationLink"], {**KYB_FORM, "person_street_line1": "1 A"})

    assert response.context["form"].errors["person_street_line1"] == ["Must be at least 4 characters."]


@pytest.mark.usefixtures("instant_review")
def test_kyb_without_control_person_needs_more_information(client, customer_factory, submit):
    customer = customer_factory("CREATED", "BUSINESS")
    fields = {key: value for key, value in KYB_FORM.items() if key != "person_is_control_person"}

    submit(customer["verificationLink"], {**fields, "business_document_image": png()})

    row = Customer.objects.get(pk=customer["customerId"])
    assert row.status == "NEEDS_ADDITIONAL_INFORMATION"
    assert [issue.code for issue in row.issues.all()] == ["CONTROL_PERSON_MISSING"]
    assert "CONTROL_PERSON_MISSING" in client.get(path_of(customer["verificationLink"])).content.decode()


# --- Framing ----------------------------------------------------------------------------------------


def test_hosted_forms_may_be_framed_and_back_office_pages_may_not(client, customer_factory, api, make_account):
    customer = customer_factory("CREATED")
    bank = make_account(customer_factory("ACTIVE")["customerId"], "pending_bank")

    for url in (customer["verificationLink"], bank["bankAccountFormLink"], "http://testserver/sandbox/forms/verify/x"):
        response = client.get(path_of(url))
        assert "X-Frame-Options" not in response, url
        csp = response["Content-Security-Policy"]
        assert "frame-ancestors *" in csp
        assert "script-src 'self'" in csp and "style-src 'self'" in csp
        assert "unsafe-inline" not in csp

    login = client.get("/login/")
    assert login["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in login["Content-Security-Policy"]


# --- Bank account form ----------------------------------------------------------------------------

BANK_FORM = {
    "bankAccountOwnerName": "Ada Lovelace",
    "bankName": "First Test Bank",
    "bankAccountType": "SAVINGS",
    "bankAccountNumber": "000123456789",
    "bankRoutingNumber": ROUTING,
    "bankAccountPaymentMethod": "ACH",
}


def test_bank_account_form_completes_the_account(client, api, active_customer, make_account):
    pending = make_account(active_customer["customerId"], "pending_bank")
    link = path_of(pending["bankAccountFormLink"])
    page = client.get(link)
    assert page.status_code == 200
    assert page.context["form"].initial["bankAccountOwnerName"] == "Ada Lovelace"
    assert page.context["form"].initial["bankAccountPaymentMethod"] == "WIRE"

    response = client.post(link, BANK_FORM)

    assert response.status_code == 200
    assert "Bank account added" in response.content.decode()
    account = PaymentAccount.objects.get(form_token=link.rsplit("/", 1)[1])
    assert account.status == "ACTIVE" and account.account_id
    assert account.details["bankAccountMask"] == "****6789"
    assert account.details["bankAccountType"] == "SAVINGS"
    assert account.details["bankAccountPaymentMethod"] == "ACH"
    body = api.get(f"/payment-accounts/{account.account_id}").json()
    assert body["paymentAccountStatus"] == "ACTIVE"
    assert "bankAccountFormLink" not in body
    # The change goes out as payment_account.update, with the account as its read shows it.
    event = Event.objects.get(event_type="payment_account.update")
    assert event.data == body

    again = client.get(link)
    assert "already completed" in again.content.decode()
    assert "<form" not in again.content.decode()


def test_bank_account_form_checks_the_routing_number(client, active_customer, make_account):
    pending = make_account(active_customer["customerId"], "pending_bank")

    response = client.post(path_of(pending["bankAccountFormLink"]), {**BANK_FORM, "bankRoutingNumber": "021000022"})

    assert response.status_code == 400
    assert response.context["form"].errors["bankRoutingNumber"] == ["Not a valid ABA routing number (checksum failed)"]
    assert PaymentAccount.objects.get(pk__isnull=False, form_token__isnull=False, status="PENDING")


def test_unknown_bank_form_is_a_404_page(client):
    response = client.get("/sandbox/forms/bank-accounts/nope")

    assert response.status_code == 404
    assert "no bank account form" in response.content.decode()


def test_kyc_data_constant_is_what_the_form_builds():
    """The form fields cover the conftest's KYC_DATA, so API and form customers look alike."""

    form = KycForm(KYC_FORM, stored={})
    assert form.is_valid(), form.errors
    assert {key: form.api_data()[key] for key in KYC_DATA} == KYC_DATA


def test_a_framed_form_submits_without_the_csrf_cookie(db, customer_factory):
    """Inside another site's iframe the browser sends no SameSite=Lax cookie: the link's token is the credential."""

    customer = Customer.objects.get(pk=customer_factory("CREATED")["customerId"])
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(f"/sandbox/forms/verify/{customer.verification_token}", {})
    assert response.status_code == 400  # the form again with its field errors, not a CSRF 403
    assert "This field is required" in response.content.decode()
