"""The customer list: pages, page sizes and tokens, organizations, query counts."""

import datetime as dt
import uuid

import pytest

from sandbox import clock
from sandbox.models import Customer, VerificationIssue

from .conftest import assert_error

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


# --- List ---------------------------------------------------------------------------------------


def test_list_items_carry_payment_methods_and_issues_by_status(api, customer_factory):
    active = customer_factory("ACTIVE")
    pending = customer_factory("NEEDS_ADDITIONAL_INFORMATION")

    response = api.get("/customers")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"customers", "nextPageToken"}
    assert body["nextPageToken"] is None
    by_id = {c["customerId"]: c for c in body["customers"]}
    assert by_id[active["customerId"]]["availablePaymentMethods"] == ["ACH", "WIRE", "SEPA", *CHAINS]
    assert "verificationIssues" not in by_id[active["customerId"]]
    assert by_id[pending["customerId"]]["availablePaymentMethods"] == []
    assert by_id[pending["customerId"]]["verificationIssues"][0]["code"] == "DOCUMENT_MISSING_BACK"


def test_list_is_empty_for_a_new_organization(api):
    assert api.get("/customers").json() == {"customers": [], "nextPageToken": None}


def test_list_pages_in_creation_order_with_default_size_10(api, customer_factory):
    created = [customer_factory("CREATED")["customerId"] for _ in range(12)]

    first = api.get("/customers").json()
    second = api.get("/customers", {"pageToken": first["nextPageToken"]}).json()

    assert [c["customerId"] for c in first["customers"]] == created[:10]
    assert [c["customerId"] for c in second["customers"]] == created[10:]
    assert second["nextPageToken"] is None


def test_list_last_page_exactly_full_has_no_next_token(api, customer_factory):
    for _ in range(3):
        customer_factory("CREATED")

    body = api.get("/customers", {"pageSize": 3}).json()

    assert len(body["customers"]) == 3
    assert body["nextPageToken"] is None


def test_list_keyset_survives_inserts_between_pages(api, customer_factory):
    first_ids = [customer_factory("CREATED")["customerId"] for _ in range(2)]
    page = api.get("/customers", {"pageSize": 1}).json()
    later = customer_factory("CREATED")["customerId"]

    rest = api.get("/customers", {"pageSize": 100, "pageToken": page["nextPageToken"]}).json()

    assert [c["customerId"] for c in rest["customers"]] == [first_ids[1], later]


def test_list_breaks_ties_of_creation_time_by_id(api, api_key):
    same_time = clock.now()
    ids = sorted(uuid.uuid4() for _ in range(5))
    Customer.objects.bulk_create(
        Customer(
            id=customer_id,
            organization_id=api_key[0].organization_id,
            customer_type="INDIVIDUAL",
            email="x@example.com",
            verification_token=str(customer_id),
            created_at=same_time,
            updated_at=same_time,
        )
        for customer_id in reversed(ids)
    )

    seen, token = [], None
    while True:
        body = api.get("/customers", {"pageSize": 2, **({"pageToken": token} if token else {})}).json()
        seen += [c["customerId"] for c in body["customers"]]
        token = body["nextPageToken"]
        if token is None:
            break

    assert seen == [str(i) for i in ids]


@pytest.mark.parametrize("size", ["0", "101", "-1", "ten", "2.5"])
def test_list_page_size_outside_1_to_100_is_refused(api, size):
    body = assert_error(api.get("/customers", {"pageSize": size}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == ["pageSize"]
    assert body["details"][0]["location"] == "query"


@pytest.mark.parametrize("size", ["1", "100"])
def test_list_page_size_bounds_are_accepted(api, size):
    assert api.get("/customers", {"pageSize": size}).status_code == 200


def test_list_empty_query_values_count_as_absent(api, customer_factory):
    customer = customer_factory("CREATED")

    body = api.get("/customers", {"pageToken": "", "pageSize": "", "organizationId": ""}).json()

    assert body == {"customers": [customer | {"availablePaymentMethods": []}], "nextPageToken": None}


@pytest.mark.parametrize("token", ["garbage", "bm90LWEtdG9rZW4", "!!!"])
def test_list_bad_page_token_is_refused(api, token):
    body = assert_error(api.get("/customers", {"pageToken": token}), 400, "VALIDATION_ERROR")
    assert body["details"] == [{"path": ["pageToken"], "message": body["details"][0]["message"], "location": "query"}]
    assert "nextPageToken" in body["details"][0]["message"]


def test_list_filters_by_own_organization(api, api_key, customer_factory):
    customer = customer_factory("CREATED")

    body = api.get("/customers", {"organizationId": str(api_key[0].organization_id)}).json()

    assert [c["customerId"] for c in body["customers"]] == [customer["customerId"]]


def test_list_organization_filter_must_be_a_uuid(api):
    body = assert_error(api.get("/customers", {"organizationId": "acme"}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == ["organizationId"]


def test_list_shows_only_the_keys_organization(api, make_api, customer_factory):
    mine = customer_factory("CREATED")
    customer_factory("CREATED", client=make_api())

    body = api.get("/customers").json()

    assert [c["customerId"] for c in body["customers"]] == [mine["customerId"]]


def _bulk_customers(organization_id, count):
    now = clock.now()
    statuses = ["CREATED", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION", "ACTIVE", "REJECTED"]
    customers = Customer.objects.bulk_create(
        Customer(
            organization_id=organization_id,
            customer_type="INDIVIDUAL",
            status=statuses[n % len(statuses)],
            email=f"c{n}@example.com",
            first_name="C",
            last_name=str(n),
            verification_token=f"token-{n}",
            created_at=now + dt.timedelta(microseconds=n),
            updated_at=now,
        )
        for n in range(count)
    )
    VerificationIssue.objects.bulk_create(
        VerificationIssue(customer=c, code="DOCUMENT_MISSING_BACK", message="m", timestamp=now)
        for c in customers
        if c.status in ("NEEDS_ADDITIONAL_INFORMATION", "REJECTED")
    )
    return customers


def test_list_query_count_is_constant_in_page_depth(api, api_key, django_assert_max_num_queries):
    _bulk_customers(api_key[0].organization_id, 350)

    token, pages, seen = None, 0, 0
    while True:
        # API key, one page of customers, their issues: no N+1, no OFFSET, no COUNT.
        with django_assert_max_num_queries(3) as captured:
            body = api.get("/customers", {"pageSize": 100, **({"pageToken": token} if token else {})}).json()
        sql = " ".join(q["sql"].upper() for q in captured.captured_queries)
        assert "OFFSET" not in sql
        assert "COUNT(" not in sql
        pages += 1
        seen += len(body["customers"])
        token = body["nextPageToken"]
        if token is None:
            break

    assert (pages, seen) == (4, 350)
