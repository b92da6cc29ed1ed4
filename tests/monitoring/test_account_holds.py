"""A screening true match leads an admin to hold the matched payment account in the back-office
(the Payments API cannot deactivate it): asked from the alert's page with a reason, approved by
a second admin in "Waiting for approval", and the held account links back to the alert."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from monitoring.models import Alert
from payments.models import ApprovalRequest
from tests.conftest import signed_in
from tests.monitoring.helpers import account, customer

pytestmark = pytest.mark.django_db

REASON = "The payee is the listed entity: hold it until the provider deactivates it."


@pytest.fixture
def ada(make_staff):
    return signed_in(make_staff("admin", "ada"))


@pytest.fixture
def ben(make_staff):
    return signed_in(make_staff("admin", "ben"))


def _screening_alert(*, account_ids, owner, decision="true_match") -> Alert:
    return Alert.objects.create(
        kind="screening",
        customer=owner,
        dedupe_key=f"hold:{len(account_ids)}:{owner.pk}",
        sentence="Payee name matches SDN entry 36 (score 96).",
        account_ids=account_ids,
        decision=decision,
        status="open" if decision in ("", "needs_more") else "decided",
    )


def _hold_url(alert, payee) -> str:
    return reverse("monitoring-hold-alert-account", kwargs={"pk": alert.pk, "account_pk": payee.pk})


def test_a_true_match_offers_the_hold_to_an_admin_only(ada, make_staff):
    owner = customer()
    payee = account(owner, third_party=True)
    alert = _screening_alert(account_ids=[payee.account_id], owner=owner, decision="")
    url = reverse("monitoring-view-alert", kwargs={"pk": alert.pk})
    assert _hold_url(alert, payee) not in ada.get(url).content.decode()  # not decided yet

    Alert.objects.filter(pk=alert.pk).update(decision="true_match", status="decided")
    page = ada.get(url).content.decode()
    assert 'id="no-deactivate"' in page and "ask the provider to deactivate it" in page
    assert f'action="{_hold_url(alert, payee)}"' in page and "Hold in the back-office" in page
    compliance = signed_in(make_staff("compliance", "carl")).get(url).content.decode()
    assert 'id="no-deactivate"' in compliance and _hold_url(alert, payee) not in compliance


def test_the_hold_asked_from_the_alert_is_approved_by_another_admin_and_links_back(ada, ben, make_staff):
    owner = customer(name="Ada Lovelace")
    payee = account(owner, third_party=True, nickname="Payee")
    alert = _screening_alert(account_ids=[payee.account_id], owner=owner)
    alert_url = reverse("monitoring-view-alert", kwargs={"pk": alert.pk})

    response = ada.post(_hold_url(alert, payee), {"reason": REASON})
    approval = ApprovalRequest.objects.get()
    assert response["Location"] == reverse("payments-view-approval-request", args=[approval.pk])
    assert (approval.kind, approval.account, approval.payload["origin"]["url"]) == ("account_hold", payee, alert_url)
    page = ada.get(alert_url).content.decode()
    assert f"request {approval.pk}</a> by ada" in page and _hold_url(alert, payee) not in page

    checker_page = ben.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    facts = checker_page.split('id="approval-facts"')[1].split("</dl>")[0]
    assert f'href="{alert_url}">Screening alert #{alert.pk}</a>' in facts and REASON in facts
    assert f"#{alert.pk}: Payee name matches SDN entry 36" in facts
    ben.post(reverse("payments-approve-approval-request", args=[approval.pk]))
    payee.refresh_from_db()
    assert payee.is_held and payee.hold_reason == REASON and payee.held_by.username == "ada"
    assert AuditEvent.objects.filter(action="payment_account.hold", outcome="success").count() == 1

    page = ada.get(alert_url).content.decode()
    assert ">Held</span>" in page and "by ada since" in page and "Hold in the back-office</button>" not in page
    account_page = ada.get(reverse("payments-view-payment-account", args=[payee.pk])).content.decode()
    assert f'<a href="{alert_url}">Screening alert #{alert.pk}</a>' in account_page
    # Operations read the account and its hold, not the alert: no link to a page they cannot open.
    operations = signed_in(make_staff("operations", "olga"))
    account_page = operations.get(reverse("payments-view-payment-account", args=[payee.pk])).content.decode()
    assert 'id="held-badge"' in account_page and alert_url not in account_page
    checker_page = operations.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert alert_url not in checker_page


def test_only_a_true_match_and_only_its_accounts(ada):
    owner = customer()
    payee, other = account(owner, third_party=True), account(customer())
    alert = _screening_alert(account_ids=[payee.account_id], owner=owner, decision="false_positive")
    page = ada.post(_hold_url(alert, payee), {"reason": REASON}, follow=True).content.decode()
    assert "A hold is asked from a screening alert decided a true match." in page
    Alert.objects.filter(pk=alert.pk).update(decision="true_match")
    page = ada.post(_hold_url(alert, other), {"reason": REASON}, follow=True).content.decode()
    assert "This account is not one of the alert&#x27;s." in page
    page = ada.post(_hold_url(alert, payee), {"reason": ""}, follow=True).content.decode()
    assert "Nothing was asked: This field is required." in page
    assert not ApprovalRequest.objects.exists()


def test_a_hit_on_the_customers_own_name_offers_the_customers_accounts(ada):
    owner = customer(name="Listed Person")
    bank, wallet = account(owner, nickname="Bank"), account(owner, nickname="Wallet")
    account(customer(), nickname="Someone else's")
    alert = _screening_alert(account_ids=[], owner=owner)
    page = ada.get(reverse("monitoring-view-alert", kwargs={"pk": alert.pk})).content.decode()
    assert "The customer's payment accounts" in page
    assert _hold_url(alert, bank) in page and _hold_url(alert, wallet) in page
    assert "Someone else" not in page
    assert ada.post(_hold_url(alert, wallet), {"reason": REASON}).status_code == 302
    assert ApprovalRequest.objects.get().account == wallet
