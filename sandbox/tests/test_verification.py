"""The simulated review: deterministic outcomes from the submitted data, the review delay on the
sandbox clock, idempotent completion, and a customer.update event for every status change.

The sandbox conftest keeps reviews waiting (a delay of years); these tests set their own delay.
With a delay of 0 the review completes in the task queued after commit, so requests that start
a review run inside django_capture_on_commit_callbacks(execute=True)."""

import copy

import pytest
from kombu.exceptions import OperationalError

from sandbox import clock, tasks
from sandbox.models import Customer, Event
from sandbox.services import verification
from sandbox.services.customers import customer_review

from .conftest import JUST_BEFORE, KYB_DATA, KYC_DATA, advance_to, customer_body

FRONT, BACK, ADDRESS = (
    "data:image/png;base64,RlJPTlQ=",
    "data:image/png;base64,QkFDSw==",
    "data:image/png;base64,QUREUg==",
)
GOVERNMENT_ID = {
    "type": "GOVERNMENT_ID",
    "subtype": "NATIONAL_ID",
    "countryCode": "US",
    "frontIdImage": FRONT,
    "backIdImage": BACK,
    "proofOfAddressImage": ADDRESS,
}
PERSON = {
    "legalFirstName": "Grace",
    "legalLastName": "Hopper",
    "isControlPerson": True,
    "nationality": "US",
    "nationalIdType": "ssn",
    "nationalIdNumber": "987-65-4321",
    "nationalIdIssuingCountry": "US",
}
BUSINESS_DOCUMENT = {"type": "ARTICLES_OF_INCORPORATION", "documentImage": FRONT}


def kyc(**changes) -> dict:
    """Complete KYC data (reaches ACTIVE); `changes` replace fields, None removes one."""
    data = {**copy.deepcopy(KYC_DATA), "documents": [dict(GOVERNMENT_ID)], **changes}
    return {key: value for key, value in data.items() if value is not None}


def kyb(**changes) -> dict:
    data = {
        **copy.deepcopy(KYB_DATA),
        "associatedPersons": [dict(PERSON)],
        "businessDocuments": [dict(BUSINESS_DOCUMENT)],
        **changes,
    }
    return {key: value for key, value in data.items() if value is not None}


def _without_none(data):
    if isinstance(data, dict):
        return {key: _without_none(value) for key, value in data.items() if value is not None}
    if isinstance(data, list):
        return [_without_none(item) for item in data]
    return data


def updates(customer_id=None) -> list[dict]:
    """The customer.update events' data, oldest first."""
    events = Event.objects.filter(event_type="customer.update").order_by("created_at")
    data = [event.data for event in events]
    return [item for item in data if customer_id is None or item["customerId"] == customer_id]


def codes(body) -> list[str]:
    return [issue["code"] for issue in body["verificationIssues"]]


@pytest.fixture
def instant_review(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0


@pytest.fixture
def create(api, django_capture_on_commit_callbacks):
    """create(customer_type, data) -> the customer JSON as read after the commit hooks ran."""

    def make(customer_type: str, data: dict) -> dict:
        key = "kycData" if customer_type == "INDIVIDUAL" else "kybData"
        data = _without_none(data)
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post("/customers", customer_body(customer_type, **{key: data}))
        assert response.status_code == 201, response.json()
        return api.get(f"/customers/{response.json()['customerId']}").json()

    return make


# --- Outcome rules -------------------------------------------------------------------------------


@pytest.mark.usefixtures("instant_review")
@pytest.mark.parametrize(
    ("data", "status", "issue_codes"),
    [
        (kyc(), "ACTIVE", []),
        (kyc(documents=None), "NEEDS_ADDITIONAL_INFORMATION", ["DOCUMENT_MISSING", "PROOF_OF_ADDRESS_MISSING"]),
        (
            kyc(documents=[{"type": "PROOF_OF_ADDRESS", "proofOfAddressImage": ADDRESS}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["DOCUMENT_MISSING"],
        ),
        (
            kyc(documents=[{**GOVERNMENT_ID, "backIdImage": None}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["DOCUMENT_MISSING_BACK"],
        ),
        (
            kyc(documents=[{k: v for k, v in GOVERNMENT_ID.items() if k != "frontIdImage"}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["DOCUMENT_MISSING_FRONT"],
        ),
        (
            kyc(documents=[{k: v for k, v in GOVERNMENT_ID.items() if k != "proofOfAddressImage"}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["PROOF_OF_ADDRESS_MISSING"],
        ),
        # A passport has no back; a separate proof-of-address document counts.
        (
            kyc(
                documents=[
                    {"type": "GOVERNMENT_ID", "subtype": "PASSPORT", "frontIdImage": FRONT},
                    {"type": "PROOF_OF_ADDRESS", "proofOfAddressImage": ADDRESS},
                ]
            ),
            "ACTIVE",
            [],
        ),
        (kyc(nationality="KP"), "REJECTED", ["SANCTIONED_COUNTRY"]),
        (kyc(nationalIdIssuingCountry="IR"), "REJECTED", ["SANCTIONED_COUNTRY"]),
        # A sanctions hit rejects whatever else is missing.
        (kyc(nationality="CU", documents=None), "REJECTED", ["SANCTIONED_COUNTRY"]),
    ],
)
def test_kyc_outcome_follows_the_data(create, data, status, issue_codes):
    body = create("INDIVIDUAL", data)

    assert body["customerStatus"] == status
    if status == "ACTIVE":
        assert "verificationIssues" not in body
    else:
        assert codes(body) == issue_codes
    events = updates(body["customerId"])
    assert [event["customerStatus"] for event in events] == ["UNDER_REVIEW", status]
    assert codes(events[-1]) == issue_codes


@pytest.mark.usefixtures("instant_review")
@pytest.mark.parametrize(
    ("data", "status", "issue_codes"),
    [
        (kyb(), "ACTIVE", []),
        (
            kyb(associatedPersons=[{**PERSON, "isControlPerson": False}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["CONTROL_PERSON_MISSING"],
        ),
        (kyb(associatedPersons=None), "NEEDS_ADDITIONAL_INFORMATION", ["CONTROL_PERSON_MISSING"]),
        (kyb(businessDocuments=None), "NEEDS_ADDITIONAL_INFORMATION", ["BUSINESS_DOCUMENT_MISSING"]),
        (
            kyb(businessDocuments=[{"type": "ARTICLES_OF_INCORPORATION"}]),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["BUSINESS_DOCUMENT_MISSING"],
        ),
        (
            kyb(associatedPersons=None, businessDocuments=None),
            "NEEDS_ADDITIONAL_INFORMATION",
            ["CONTROL_PERSON_MISSING", "BUSINESS_DOCUMENT_MISSING"],
        ),
        (
            kyb(businessInfo={**KYB_DATA["businessInfo"], "registrationCountry": "SY"}),
            "REJECTED",
            ["SANCTIONED_COUNTRY"],
        ),
        (kyb(associatedPersons=[{**PERSON, "nationality": "IR"}]), "REJECTED", ["SANCTIONED_COUNTRY"]),
    ],
)
def test_kyb_outcome_follows_the_data(create, data, status, issue_codes):
    body = create("BUSINESS", data)

    assert body["customerStatus"] == status
    events = updates(body["customerId"])
    assert [event["customerStatus"] for event in events] == ["UNDER_REVIEW", status]
    assert codes(events[-1]) == issue_codes


@pytest.mark.usefixtures("instant_review")
def test_issues_say_what_is_wrong_and_carry_the_sandbox_time(create):
    clock.advance(3600)
    body = create("INDIVIDUAL", kyc(documents=[{**GOVERNMENT_ID, "backIdImage": None}]))

    [issue] = body["verificationIssues"]
    assert issue["code"] == "DOCUMENT_MISSING_BACK"
    assert issue["message"] == verification.MESSAGES["DOCUMENT_MISSING_BACK"]
    assert "backIdImage" in issue["message"]
    assert issue["timestamp"] == body["updatedAt"]
    stored = Customer.objects.get(pk=body["customerId"])
    assert abs((stored.updated_at - clock.now()).total_seconds()) < 60
    # The event carries the same issues as the customer read.
    assert updates(body["customerId"])[-1]["verificationIssues"] == body["verificationIssues"]


@pytest.mark.usefixtures("instant_review")
def test_rejection_message_names_the_country(create):
    body = create("INDIVIDUAL", kyc(nationality="KP"))

    assert body["verificationIssues"][0]["message"].startswith("The customer's nationality is KP (North Korea)")


def test_review_outcome_is_a_pure_function_of_the_data():
    customer = Customer(customer_type="INDIVIDUAL", kyc_data=kyc(documents=[{**GOVERNMENT_ID, "backIdImage": None}]))

    first, second = verification.review_outcome(customer), verification.review_outcome(customer)

    assert first == second == ("NEEDS_ADDITIONAL_INFORMATION", [verification._issue("DOCUMENT_MISSING_BACK")])


# --- Refill: NEEDS_ADDITIONAL_INFORMATION -> PATCH -> UNDER_REVIEW -> ACTIVE ---------------------


@pytest.mark.usefixtures("instant_review")
def test_missing_back_then_patch_with_the_back_image_activates(api, create, django_capture_on_commit_callbacks):
    customer = create("INDIVIDUAL", kyc(documents=[{**GOVERNMENT_ID, "backIdImage": None}]))
    assert customer["customerStatus"] == "NEEDS_ADDITIONAL_INFORMATION"
    customer_id = customer["customerId"]

    with django_capture_on_commit_callbacks(execute=True):
        response = api.patch(f"/customers/{customer_id}", {"kycData": {"documents": [GOVERNMENT_ID]}})

    assert response.status_code == 200
    assert response.json()["customerStatus"] == "UNDER_REVIEW"
    assert response.json()["verificationIssues"] == []
    assert api.get(f"/customers/{customer_id}").json()["customerStatus"] == "ACTIVE"
    events = updates(customer_id)
    assert [event["customerStatus"] for event in events] == [
        "UNDER_REVIEW",
        "NEEDS_ADDITIONAL_INFORMATION",
        "UNDER_REVIEW",
        "ACTIVE",
    ]
    assert codes(events[1]) == ["DOCUMENT_MISSING_BACK"]
    assert codes(events[2]) == [] and codes(events[3]) == []


# --- Delay, idempotency, completion paths -------------------------------------------------------


def test_review_waits_for_its_delay_on_the_sandbox_clock(api, settings, django_capture_on_commit_callbacks):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 60
    with django_capture_on_commit_callbacks(execute=True):
        customer_id = api.post("/customers", customer_body(kycData=kyc())).json()["customerId"]

    row = Customer.objects.get(pk=customer_id)
    assert row.status == "UNDER_REVIEW"
    assert row.review_due_at == row.updated_at + verification.review_delay()

    advance_to(row.review_due_at - JUST_BEFORE)
    assert verification.review_complete_due() == 0
    assert Customer.objects.get(pk=customer_id).status == "UNDER_REVIEW"

    advance_to(row.review_due_at)
    assert verification.review_complete_due() == 1
    row = Customer.objects.get(pk=customer_id)
    assert (row.status, row.review_due_at) == ("ACTIVE", None)
    assert [event["customerStatus"] for event in updates(customer_id)] == ["UNDER_REVIEW", "ACTIVE"]


def test_completion_is_idempotent(api, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10
    customer_id = api.post("/customers", customer_body(kycData=kyc())).json()["customerId"]
    clock.advance(10)

    assert verification.review_complete_due() == 1
    assert verification.review_complete_due() == 0
    assert tasks.complete_review.delay(customer_id).get() is False
    assert tasks.complete_due_reviews.delay().get() == 0
    assert verification.review_complete(customer_id=customer_id) is None
    assert [event["customerStatus"] for event in updates(customer_id)] == ["UNDER_REVIEW", "ACTIVE"]


def test_a_review_decided_meanwhile_is_not_applied_again(api, settings, monkeypatch):
    """Another runner (here the review helper) decides the review between this runner's read
    and its claim: the conditional UPDATE claims nothing and no second event is sent."""

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10
    customer_id = api.post("/customers", customer_body(kycData=kyc())).json()["customerId"]
    clock.advance(10)
    decide = verification.review_outcome

    def decided_meanwhile(customer):
        customer_review(customer=Customer.objects.get(pk=customer.pk), outcome="REJECTED", issues=[])
        return decide(customer)

    monkeypatch.setattr(verification, "review_outcome", decided_meanwhile)

    assert verification.review_complete(customer_id=customer_id) is None
    assert Customer.objects.get(pk=customer_id).status == "REJECTED"
    assert [event["customerStatus"] for event in updates(customer_id)] == ["UNDER_REVIEW", "REJECTED"]


def test_the_complete_review_task_applies_a_due_review_once(api, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 5
    customer_id = api.post("/customers", customer_body(kycData=kyc(nationality="SY"))).json()["customerId"]

    assert tasks.complete_review.delay(customer_id).get() is False  # not due yet
    clock.advance(5)
    assert tasks.complete_review.delay(customer_id).get() is True
    assert tasks.complete_review.delay(customer_id).get() is False

    assert Customer.objects.get(pk=customer_id).status == "REJECTED"
    assert [event["customerStatus"] for event in updates(customer_id)] == ["UNDER_REVIEW", "REJECTED"]


def test_a_read_completes_a_due_review(api, settings):
    """With eager Celery and no beat (the embedded default) a review still ends: on the next read."""
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 30
    customer_id = api.post("/customers", customer_body(kycData=kyc())).json()["customerId"]
    assert api.get(f"/customers/{customer_id}").json()["customerStatus"] == "UNDER_REVIEW"

    clock.advance(30)

    assert api.get(f"/customer/{customer_id}").json()["customerStatus"] == "ACTIVE"
    listed = api.get("/customers").json()["customers"]
    assert [c["customerStatus"] for c in listed] == ["ACTIVE"]
    assert len(updates(customer_id)) == 2


def test_no_broker_leaves_the_review_to_the_sweep(api, settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0

    def broker_down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(tasks.complete_review, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/customers", customer_body(kycData=kyc()))

    assert response.status_code == 201
    customer_id = response.json()["customerId"]
    assert Customer.objects.get(pk=customer_id).status == "UNDER_REVIEW"
    assert verification.review_complete_due() == 1
    assert Customer.objects.get(pk=customer_id).status == "ACTIVE"


def test_create_without_data_emits_nothing(api, settings, django_capture_on_commit_callbacks):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0
    with django_capture_on_commit_callbacks(execute=True):
        body = api.post("/customers", customer_body(with_data=False)).json()

    assert body["customerStatus"] == "CREATED"
    assert updates() == []


# --- Test helpers emit too ------------------------------------------------------------------------


def test_review_and_deactivate_helpers_emit_customer_update(api):
    customer_id = api.post("/customers", customer_body()).json()["customerId"]
    issues = [{"code": "DOCUMENT_MISSING_BACK", "message": "Upload the back of the ID"}]

    api.post(
        f"/test-helpers/customers/{customer_id}/review", {"outcome": "NEEDS_ADDITIONAL_INFORMATION", "issues": issues}
    )
    api.patch(f"/customers/{customer_id}", {"kycData": {"documents": [GOVERNMENT_ID]}})
    api.post(f"/test-helpers/customers/{customer_id}/review", {"outcome": "ACTIVE"})
    api.post(f"/test-helpers/customers/{customer_id}/deactivate")

    events = updates(customer_id)
    assert [event["customerStatus"] for event in events] == [
        "UNDER_REVIEW",
        "NEEDS_ADDITIONAL_INFORMATION",
        "UNDER_REVIEW",
        "ACTIVE",
        "DEACTIVATED",
    ]
    assert events[1]["verificationIssues"][0]["code"] == "DOCUMENT_MISSING_BACK"
    assert events[1]["verificationIssues"][0]["message"] == "Upload the back of the ID"
    assert all(event["organizationId"] == events[0]["organizationId"] for event in events)


def test_a_refused_helper_emits_nothing(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.post(f"/test-helpers/customers/{customer['customerId']}/deactivate")

    assert response.status_code == 400
    assert updates(customer["customerId"]) == []
