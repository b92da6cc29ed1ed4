"""Customers: create, read (both paths), list with cursor paging, update, and the customer
test helpers, through the HTTP API. Field-level validation is in test_kyc_validation.py."""

import datetime as dt
import re
import uuid

import pytest

from sandbox import clock
from sandbox.models import Customer, VerificationIssue

from .conftest import KYB_DATA, KYC_DATA, assert_error, customer_body

CHAINS = ["ARBITRUM", "BASE", "ETHEREUM", "OPTIMISM", "POLYGON", "SOLANA"]
BASE_FIELDS = {
    "customerId",
    "customerStatus",
    "customerType",
    "name",
    "email",
    "verificationLink",
    "updatedAt",
    "organizationId",
}


def review(api, customer_id, outcome, issues=None):
    return api.post(f"/test-helpers/customers/{customer_id}/review", {"outcome": outcome, "issues": issues or []})


def missing_back():
    return [{"code": "DOCUMENT_MISSING_BACK", "message": "Upload the back of the ID"}]


# --- Create -------------------------------------------------------------------------------------


def test_create_individual_without_data_is_created(api, api_key):
    response = api.post("/customers", customer_body(with_data=False))

    assert response.status_code == 201
    body = response.json()
    assert set(body) == BASE_FIELDS
    assert body["customerStatus"] == "CREATED"
    assert body["customerType"] == "INDIVIDUAL"
    assert body["name"] == "Ada Lovelace"
    assert body["email"] == "ada@example.com"
    assert body["organizationId"] == str(api_key[0].organization_id)
    uuid.UUID(body["customerId"])
    dt.datetime.fromisoformat(body["updatedAt"])


def test_create_business_names_the_business(api):
    response = api.post("/customers", customer_body("BUSINESS", with_data=False))

    assert response.status_code == 201
    assert response.json()["name"] == "Analytical Engines"
    assert response.json()["customerType"] == "BUSINESS"


def test_verification_link_is_an_absolute_form_url_of_this_host(api, settings):
    settings.ALLOWED_HOSTS = ["sandbox.example"]
    body = api.post("/customers", customer_body(), HTTP_HOST="sandbox.example:8443").json()

    token = Customer.objects.get(pk=body["customerId"]).verification_token
    assert body["verificationLink"] == f"http://sandbox.example:8443/sandbox/forms/verify/{token}"
    assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", token)


def test_every_customer_gets_its_own_verification_link(api):
    links = {api.post("/customers", customer_body()).json()["verificationLink"] for _ in range(3)}
    assert len(links) == 3


@pytest.mark.parametrize("customer_type", ["INDIVIDUAL", "BUSINESS"])
def test_create_with_data_starts_the_review(api, settings, customer_type):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 30
    response = api.post("/customers", customer_body(customer_type))

    assert response.status_code == 201
    body = response.json()
    assert body["customerStatus"] == "UNDER_REVIEW"
    assert body["verificationIssues"] == []
    customer = Customer.objects.get(pk=body["customerId"])
    assert customer.review_due_at == customer.updated_at + dt.timedelta(seconds=30)
    assert (customer.kyc_data or customer.kyb_data) == (KYC_DATA if customer_type == "INDIVIDUAL" else KYB_DATA)


def test_create_with_empty_kyb_data_carries_no_data(api):
    response = api.post("/customers", customer_body("BUSINESS", with_data=False, kybData={}))

    assert response.status_code == 201
    assert response.json()["customerStatus"] == "CREATED"


def test_created_at_and_updated_at_follow_the_sandbox_clock(api):
    clock.advance(3600)
    body = api.post("/customers", customer_body()).json()

    updated_at = dt.datetime.fromisoformat(body["updatedAt"])
    assert abs(updated_at - clock.now()) < dt.timedelta(seconds=5)


# --- Read ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/customer", "/customers"])
def test_read_answers_the_customer_on_both_paths(api, customer_factory, prefix):
    customer = customer_factory("CREATED")

    response = api.get(f"{prefix}/{customer['customerId']}")

    assert response.status_code == 200
    assert response.json() == customer


@pytest.mark.parametrize("prefix", ["/customer", "/customers"])
def test_include_payment_methods_adds_them(api, active_customer, prefix):
    path = f"{prefix}/{active_customer['customerId']}"

    assert "availablePaymentMethods" not in api.get(path).json()
    assert "availablePaymentMethods" not in api.get(path, {"includePaymentMethods": "false"}).json()
    body = api.get(path, {"includePaymentMethods": "true"}).json()
    assert body["availablePaymentMethods"] == ["ACH", "WIRE", "SEPA", *CHAINS]


def test_include_payment_methods_must_be_a_boolean(api, active_customer):
    response = api.get(f"/customer/{active_customer['customerId']}", {"includePaymentMethods": "maybe"})

    body = assert_error(response, 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == ["includePaymentMethods"]
    assert body["details"][0]["location"] == "query"


@pytest.mark.parametrize(
    ("status", "methods"),
    [
        ("CREATED", []),
        ("UNDER_REVIEW", []),
        ("NEEDS_ADDITIONAL_INFORMATION", []),
        ("REJECTED", []),
        ("DEACTIVATED", []),
        ("ACTIVE", ["ACH", "WIRE", "SEPA", *CHAINS]),
    ],
)
def test_payment_methods_by_status(api, customer_factory, status, methods):
    customer = customer_factory(status)

    body = api.get(f"/customer/{customer['customerId']}", {"includePaymentMethods": "true"}).json()

    assert body["customerStatus"] == status
    assert body["availablePaymentMethods"] == methods


@pytest.mark.parametrize(
    ("customer_type", "data", "local"),
    [
        ("INDIVIDUAL", {"kycData": {**KYC_DATA, "nationality": "CA"}}, "CA_INTERAC"),
        ("INDIVIDUAL", {"kycData": {**KYC_DATA, "nationality": "IN"}}, "IN_NEFT_RTGS_IMPS"),
        ("BUSINESS", {"kybData": {"businessInfo": {"registrationCountry": "CA"}}}, "CA_INTERAC"),
    ],
)
def test_payment_methods_add_the_domestic_rail_of_canada_and_india(api, customer_factory, customer_type, data, local):
    customer = customer_factory("ACTIVE", customer_type, **data)

    body = api.get(f"/customer/{customer['customerId']}", {"includePaymentMethods": "true"}).json()

    assert body["availablePaymentMethods"] == ["ACH", "WIRE", "SEPA", local, *CHAINS]


@pytest.mark.parametrize(
    ("status", "has_issues"),
    [
        ("CREATED", False),
        ("UNDER_REVIEW", True),
        ("NEEDS_ADDITIONAL_INFORMATION", True),
        ("REJECTED", True),
        ("ACTIVE", False),
        ("DEACTIVATED", False),
    ],
)
def test_verification_issues_appear_only_in_three_statuses(api, customer_factory, status, has_issues):
    customer = customer_factory(status)

    body = api.get(f"/customers/{customer['customerId']}").json()

    assert ("verificationIssues" in body) is has_issues


def test_verification_issues_carry_code_message_timestamp(api, customer_factory):
    customer = customer_factory("NEEDS_ADDITIONAL_INFORMATION")

    issues = api.get(f"/customer/{customer['customerId']}").json()["verificationIssues"]

    assert [(i["code"], i["message"]) for i in issues] == [("DOCUMENT_MISSING_BACK", "Back of the ID missing")]
    dt.datetime.fromisoformat(issues[0]["timestamp"])


@pytest.mark.parametrize("customer_id", [str(uuid.uuid4()), "not-a-uuid"])
@pytest.mark.parametrize("prefix", ["/customer", "/customers"])
def test_read_unknown_customer_is_not_found(api, customer_id, prefix):
    body = assert_error(api.get(f"{prefix}/{customer_id}"), 404, "NOT_FOUND")
    assert body["message"] == f"Customer {customer_id} not found"


def test_the_singular_path_has_no_patch(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.patch(f"/customer/{customer['customerId']}", {"kycData": KYC_DATA})

    assert_error(response, 405, "BAD_REQUEST")


# --- Update -------------------------------------------------------------------------------------


def test_patch_in_created_with_data_starts_the_review(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": KYC_DATA})

    assert response.status_code == 200
    body = response.json()
    assert body["customerStatus"] == "UNDER_REVIEW"
    assert body["verificationIssues"] == []
    assert body["updatedAt"] > customer["updatedAt"]
    assert Customer.objects.get(pk=customer["customerId"]).kyc_data == KYC_DATA


def test_patch_in_created_without_data_changes_nothing(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.patch(f"/customers/{customer['customerId']}", {})

    assert response.status_code == 200
    assert response.json() == customer


def test_patch_business_kyb_data_starts_the_review(api, customer_factory):
    customer = customer_factory("CREATED", "BUSINESS")

    response = api.patch(f"/customers/{customer['customerId']}", {"kybData": KYB_DATA})

    assert response.status_code == 200
    assert response.json()["customerStatus"] == "UNDER_REVIEW"


def test_patch_in_needs_additional_information_restarts_verification(api, customer_factory, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 60
    customer = customer_factory("NEEDS_ADDITIONAL_INFORMATION")
    document = {"type": "GOVERNMENT_ID", "subtype": "NATIONAL_ID", "frontIdImage": "AAAA", "backIdImage": "BBBB"}

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": {"documents": [document]}})

    assert response.status_code == 200
    body = response.json()
    assert body["customerStatus"] == "UNDER_REVIEW"
    assert body["verificationIssues"] == []
    row = Customer.objects.get(pk=customer["customerId"])
    assert row.issues.count() == 0
    assert row.review_due_at == row.updated_at + dt.timedelta(seconds=60)
    # Merged: the earlier fields stay, the new one is added.
    assert row.kyc_data == {**KYC_DATA, "documents": [document]}


def test_patch_in_needs_additional_information_with_unchanged_data_keeps_the_issues(api, customer_factory):
    customer = customer_factory("NEEDS_ADDITIONAL_INFORMATION")

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": {"nationality": KYC_DATA["nationality"]}})

    assert response.status_code == 200
    assert response.json()["customerStatus"] == "NEEDS_ADDITIONAL_INFORMATION"
    assert len(response.json()["verificationIssues"]) == 1


def test_patch_merges_objects_and_replaces_arrays(api, customer_factory):
    customer = customer_factory(
        "CREATED",
        "BUSINESS",
    )
    cid = customer["customerId"]
    api.patch(
        f"/customers/{cid}",
        {"kybData": {"businessInfo": {"legalBusinessName": "A"}, "highRiskActivities": ["GAMBLING"]}},
    )
    review(api, cid, "NEEDS_ADDITIONAL_INFORMATION", missing_back())

    response = api.patch(
        f"/customers/{cid}",
        {"kybData": {"businessInfo": {"website": "https://a.example"}, "highRiskActivities": ["ADULT_ENTERTAINMENT"]}},
    )

    assert response.status_code == 200
    assert Customer.objects.get(pk=cid).kyb_data == {
        "businessInfo": {"legalBusinessName": "A", "website": "https://a.example"},
        "highRiskActivities": ["ADULT_ENTERTAINMENT"],
    }


@pytest.mark.parametrize("status", ["UNDER_REVIEW", "ACTIVE", "REJECTED", "DEACTIVATED"])
def test_patch_in_other_statuses_is_refused_naming_the_status(api, customer_factory, status):
    customer = customer_factory(status)

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": {"nationality": "FR"}})

    body = assert_error(response, 400, "BAD_REQUEST")
    assert body["message"] == (
        f"Customer {customer['customerId']} is {status}; its profile can be updated only in "
        "CREATED or NEEDS_ADDITIONAL_INFORMATION"
    )
    assert Customer.objects.get(pk=customer["customerId"]).kyc_data["nationality"] == "US"


def test_patch_unknown_customer_is_not_found(api):
    customer_id = uuid.uuid4()
    body = assert_error(api.patch(f"/customers/{customer_id}", {"kycData": KYC_DATA}), 404, "NOT_FOUND")
    assert body["message"] == f"Customer {customer_id} not found"


# --- Test helpers: review, deactivate, clock ------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "issues"),
    [("ACTIVE", []), ("NEEDS_ADDITIONAL_INFORMATION", missing_back()), ("REJECTED", missing_back()), ("REJECTED", [])],
)
def test_review_decides_an_under_review_customer(api, customer_factory, outcome, issues):
    customer = customer_factory("UNDER_REVIEW")

    response = review(api, customer["customerId"], outcome, issues)

    assert response.status_code == 200
    body = response.json()
    assert body["customerStatus"] == outcome
    assert [(i["code"], i["message"]) for i in body.get("verificationIssues", [])] == [
        (i["code"], i["message"]) for i in issues
    ]
    assert Customer.objects.get(pk=customer["customerId"]).review_due_at is None


@pytest.mark.parametrize("status", ["CREATED", "ACTIVE", "NEEDS_ADDITIONAL_INFORMATION", "REJECTED", "DEACTIVATED"])
def test_review_of_a_customer_not_under_review_is_refused(api, customer_factory, status):
    customer = customer_factory(status)

    body = assert_error(review(api, customer["customerId"], "ACTIVE"), 400, "BAD_REQUEST")
    assert body["message"] == (
        f"Customer {customer['customerId']} is {status}; only an UNDER_REVIEW customer can be reviewed"
    )


def test_full_cycle_needs_information_then_active(api, customer_factory):
    cid = customer_factory("NEEDS_ADDITIONAL_INFORMATION")["customerId"]
    api.patch(f"/customers/{cid}", {"kycData": {"legalMiddleName": "Augusta"}})

    body = review(api, cid, "ACTIVE").json()

    assert body["customerStatus"] == "ACTIVE"
    assert "verificationIssues" not in body
    assert VerificationIssue.objects.filter(customer_id=cid).count() == 0


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"outcome": "NEEDS_ADDITIONAL_INFORMATION", "issues": []}, ["issues"]),
        ({"outcome": "ACTIVE", "issues": missing_back()}, ["issues"]),
        ({"outcome": "UNDER_REVIEW"}, ["outcome"]),
        ({"outcome": "DEACTIVATED"}, ["outcome"]),
        ({}, ["outcome"]),
        ({"outcome": "REJECTED", "issues": [{"code": "lower case", "message": "m"}]}, ["issues", 0, "code"]),
        ({"outcome": "REJECTED", "issues": [{"code": "X"}]}, ["issues", 0, "message"]),
        ({"outcome": "REJECTED", "reason": "x"}, ["reason"]),
    ],
)
def test_review_body_is_validated(api, customer_factory, payload, path):
    customer = customer_factory("UNDER_REVIEW")

    body = assert_error(
        api.post(f"/test-helpers/customers/{customer['customerId']}/review", payload), 400, "VALIDATION_ERROR"
    )

    assert path in [d["path"] for d in body["details"]]
    assert Customer.objects.get(pk=customer["customerId"]).status == "UNDER_REVIEW"


def test_review_of_unknown_customer_is_not_found(api):
    customer_id = uuid.uuid4()
    body = assert_error(review(api, customer_id, "ACTIVE"), 404, "NOT_FOUND")
    assert body["message"] == f"Customer {customer_id} not found"


def test_deactivate_an_active_customer(api, active_customer):
    response = api.post(f"/test-helpers/customers/{active_customer['customerId']}/deactivate")

    assert response.status_code == 200
    assert response.json()["customerStatus"] == "DEACTIVATED"
    assert api.get(f"/customer/{active_customer['customerId']}").json()["customerStatus"] == "DEACTIVATED"


@pytest.mark.parametrize(
    "status", ["CREATED", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION", "REJECTED", "DEACTIVATED"]
)
def test_deactivate_needs_an_active_customer(api, customer_factory, status):
    customer = customer_factory(status)

    body = assert_error(api.post(f"/test-helpers/customers/{customer['customerId']}/deactivate"), 400, "BAD_REQUEST")
    assert body["message"] == (
        f"Customer {customer['customerId']} is {status}; only an ACTIVE customer can be deactivated"
    )


def test_clock_advance_moves_the_sandbox_time(api):
    before = clock.now()

    response = api.post("/test-helpers/clock/advance", {"seconds": 600})

    assert response.status_code == 200
    body = response.json()
    assert body["offsetSeconds"] == 600
    now = dt.datetime.fromisoformat(body["now"])
    assert dt.timedelta(seconds=599) < now - before < dt.timedelta(seconds=610)
    assert api.post("/test-helpers/clock/advance", {"seconds": 0.5}).json()["offsetSeconds"] == 600.5


@pytest.mark.parametrize("seconds", [-1, "60", True, None, 400 * 24 * 3600])
def test_clock_advance_needs_a_sensible_number(api, seconds):
    body = assert_error(api.post("/test-helpers/clock/advance", {"seconds": seconds}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == ["seconds"]
    assert clock.offset() == dt.timedelta(0)


def test_test_helpers_are_not_under_api_paths(api, active_customer):
    response = api.post(f"/customers/{active_customer['customerId']}/deactivate")
    assert_error(response, 404, "NOT_FOUND")
