"""{base_url}/openapi.json describes the sandbox's operations, parameters and bodies."""

import json

import pytest

from .conftest import SandboxClient


@pytest.fixture
def document(db):
    """openapi.json fetched without any API key."""
    response = SandboxClient(None).client.get("/sandbox/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/")
    return json.loads(response.content)


def test_document_is_openapi_json_with_paths(document):
    assert document["openapi"].startswith("3.")
    assert document["info"]["title"] == "Payments API sandbox"
    assert document["info"]["version"] == "1.0.0"
    assert isinstance(document["paths"], dict) and document["paths"]


@pytest.mark.parametrize(
    ("path", "method", "operation_id"),
    [
        ("/customers", "post", "createCustomer"),
        ("/customers", "get", "listCustomers"),
        ("/customer/{customerId}", "get", "getCustomer"),
        ("/customers/{customerId}", "get", "getCustomerByCustomersPath"),
        ("/customers/{customerId}", "patch", "updateCustomer"),
        ("/test-helpers/customers/{customerId}/review", "post", "testHelperReviewCustomer"),
        ("/test-helpers/customers/{customerId}/deactivate", "post", "testHelperDeactivateCustomer"),
        ("/test-helpers/clock/advance", "post", "testHelperAdvanceClock"),
    ],
)
def test_customer_operations_are_described(document, path, method, operation_id):
    operation = document["paths"][path][method]

    assert operation["operationId"] == operation_id
    assert operation["security"] == [{"bearerAuth": []}]
    for status in ("400", "401", "403"):
        assert operation["responses"][status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }


def test_only_existing_operations_on_customer_paths(document):
    assert set(document["paths"]["/customers"]) == {"get", "post"}
    assert set(document["paths"]["/customers/{customerId}"]) == {"get", "patch"}
    assert set(document["paths"]["/customer/{customerId}"]) == {"get"}


def test_reads_of_one_customer_name_their_404(document):
    for path, method in [("/customer/{customerId}", "get"), ("/customers/{customerId}", "patch")]:
        assert "404" in document["paths"][path][method]["responses"]


def test_parameters_are_described(document):
    def names(path, method):
        return {p["name"]: p for p in document["paths"][path][method]["parameters"]}

    listing = names("/customers", "get")
    assert set(listing) == {"pageToken", "pageSize", "organizationId"}
    assert listing["pageSize"]["schema"] == {"type": "integer", "default": 10, "minimum": 1, "maximum": 100}
    read = names("/customer/{customerId}", "get")
    assert read["includePaymentMethods"]["schema"]["type"] == "boolean"
    assert read["customerId"]["in"] == "path"


def test_bodies_are_described(document):
    schemas = document["components"]["schemas"]
    create = document["paths"]["/customers"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    create = schemas[create["$ref"].rsplit("/", 1)[1]]

    assert set(create["required"]) == {"customerType", "email"}
    assert set(create["properties"]) == {
        "customerType",
        "email",
        "firstName",
        "lastName",
        "businessName",
        "kycData",
        "kybData",
    }
    assert {"nationalIdType", "documents", "isIntermediary"} <= set(schemas["KycDataRequest"]["properties"])
    assert schemas["KycDataRequest"]["properties"]["dateOfBirth"]["format"] == "date"
    assert len(schemas["BusinessTypeEnum"]["enum"]) == 14
    assert "title" in schemas["AssociatedPersonRequest"]["properties"]
    assert "title" not in schemas["KycDataRequest"]["properties"]


def test_customer_object_is_described(document):
    customer = document["components"]["schemas"]["Customer"]

    assert set(customer["properties"]) == {
        "customerId",
        "customerStatus",
        "customerType",
        "name",
        "email",
        "verificationLink",
        "updatedAt",
        "organizationId",
        "availablePaymentMethods",
        "verificationIssues",
    }
    # Conditional fields are not required.
    assert "availablePaymentMethods" not in customer["required"]
    assert "verificationIssues" not in customer["required"]
    assert document["components"]["schemas"]["CustomerList"]["properties"]["nextPageToken"]["nullable"] is True


def test_error_body_is_described(document):
    error = document["components"]["schemas"]["Error"]

    assert set(error["properties"]) == {"message", "code", "details", "statusCode"}
    assert "VALIDATION_ERROR" in document["components"]["schemas"]["ErrorCodeEnum"]["enum"]


def test_bearer_scheme_is_declared(document):
    assert document["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "Authorization: Bearer <API key>",
    }


def test_the_document_describes_itself_not(document):
    assert "/openapi.json" not in document["paths"]
