"""Bearer API keys: 401 without a valid key, 403 for writes with a read-only key and for
another organization's records."""

import uuid

import pytest

from sandbox.models import Customer

from .conftest import SandboxClient, assert_error, customer_body


@pytest.fixture
def other_org_customer(make_api, customer_factory):
    """An ACTIVE customer of another organization than the `api` key's."""
    return customer_factory("ACTIVE", client=make_api())


# --- 401 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/customers"),
        ("post", "/customers"),
        ("get", f"/customer/{uuid.uuid4()}"),
        ("post", "/test-helpers/clock/advance"),
    ],
)
def test_no_key_is_unauthorized(db, method, path):
    response = getattr(SandboxClient(None), method)(path)

    body = assert_error(response, 401, "UNAUTHORIZED")
    assert body["message"] == "Missing API key: send 'Authorization: Bearer <API key>'"
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "key",
    ["sbx_000000000000_unknownsecret", "not-a-sandbox-key", "sbx_only"],
)
def test_unknown_key_is_unauthorized(db, key):
    body = assert_error(SandboxClient(key).get("/customers"), 401, "UNAUTHORIZED")
    assert body["message"] == "Invalid API key"


def test_right_prefix_wrong_secret_is_unauthorized(api):
    prefix = api.plain_key.split("_")[1]

    assert_error(SandboxClient(f"sbx_{prefix}_wrongsecret").get("/customers"), 401, "UNAUTHORIZED")


@pytest.mark.parametrize("header", ["Token abc", "Basic dXNlcjpwYXNz", "Bearer", "Bearer    "])
def test_other_schemes_are_unauthorized(db, header):
    response = SandboxClient(None).client.get("/sandbox/customers", HTTP_AUTHORIZATION=header)

    body = assert_error(response, 401, "UNAUTHORIZED")
    assert body["message"] == "Authorization must be 'Bearer <API key>'"


def test_the_scheme_is_case_insensitive(api):
    response = SandboxClient(None).client.get("/sandbox/customers", HTTP_AUTHORIZATION=f"bearer {api.plain_key}")
    assert response.status_code == 200


def test_no_record_is_created_without_a_key(db):
    SandboxClient(None).post("/customers", customer_body())

    assert Customer.objects.count() == 0


# --- Read-only keys -----------------------------------------------------------------------------


def test_read_only_key_reads(make_api, api_key, customer_factory):
    reader = make_api(read_only=True, organization_id=api_key[0].organization_id)
    customer = customer_factory("ACTIVE")

    assert reader.get("/customers").status_code == 200
    assert reader.get(f"/customer/{customer['customerId']}").status_code == 200
    assert reader.get(f"/customers/{customer['customerId']}").status_code == 200


def test_read_only_key_cannot_write(make_api, api_key, customer_factory):
    reader = make_api(read_only=True, organization_id=api_key[0].organization_id)
    customer = customer_factory("UNDER_REVIEW")
    cid = customer["customerId"]

    for response in [
        reader.post("/customers", customer_body()),
        reader.patch(f"/customers/{cid}", {"kycData": {"nationality": "FR"}}),
        reader.post(f"/test-helpers/customers/{cid}/review", {"outcome": "ACTIVE"}),
        reader.post(f"/test-helpers/customers/{cid}/deactivate"),
        reader.post("/test-helpers/clock/advance", {"seconds": 1}),
    ]:
        body = assert_error(response, 403, "FORBIDDEN")
        assert body["message"] == "This API key is read-only"


def test_builder_tier_key_works(make_api):
    assert make_api(tier="builder").post("/customers", customer_body()).status_code == 201


# --- Other organizations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("get", "/customer/{id}", None),
        ("get", "/customers/{id}", None),
        ("patch", "/customers/{id}", {"kycData": {"nationality": "FR"}}),
        ("post", "/test-helpers/customers/{id}/review", {"outcome": "ACTIVE"}),
        ("post", "/test-helpers/customers/{id}/deactivate", None),
    ],
)
def test_another_organizations_customer_is_forbidden(api, other_org_customer, method, path, data):
    response = getattr(api, method)(path.format(id=other_org_customer["customerId"]), data)

    body = assert_error(response, 403, "FORBIDDEN")
    assert body["message"] == "This record belongs to another organization"


def test_another_organizations_customer_is_untouched(api, make_api, other_org_customer):
    api.post(f"/test-helpers/customers/{other_org_customer['customerId']}/deactivate")

    assert Customer.objects.get(pk=other_org_customer["customerId"]).status == "ACTIVE"


def test_listing_another_organization_is_forbidden(api, other_org_customer):
    response = api.get("/customers", {"organizationId": other_org_customer["organizationId"]})

    assert_error(response, 403, "FORBIDDEN")


def test_keys_of_one_organization_share_its_customers(make_api):
    organization = uuid.uuid4()
    writer, reader = make_api(organization_id=organization), make_api(organization_id=organization, read_only=True)
    customer = writer.post("/customers", customer_body()).json()

    assert reader.get(f"/customer/{customer['customerId']}").json() == customer
    assert [c["customerId"] for c in reader.get("/customers").json()["customers"]] == [customer["customerId"]]
