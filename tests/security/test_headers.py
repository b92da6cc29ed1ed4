"""Response headers and markup: a strict CSP that the pages actually keep (no inline script,
handler or style), no framing of the back-office while the sandbox's hosted forms stay
embeddable, and HSTS, secure cookies and a Referrer-Policy once DEBUG is off."""

import json
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.backoffice.test_settings import PRODUCTION, manage
from tests.security.common import GETS, MATRIX, allowed_role, url_of

pytestmark = pytest.mark.django_db


def policy(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy", "")
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


class InlineFinder(HTMLParser):
    """Collects what a strict CSP would block: inline scripts, on* handlers, style attributes
    and <style> elements, javascript: URLs. A JSON data block (<script type="application/json">,
    allauth's passkey settings) is not run and not blocked."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and not names.get("src") and names.get("type") != "application/json":
            self.problems.append("inline <script>")
        if tag == "style":
            self.problems.append("<style> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name == "style":
                self.problems.append(f"<{tag} style=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}=javascript:...>")


def inline_problems(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.problems


def assert_back_office_headers(response, label) -> None:
    csp = policy(response)
    scripts = csp.get("script-src", csp.get("default-src"))
    assert scripts == ["'self'"], (label, scripts)
    assert "'unsafe-inline'" not in csp.get("style-src", []), label
    assert csp.get("frame-ancestors") == ["'none'"], label
    assert csp.get("object-src") == ["'none'"] and csp.get("base-uri") == ["'self'"], label
    assert response.headers.get("X-Frame-Options") == "DENY", label
    assert response.headers.get("Referrer-Policy") == "same-origin", label
    assert response.headers.get("X-Content-Type-Options") == "nosniff", label


@pytest.mark.parametrize("name", GETS)
def test_every_page_has_a_strict_csp_and_keeps_it(client_as, name):
    access = MATRIX[name]
    client = client_as(allowed_role(name))
    data = access.data() if access.data else {}
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = client.get(url_of(name), data, **headers)
        assert response.status_code == 200, name
        assert_back_office_headers(response, name)
        if response.streaming:  # the CSV export
            continue
        assert inline_problems(response.content.decode()) == [], (name, headers)


def test_error_pages_and_login_have_the_same_headers(client, client_as):
    pages = {
        "login": client.get(reverse("account_login")),
        "403": client_as("operations").get(reverse("audit-list-events")),
        "404": client.get("/no/such/page/"),
    }
    for label, response in pages.items():
        assert_back_office_headers(response, label)
        assert inline_problems(response.content.decode()) == [], label


def test_form_pages_with_errors_keep_the_csp(client_as):
    """A form that comes back with errors (and kept documents) has no inline script either."""
    from tests.factories import CustomerFactory

    customer = CustomerFactory()
    response = client_as("compliance").post(
        reverse("customers-edit-kyc", args=[customer.customer_id]),
        {"phone_number": "0123", "legal_first_name": '"><script>alert(1)</script>'},
    )
    assert response.status_code == 200
    assert_back_office_headers(response, "kyc with errors")
    assert inline_problems(response.content.decode()) == []


def test_the_hosted_forms_stay_embeddable(client, upstream):
    """Integrators frame the sandbox's hosted forms: no X-Frame-Options, frame-ancestors *,
    and the rest of the policy as strict as the back-office's."""
    customer = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "e@example.com", "firstName": "E", "lastName": "F"},
    )
    account = upstream.call(
        "POST",
        "/payment-accounts",
        {
            "customerId": customer["customerId"],
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": "Ada",
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "ACH",
            },
        },
    )
    for link in (customer["verificationLink"], account["bankAccountFormLink"]):
        response = client.get(link.removeprefix("http://testserver"))
        assert response.status_code == 200, link
        assert "X-Frame-Options" not in response.headers
        csp = policy(response)
        assert csp["frame-ancestors"] == ["*"]
        assert csp.get("script-src", csp.get("default-src")) == ["'self'"]
        assert inline_problems(response.content.decode()) == []


def test_the_sandbox_api_is_not_framable(client, upstream):
    response = client.get("/sandbox/openapi.json")
    assert response.headers.get("X-Frame-Options") == "DENY"


def test_production_headers_and_cookies():
    """DEBUG=0 in a separate process: HSTS, secure cookies, HTTPS redirect, Referrer-Policy."""
    code = (
        "import json; from django.test import Client; from django.conf import settings as s;"
        # No collectstatic here: plain static storage, the manifest is not what is tested.
        "s.STORAGES = {**s.STORAGES, 'staticfiles': {'BACKEND': "
        "'django.contrib.staticfiles.storage.StaticFilesStorage'}};"
        "c = Client(HTTP_HOST='backoffice.example.com');"
        "r = c.get('/accounts/login/', secure=True); plain = c.get('/accounts/login/');"
        "print(json.dumps({'status': r.status_code, 'headers': dict(r.headers),"
        " 'csrf_cookie_secure': bool(r.cookies['csrftoken']['secure']),"
        " 'csrf_cookie_httponly': bool(r.cookies['csrftoken']['httponly']),"
        " 'csrf_cookie_samesite': r.cookies['csrftoken']['samesite'],"
        " 'plain_status': plain.status_code, 'plain_location': plain.headers.get('Location'),"
        " 'session_secure': s.SESSION_COOKIE_SECURE, 'session_httponly': s.SESSION_COOKIE_HTTPONLY,"
        " 'session_samesite': s.SESSION_COOKIE_SAMESITE}))"
    )
    result = manage("shell", "-c", code, env=PRODUCTION)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    headers = {k.lower(): v for k, v in seen["headers"].items()}
    assert seen["status"] == 200
    assert headers["strict-transport-security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "'unsafe-inline'" not in headers["content-security-policy"]
    assert seen["csrf_cookie_secure"] and seen["csrf_cookie_httponly"] and seen["csrf_cookie_samesite"] == "Lax"
    assert seen["session_secure"] and seen["session_httponly"] and seen["session_samesite"] == "Lax"
    assert (seen["plain_status"], seen["plain_location"]) == (301, "https://backoffice.example.com/accounts/login/")
