"""A reviewer answers a missing back from the KYC form: the form lists the issue and marks the
back; the back alone cannot be sent from the form (the API would replace the documents on file
with it), so the reviewer adds only the back on the hosted form the form offers, which keeps
the front and the proof of address on file. Live server, the mounted sandbox over HTTP."""

import base64
import time

import pytest
from playwright.sync_api import expect

from tests.browser.nav import follow
from tests.browser.test_compliance import PNG, api, log_in, mirror  # noqa: F401 (api is a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
IMAGE = "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_reviewer_adds_only_the_missing_back(page, live_server, make_staff, screenshot, api, settings, tmp_path):  # noqa: F811
    from customers.models import Customer
    from sandbox.models import Customer as SandboxCustomer

    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0
    created = api.customers.create(
        customer_type="INDIVIDUAL",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        kyc_data={
            "legalFirstName": "Ada",
            "legalLastName": "Lovelace",
            "dateOfBirth": "1990-12-10",
            "phoneNumber": "+12025550123",
            "nationality": "US",
            "nationalIdType": "ssn",
            "nationalIdNumber": "123456789",
            "nationalIdIssuingCountry": "US",
            "documents": [
                {"type": "GOVERNMENT_ID", "subtype": "NATIONAL_ID", "frontIdImage": IMAGE, "proofOfAddressImage": IMAGE}
            ],
        },
    )
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 3600  # the next review waits: the customer stays under review
    customer = mirror(api, created.customer_id)
    assert customer.status == "NEEDS_ADDITIONAL_INFORMATION"
    back = tmp_path / "back.png"
    back.write_bytes(PNG)
    make_staff("compliance")
    log_in(page, live_server, "compliance-user")

    page.goto(f"{live_server.url}/customers/{customer.customer_id}/")
    follow(page, page.get_by_role("link", name="Edit KYC"))
    issues = page.get_by_role("region", name="Open issues")
    expect(issues.locator('[title="DOCUMENT_MISSING_BACK"]')).to_have_text("Back of ID missing")
    back_field = page.locator(".field.asked").filter(has=page.get_by_label("Back of the ID"))
    expect(back_field).to_contain_text("Asked for: Back of ID missing")
    expect(page.locator(".field.resend")).to_have_count(3)  # type, front, proof of address: the set again
    expect(page.get_by_text("Other details (optional)")).to_be_visible()
    expect(page.get_by_label("Legal first name")).to_be_hidden()  # folded: no issue asks for it
    screenshot("kyc-issue")

    # The back alone, from the form: refused with the reason, the file kept, nothing sent.
    page.get_by_label("Back of the ID").set_input_files(back)
    page.get_by_role("button", name="Send KYC update").click()
    expect(page.locator(".error-box")).to_contain_text("Front of ID missing, Proof of address missing")
    expect(page.get_by_text("A file is kept from your last submit")).to_be_visible()
    screenshot("only-back-refused")

    # The hosted form keeps what is on file: there, the back alone is enough.
    with page.expect_popup() as opened:
        page.get_by_role("button", name="Add only what is missing on the hosted form").click()
    hosted = opened.value
    expect(hosted.get_by_label("Legal first name")).to_have_value("Ada")  # it shows what is on file
    hosted.get_by_label("Back of the ID").set_input_files(back)
    hosted.get_by_role("button", name="Submit for verification").click()
    expect(hosted.get_by_role("heading", name="Details submitted")).to_be_visible()

    documents = SandboxCustomer.objects.get(id=customer.customer_id).kyc_data["documents"]
    assert [sorted(k for k in doc if k.endswith("Image")) for doc in documents] == [
        ["backIdImage", "frontIdImage", "proofOfAddressImage"]
    ]
    for _ in range(50):  # its customer.update webhook reaches the live server
        if Customer.objects.get(pk=customer.pk).status == "UNDER_REVIEW":
            break
        time.sleep(0.2)
    page.goto(f"{live_server.url}/customers/{customer.customer_id}/")
    expect(page.locator("#customer-status")).to_have_text("Under review")
    expect(page.locator("#handouts")).to_contain_text("Opened the form to refill")
    screenshot("under-review")
