"""sandbox.standalone_urls: the sandbox routes at /sandbox/ and nothing of the back-office."""

import pytest
from django.urls import Resolver404, resolve, reverse

from sandbox.demo.keys import DEMO_API_KEY, ensure_demo_key

STANDALONE = "sandbox.standalone_urls"


@pytest.mark.urls(STANDALONE)
def test_the_sandbox_routes_resolve_at_sandbox():
    assert resolve("/sandbox/customers").url_name == "sandbox-list-create-customers"
    assert resolve("/sandbox/customer/abc").url_name == "sandbox-get-customer"
    assert resolve("/sandbox/openapi.json").url_name == "sandbox-openapi"
    assert reverse("sandbox-index") == "/sandbox/"


@pytest.mark.urls(STANDALONE)
@pytest.mark.parametrize("path", ["/login/", "/audit/", "/healthz", "/webhooks/payments", "/admin/"])
def test_nothing_of_the_back_office_resolves(path):
    with pytest.raises(Resolver404):
        resolve(path)


@pytest.mark.urls(STANDALONE)
def test_the_bare_address_redirects_to_the_sandbox_index(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/sandbox/"


@pytest.mark.urls(STANDALONE)
def test_the_api_answers_through_the_standalone_urlconf(client, db):
    ensure_demo_key()
    response = client.get("/sandbox/customers", HTTP_AUTHORIZATION=f"Bearer {DEMO_API_KEY}")
    assert response.status_code == 200, response.content
    assert response.json() == {"customers": [], "nextPageToken": None}


@pytest.mark.urls(STANDALONE)
def test_an_unknown_path_outside_the_sandbox_answers_the_spec_error_body(client):
    response = client.get("/login/")
    assert response.status_code == 404
    assert response.json() == {
        "message": "No operation at GET /login/",
        "code": "NOT_FOUND",
        "details": None,
        "statusCode": 404,
    }
