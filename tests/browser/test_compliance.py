"""A compliance reviewer's day in the browser, against a live server whose upstream is the
mounted sandbox over real HTTP (webhooks included)."""

import base64
import re
import time

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.nav import follow, nav_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A real 1x1 PNG, so that the preview shows an image.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
PASSWORD = "correct horse battery"


@pytest.fixture
def api(settings, live_server):
    """The back-office calls the sandbox of the live server over HTTP, and gets its webhooks."""
    from sandbox.auth import create_key
    from upstream.client import get_client

    _key, plain = create_key()
    settings.PAYMENTS_API_BASE_URL = live_server.url + "/sandbox"
    settings.PAYMENTS_API_KEY = plain
    settings.PAYMENTS_API_IN_PROCESS = False
    call_command("register_webhook", "--url", live_server.url + "/webhooks/payments")
    return get_client()


@pytest.fixture
def images(tmp_path):
    paths = {}
    for name in ("front", "back", "bill"):
        paths[name] = tmp_path / f"{name}.png"
        paths[name].write_bytes(PNG)
    return paths


def log_in(page, live_server, username):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome, {username}")).to_be_visible()


def mirror(api, customer_id):
    from customers.models import Customer
    from customers.upserts import customers_upsert
    from upstream.mirrored import Source

    customers_upsert(items=[api.customers.get(customer_id=customer_id)], seen_by=Source.SYNC)
    return Customer.objects.get(customer_id=customer_id)


def missing_back(api, settings):
    """An individual whose ID lacks its back: the sandbox's review says DOCUMENT_MISSING_BACK."""
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 0
    image = "data:image/png;base64," + base64.b64encode(PNG).decode()
    created = api.customers.create(
        customer_type="INDIVIDUAL",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        kyc_data={
            "nationalIdType": "ssn",
            "nationalIdNumber": "123456789",
            "nationalIdIssuingCountry": "US",
            "documents": [
                {"type": "GOVERNMENT_ID", "subtype": "NATIONAL_ID", "frontIdImage": image, "proofOfAddressImage": image}
            ],
        },
    )
    # Later reviews wait for the test to decide them (through the sandbox's test helper).
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 3600
    return mirror(api, created.customer_id)


def test_reviewer_resolves_a_missing_back(page, live_server, make_staff, screenshot, api, settings, images):
    from customers.models import Customer

    customer = missing_back(api, settings)
    assert customer.status == "NEEDS_ADDITIONAL_INFORMATION"
    acme = api.customers.create(customer_type="BUSINESS", email="hello@acme.test", business_name="Acme Ltd")
    mirror(api, acme.customer_id)  # CREATED, and no event says so
    make_staff("compliance")
    log_in(page, live_server, "compliance-user")

    follow(page, nav_link(page, "Customers and cases", "Customers"))
    page.get_by_role("combobox", name="Show").select_option("all")
    expect(page.locator("#results")).to_contain_text("Acme Ltd")
    page.get_by_label("Needs additional information").check()
    # The filter is in the address bar: shareable, and the back button returns to it.
    expect(page).to_have_url(re.compile(r"/customers/\?view=all&.*status=NEEDS_ADDITIONAL_INFORMATION"))
    expect(page.locator("#results")).not_to_contain_text("Acme Ltd")
    # The issue in staff words, its code on hover.
    expect(page.locator("#results")).to_contain_text("Back of ID missing")
    expect(page.locator('#results [title="DOCUMENT_MISSING_BACK"]').first).to_be_visible()
    screenshot("queue", docs="review-queue.png")

    follow(page, page.get_by_role("link", name="Ada Lovelace"))
    expect(page.get_by_text("The back of the identity document is missing.")).to_be_visible()
    screenshot("customer", docs="customer-page.png")

    follow(page, page.get_by_role("link", name="Edit KYC"))
    page.get_by_label("Document type").select_option("GOVERNMENT_ID")
    page.get_by_label("Document kind").select_option("NATIONAL_ID")
    page.get_by_label("Front of the ID").set_input_files(images["front"])
    page.get_by_label("Back of the ID").set_input_files(images["back"])
    page.get_by_label("Proof of address").set_input_files(images["bill"])
    expect(page.locator("img.preview:visible")).to_have_count(3)
    screenshot("kyc-form", docs="kyc-form.png")
    page.get_by_role("button", name="Send KYC update").click()

    expect(page.locator("#customer-status")).to_have_text("Under review")
    expect(page.get_by_role("status")).to_contain_text("The customer is now Under review.")
    screenshot("submitted")

    # The page stays open while the reviewer types a note; it must follow the mirror and keep it.
    note = page.get_by_role("textbox", name="Internal note")
    note.fill("Waiting for the review of the new back side.")

    # The sandbox's review decides; its customer.update webhook brings ACTIVE into the mirror.
    upstream = api._http  # the same HTTP client and key as the back-office
    response = upstream.post(
        f"{settings.PAYMENTS_API_BASE_URL}/test-helpers/customers/{customer.customer_id}/review",
        json={"outcome": "ACTIVE"},
        headers={"Authorization": f"Bearer {settings.PAYMENTS_API_KEY}"},
    )
    assert response.status_code == 200, response.text
    for _ in range(50):  # the event is delivered and processed by the live server's threads
        if Customer.objects.get(pk=customer.pk).status == "ACTIVE":
            break
        time.sleep(0.2)
    assert Customer.objects.get(pk=customer.pk).status == "ACTIVE"
    # No reload: within 5 s of the mirror's change the open page shows it.
    expect(page.locator("#customer-status")).to_have_text("Active", timeout=5000)
    expect(note).to_have_value("Waiting for the review of the new back side.")
    expect(page.locator(".timeline")).to_contain_text("Under review → Active")
    expect(page.locator(".timeline")).to_contain_text("seen by webhook")
    screenshot("active")


def test_kyb_update_adds_an_associated_person(page, live_server, make_staff, screenshot, api, images):
    from sandbox.models import Customer as SandboxCustomer

    created = api.customers.create(customer_type="BUSINESS", email="hello@acme.test", business_name="Acme Ltd")
    mirror(api, created.customer_id)
    make_staff("compliance")
    log_in(page, live_server, "compliance-user")
    page.goto(f"{live_server.url}/customers/{created.customer_id}/kyb")

    page.get_by_label("Legal form").select_option("LIMITED_LIABILITY_COMPANY")
    page.get_by_label("Registration country").select_option("GB")
    person = page.locator("#persons-0")
    person.get_by_label("Legal first name").fill("Ann")
    person.get_by_label("Legal last name").fill("Owner")
    person.get_by_label("Ownership (%)").fill("60")
    person.get_by_label("Control person").check()
    # A second person, added with htmx.
    page.get_by_role("button", name="Add a person").click()
    second = page.locator("#persons-1")
    expect(second).to_be_visible()
    second.get_by_label("Legal first name").fill("Bob")
    second.get_by_label("Legal last name").fill("Partner")
    second.get_by_label("Ownership (%)").fill("25")
    second.get_by_label("Street line 1").fill("1 High Street")
    second.get_by_label("City").fill("London")
    second.get_by_label("Country", exact=True).select_option("GB")
    page.locator("#documents-0").get_by_label("Document type").select_option("ARTICLES_OF_INCORPORATION")
    page.locator("#documents-0").get_by_label("File").set_input_files(images["front"])
    screenshot("kyb-form", docs="kyb-form.png")
    page.get_by_role("button", name="Send KYB update").click()

    expect(page.locator("#customer-status")).to_have_text("Under review")
    persons = SandboxCustomer.objects.get(id=created.customer_id).kyb_data["associatedPersons"]
    assert [(p["legalFirstName"], p["ownershipPercentage"]) for p in persons] == [("Ann", 0.6), ("Bob", 0.25)]
    screenshot("submitted")


def test_operations_reads_but_cannot_edit(page, live_server, make_staff, screenshot, api, settings):
    customer = missing_back(api, settings)
    make_staff("operations")
    log_in(page, live_server, "operations-user")
    page.goto(f"{live_server.url}/customers/{customer.customer_id}/")
    expect(page.get_by_text("The back of the identity document is missing.")).to_be_visible()
    for name in ("Edit KYC", "Refresh from the API", "Open hosted form", "Claim"):
        expect(page.get_by_role("button", name=name).or_(page.get_by_role("link", name=name))).to_have_count(0)
    screenshot("customer")
    response = page.goto(f"{live_server.url}/customers/{customer.customer_id}/kyc")
    assert response.status == 403
    expect(page.get_by_text("needs the role")).to_be_visible()
    screenshot("forbidden")


def test_queue_on_a_phone(page, live_server, make_staff, screenshot, api, settings):
    missing_back(api, settings)
    make_staff("compliance")
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server, "compliance-user")
    page.goto(f"{live_server.url}/customers/")
    expect(page.locator("#results")).to_contain_text("Ada Lovelace")
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391).slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""
    )
    assert width <= 390, (width, wide)
    screenshot("phone", docs="review-queue-phone.png")


def test_create_an_individual_with_kyc_and_two_documents(page, live_server, make_staff, screenshot, api, images):
    from sandbox.models import Customer as SandboxCustomer

    make_staff("compliance")
    log_in(page, live_server, "compliance-user")
    page.goto(f"{live_server.url}/customers/new")
    page.get_by_label("Individual").check()
    # Only the chosen type's data part is offered: the page rendered neither, its slot is fetched.
    expect(page.locator(".kyc-part")).to_be_visible()
    expect(page.locator(".kyb-part")).to_have_count(0)
    page.get_by_role("textbox", name="E-mail", exact=True).first.fill("grace@example.com")
    page.get_by_label("First name", exact=True).fill("Grace")
    page.get_by_label("Last name", exact=True).fill("Hopper")
    kyc = page.locator(".kyc-part")
    kyc.get_by_text("KYC data of the individual (optional)").click()
    kyc.get_by_label("ID type").select_option("ssn")
    kyc.get_by_label("ID number").fill("123456789")
    # The business part is fetched when its type is chosen; back to an individual, what was
    # typed in the KYC part is still there.
    page.get_by_label("Business", exact=True).check()
    expect(page.locator(".kyb-part")).to_be_visible()
    expect(kyc).to_be_hidden()
    page.get_by_label("Individual").check()
    expect(page.locator(".kyb-part")).to_be_hidden()
    expect(kyc.get_by_label("ID number")).to_have_value("123456789")
    kyc.get_by_label("Issuing country").select_option("US")
    kyc.get_by_label("Document type").select_option("GOVERNMENT_ID")
    kyc.get_by_label("Document kind").select_option("NATIONAL_ID")
    kyc.get_by_label("Front of the ID").set_input_files(images["front"])
    kyc.get_by_label("Back of the ID").set_input_files(images["back"])
    kyc.get_by_label("Proof of address").set_input_files(images["bill"])
    # A second identity document, added with htmx.
    page.get_by_role("button", name="Add another identity document").click()
    second = page.locator("#kyc_documents-0")
    expect(second).to_be_visible()
    second.get_by_label("Document type").select_option("GOVERNMENT_ID")
    second.get_by_label("Document kind").select_option("PASSPORT")
    second.get_by_label("Front of the ID").set_input_files(images["front"])
    screenshot("create-form")
    page.get_by_role("button", name="Create customer").click()

    expect(page.locator("#customer-status")).to_have_text("Under review")
    expect(page.get_by_role("status")).to_contain_text("Customer Grace Hopper created with documents")
    stored = SandboxCustomer.objects.get(email="grace@example.com").kyc_data
    assert [d["subtype"] for d in stored["documents"]] == ["NATIONAL_ID", "PASSPORT"]
    screenshot("created")
