"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: authentication (keys, roles, organizations) and customers: create, read, update, list,
validation."""

import uuid

import pytest

from paymentsapi import CustomerStatus, CustomerType, Forbidden, NotFound, Unauthorized, ValidationFailed
from tests.paymentsapi.sandbox_data import KYC, active_customer, new_customer

# --- Authentication ----------------------------------------------------------------------------


def test_unknown_key_is_unauthorized(make_sandbox_client):
    client = make_sandbox_client("sbx_nothere_" + "x" * 32)

    with pytest.raises(Unauthorized) as caught:
        client.customers.list()

    assert caught.value.status == 401 and caught.value.code == "UNAUTHORIZED"


def test_no_key_is_unauthorized(make_sandbox_client):
    with pytest.raises(Unauthorized):
        make_sandbox_client("").customers.list()


def test_read_only_key_cannot_write(make_sandbox_client):
    with pytest.raises(Forbidden):
        new_customer(make_sandbox_client(read_only=True))


def test_another_organizations_customer_is_forbidden(sandbox_client, make_sandbox_client):
    customer = new_customer(sandbox_client)

    with pytest.raises(Forbidden):
        make_sandbox_client().customers.get(customer_id=customer.customer_id)


# --- Customers ---------------------------------------------------------------------------------


def test_create_and_read_a_customer(sandbox_client):
    created = new_customer(sandbox_client, first_name="Grace", last_name="Hopper")

    assert created.customer_status == CustomerStatus.CREATED
    assert created.customer_type == CustomerType.INDIVIDUAL
    assert created.name == "Grace Hopper"
    assert created.verification_link.startswith("http")
    assert created.updated_at.tzinfo is not None

    read = sandbox_client.customers.get(customer_id=created.customer_id)
    assert read.customer_id == created.customer_id
    assert read.organization_id == created.organization_id
    assert read.available_payment_methods is None  # only with includePaymentMethods=true

    with_methods = sandbox_client.customers.get(customer_id=created.customer_id, include_payment_methods=True)
    assert with_methods.available_payment_methods == []  # not ACTIVE yet


def test_active_customer_has_payment_methods(sandbox_client, helpers):
    customer = active_customer(sandbox_client, helpers)

    read = sandbox_client.customers.get(customer_id=customer.customer_id, include_payment_methods=True)

    assert {"ACH", "WIRE", "BASE", "ETHEREUM"} <= set(read.available_payment_methods)


def test_create_business_customer(sandbox_client):
    customer = sandbox_client.customers.create(
        customer_type=CustomerType.BUSINESS, email="ops@acme.example", business_name="Acme Ltd"
    )

    assert customer.customer_type == CustomerType.BUSINESS and customer.name == "Acme Ltd"


def test_create_customer_validation_error_names_the_field(sandbox_client):
    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.create(customer_type="BUSINESS", email="ops@acme.example")

    assert ("businessName",) in [error.path for error in caught.value.field_errors]


def test_kyc_without_the_national_id_triple_is_rejected(sandbox_client):
    partial = KYC.model_copy(update={"national_id_number": None, "national_id_issuing_country": None})

    with pytest.raises(ValidationFailed) as caught:
        new_customer(sandbox_client, kyc_data=partial)

    fields = caught.value.messages_by_field()
    assert "kycData.nationalIdNumber" in fields
    assert "kycData.nationalIdIssuingCountry" in fields


def test_update_customer_kyc_starts_the_review(sandbox_client):
    customer = new_customer(sandbox_client)

    updated = sandbox_client.customers.update(customer_id=customer.customer_id, kyc_data=KYC)

    assert updated.customer_id == customer.customer_id
    assert updated.customer_status == CustomerStatus.UNDER_REVIEW


def test_review_issues_are_read_as_verification_issues(sandbox_client, helpers):
    customer = new_customer(sandbox_client, kyc_data=KYC)
    helpers.review(
        customer.customer_id,
        "NEEDS_ADDITIONAL_INFORMATION",
        [{"code": "DOCUMENT_MISSING_BACK", "message": "Upload the back of the ID"}],
    )

    read = sandbox_client.customers.get(customer_id=customer.customer_id)

    assert read.customer_status == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION
    assert [issue.code for issue in read.verification_issues] == ["DOCUMENT_MISSING_BACK"]
    assert read.verification_issues[0].timestamp is not None


def test_update_customer_validation_error(sandbox_client):
    customer = new_customer(sandbox_client)

    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.update(customer_id=customer.customer_id, kyc_data={"nationalIdType": "ssn"})

    assert "kycData.nationalIdNumber" in caught.value.messages_by_field()


def test_unknown_customer_is_not_found(sandbox_client):
    missing = str(uuid.uuid4())

    with pytest.raises(NotFound) as caught:
        sandbox_client.customers.get(customer_id=missing)

    assert missing in caught.value.message


def test_list_and_iterate_customers(sandbox_client):
    ids = {new_customer(sandbox_client).customer_id for _ in range(5)}

    first = sandbox_client.customers.list(page_size=2)
    assert len(first.items) == 2 and first.next_page_token
    assert all(c.available_payment_methods is not None for c in first.items)  # present in list items

    assert {c.customer_id for c in sandbox_client.customers.iter(page_size=2)} == ids
    organization = first.items[0].organization_id
    assert {c.customer_id for c in sandbox_client.customers.iter(organization_id=organization)} == ids


def test_last_page_has_no_token(sandbox_client):
    new_customer(sandbox_client)

    page = sandbox_client.customers.list(page_size=100)

    assert len(page.items) == 1 and page.next_page_token is None


@pytest.mark.parametrize("size", [0, 101])
def test_page_size_out_of_range_is_a_validation_error(sandbox_client, size):
    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.customers.list(page_size=size)

    assert caught.value.field_errors[0].path == ("pageSize",)
    assert caught.value.field_errors[0].location == "query"
