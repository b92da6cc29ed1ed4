"""A reviewer decides a rejected customer's case in the browser, and it leaves the queue."""

import pytest
from playwright.sync_api import expect

from tests.factories import CustomerFactory, VerificationIssueFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_offboards_a_rejected_case_and_it_leaves_the_queue(page, live_server, make_staff):
    make_staff("compliance", "rita")
    rejected = CustomerFactory(name="Rex Rejected", status="REJECTED")
    VerificationIssueFactory(customer=rejected, code="SANCTIONED_COUNTRY", message="SANCTIONED_COUNTRY")
    CustomerFactory(name="Una Undecided", status="UNDER_REVIEW")

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("rita")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Welcome, rita")).to_be_visible()

    page.goto(f"{live_server.url}/customers/")
    queue = page.locator("table.queue")
    expect(queue).to_contain_text("Rex Rejected")
    expect(queue).to_contain_text("Sanctioned country")
    page.get_by_role("link", name="Rex Rejected").click()

    page.get_by_label("Offboarded").check()
    page.get_by_label("Reason").fill("Sanctioned country confirmed; the provider cannot serve them.")
    page.get_by_role("button", name="Record decision").click()

    expect(page.locator("#case-decision")).to_contain_text("Offboarded")
    expect(page.locator("#timeline")).to_contain_text("Decision: Offboarded")
    expect(page.locator("#timeline")).to_contain_text("Sanctioned country confirmed")

    page.goto(f"{live_server.url}/customers/")
    expect(page.locator("table.queue")).to_contain_text("Una Undecided")
    expect(page.locator("table.queue")).not_to_contain_text("Rex Rejected")
