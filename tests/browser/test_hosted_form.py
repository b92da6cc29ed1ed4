import pytest
from playwright.sync_api import expect

from sandbox.auth import create_key
from sandbox.models import Customer
from sandbox.services.customers import customer_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def test_customer_fills_the_hosted_kyc_form(page, live_server, screenshot, tmp_path):
    api_key, _ = create_key()
    customer = customer_create(
        api_key=api_key,
        data={"customerType": "INDIVIDUAL", "email": "ada@example.com", "firstName": "Ada", "lastName": "Lovelace"},
    )
    front, back = tmp_path / "front.png", tmp_path / "back.png"
    front.write_bytes(PNG)
    back.write_bytes(PNG)

    page.goto(f"{live_server.url}/sandbox/forms/verify/{customer.verification_token}")
    expect(page.get_by_role("heading", name="Verify your identity")).to_be_visible()
    page.get_by_label("Legal first name").fill("Ada")
    page.get_by_label("Legal last name").fill("Lovelace")
    page.get_by_label("Date of birth").fill("1990-12-10")
    page.get_by_label("Phone number").fill("+12025550123")
    page.get_by_label("Nationality", exact=True).select_option("US")
    page.get_by_label("National ID issued by").select_option("US")
    page.get_by_label("National ID number").fill("123-45-6789")
    page.get_by_label("Front of the ID (optional)").set_input_files(str(front))
    page.get_by_label("Back of the ID (optional)").set_input_files(str(back))
    page.get_by_label("Proof of address (optional)").set_input_files(str(front))
    screenshot("filled")
    page.get_by_role("button", name="Submit for verification").click()

    expect(page.get_by_role("heading", name="Details submitted")).to_be_visible()
    screenshot("submitted")
    row = Customer.objects.get(pk=customer.pk)
    assert row.status in ("UNDER_REVIEW", "ACTIVE")
    assert row.kyc_data["nationalIdType"] == "ssn"
    assert row.kyc_data["documents"][0]["backIdImage"].startswith("data:image/png;base64,")
