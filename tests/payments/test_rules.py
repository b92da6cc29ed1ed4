"""Automation rules: list per customer and source account, create and edit, against the sandbox.
A create or an edit is a request; the rule is written upstream when a second admin approves it."""

import datetime as dt
import itertools

import pytest
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from customers.models import Customer
from mirror.sync import sync_payment_accounts
from payments.forms.rules import AutomationRuleForm
from payments.models import ApprovalRequest, AutomationRule, PaymentAccount
from tests.conftest import authenticated_now
from tests.factories import CustomerFactory
from tests.payments.account_fixtures import make_account, make_customer
from tests.payments.transactions_helpers import rule_post_data

CREATE = reverse("payments-create-automation-rule")


@pytest.fixture
def setup(upstream):
    """An ACTIVE customer with a BASE service wallet and an ACH bank account, in the mirror."""
    customer_id = make_customer(upstream)
    service = make_account(upstream, customer_id, "service_wallet")
    bank = make_account(upstream, customer_id, "bank")
    wallet = make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    return {
        "customer_id": customer_id,
        "service": service["paymentAccountId"],
        "bank": bank["paymentAccountId"],
        "wallet": wallet["paymentAccountId"],
    }


@pytest.fixture
def admin(client, make_staff):
    client.force_login(make_staff("admin", "ann"))
    authenticated_now(client)
    return client


@pytest.fixture
def checker(make_staff):
    other = Client()
    other.force_login(make_staff("admin", "bob"))
    authenticated_now(other)
    return other


def approve(checker, response):
    """The checker approves the request the maker's POST redirected to; its page afterwards."""
    assert response.status_code == 302, response.content.decode()[:1000]
    approval = ApprovalRequest.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])
    answer = checker.post(reverse("payments-approve-approval-request", args=[approval.pk]))
    assert answer.status_code == 302
    approval.refresh_from_db()
    return approval


def rule_form(setup, **fields):
    data = rule_post_data(customer_id=setup["customer_id"], source=setup["service"], destination=setup["bank"])
    return {**data, **fields}


def errors_of(response) -> dict:
    return {name: [str(e) for e in errors] for name, errors in response.context["form"].errors.items()}


def test_admin_creates_a_cron_rule_which_waits_for_a_second_admin(admin, checker, setup):
    response = admin.post(CREATE, rule_form(setup, developer_fee="1.50"))
    assert response.status_code == 302
    assert not AutomationRule.objects.exists()  # nothing upstream until approved
    pending = ApprovalRequest.objects.get()
    assert response["Location"] == reverse("payments-view-approval-request", args=[pending.pk])
    assert (pending.kind, pending.status, pending.maker.username) == ("create_rule", "pending", "ann")
    page = admin.get(response["Location"]).content.decode()
    assert "Rule “Sweep USDC to the bank” waits for approval by another person." in page
    assert 'id="approve-button"' not in page and 'id="withdraw-button"' in page  # the maker cannot approve

    approval = approve(checker, response)
    assert (approval.status, approval.checker.username) == ("executed", "bob")
    rule = AutomationRule.objects.get()
    assert approval.rule == rule
    assert rule.trigger == {"cronSchedule": "0 9 * * 1-5", "type": "CRON_BASED"}
    assert rule.source_account_id == setup["service"]
    assert rule.transaction_template["amount"] == {"value": "50.00", "type": "FLAT"}
    assert rule.transaction_template["developerFee"] == {"developerFeeType": "USD", "developerFeeAmount": "1.50"}
    assert rule.customer.customer_id == setup["customer_id"]
    event = AuditEvent.objects.get(action="automation_rule.create")
    assert (event.target_id, event.actor_username) == (rule.rule_id, "bob")
    assert (event.details["maker"], event.details["checker"]) == ("ann", "bob")

    page = admin.get(reverse("payments-list-automation-rules")).content.decode()
    assert "<code>0 9 * * 1-5</code>" in page


def test_threshold_rule_amounts_are_decimals(admin, checker, setup):
    response = admin.post(
        CREATE, rule_form(setup, trigger_type="THRESHOLD", cron_schedule="", threshold_amount="100.25")
    )
    assert ApprovalRequest.objects.get().payload["trigger"] == {"thresholdAmount": "100.25"}  # a decimal string
    approve(checker, response)
    rule = AutomationRule.objects.get()
    assert rule.trigger == {"thresholdAmount": "100.25", "type": "THRESHOLD_BASED"}
    page = admin.get(reverse("payments-list-automation-rules")).content.decode()
    assert "When the source balance reaches 100.25" in page


NOT_DIGITS = "Type digits and an optional decimal point, such as 10.50 (no sign, exponent or spaces)."


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"cron_schedule": "* * * * * *"}, {"cron_schedule": ["Not a cron expression of five fields (minute hour day month weekday)."]}),
        ({"cron_schedule": "61 * * * *"}, {"cron_schedule": ["Not a cron expression of five fields (minute hour day month weekday)."]}),
        ({"cron_schedule": ""}, {"cron_schedule": ["Needed for a scheduled rule."]}),
        ({"trigger_type": "THRESHOLD", "threshold_amount": ""}, {"threshold_amount": ["Needed for a threshold rule."]}),
        ({"amount": "-5"}, {"amount": [NOT_DIGITS]}),
        ({"amount": "0.00"}, {"amount": ["Must be greater than 0."]}),
        ({"amount": "ten"}, {"amount": [NOT_DIGITS]}),
        ({"amount": "1e5"}, {"amount": [NOT_DIGITS]}),
        ({"developer_fee": "1.555"}, {"developer_fee": ["At most 2 decimal places."]}),
        ({"threshold_amount": "1" * 21, "trigger_type": "THRESHOLD"}, {"threshold_amount": ["Too large: at most 20 digits before the point."]}),
        ({"destination_payment_method": "ETHEREUM"}, {"destination_payment_method": ["BASE → ETHEREUM is crypto to crypto: a rule converts fiat to crypto or crypto to fiat."]}),
    ],
)  # fmt: skip
def test_local_validation_before_the_api(admin, setup, faulty_upstream, fields, errors):
    faulty_upstream.fail("down")
    response = admin.post(CREATE, rule_form(setup, **fields))
    assert response.status_code == 200
    assert errors_of(response) == errors
    assert not AutomationRule.objects.exists() and not ApprovalRequest.objects.exists()
    assert faulty_upstream.requests == [], "the API must not be called"


def test_an_api_refusal_on_approval_fails_the_request_with_the_reason(admin, checker, setup):
    # The sandbox: a threshold needs a source whose balance the service keeps.
    form = rule_form(setup, source_account_id=setup["wallet"], trigger_type="THRESHOLD", threshold_amount="10")
    approval = approve(checker, admin.post(CREATE, form))
    assert approval.status == "failed"
    assert approval.reason.startswith("The Payments API refused this:")
    assert not AutomationRule.objects.exists()
    assert AuditEvent.objects.filter(action="automation_rule.create", outcome="failure").count() == 1
    page = admin.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "Refused by the Payments API" in page and "The Payments API refused this:" in page


def test_inactive_customer(admin, checker, upstream, setup):
    upstream.helper(f"customers/{setup['customer_id']}/deactivate")
    approval = approve(checker, admin.post(CREATE, rule_form(setup)))
    assert approval.status == "failed"
    assert approval.reason.startswith("The Payments API refused this:") and "DEACTIVATED" in approval.reason
    assert not AutomationRule.objects.exists()


def test_api_down_on_approval_leaves_the_request_waiting(admin, checker, setup, faulty_upstream):
    response = admin.post(CREATE, rule_form(setup))
    faulty_upstream.fail("down")
    approval = approve(checker, response)
    assert (approval.status, approval.checker) == ("pending", None)
    page = checker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "The Payments API could not be reached; nothing was changed. Try again in a minute." in page
    assert "Errno" not in page
    assert not AutomationRule.objects.exists()
    event = AuditEvent.objects.get(action="automation_rule.create")
    assert (event.outcome, event.details["error"]) == ("failure", "ApiConnectionError")
    faulty_upstream.fail(None)
    assert approve(checker, response).status == "executed"
    assert AutomationRule.objects.count() == 1


def test_admin_edits_a_rule_with_put_once_approved(admin, checker, upstream, setup):
    approve(checker, admin.post(CREATE, rule_form(setup)))
    rule = AutomationRule.objects.get()
    edit = admin.get(reverse("payments-edit-automation-rule", args=[rule.pk]))
    form = edit.context["form"]
    assert form["source_currency"].value() == "USDC" and form["cron_schedule"].value() == "0 9 * * 1-5"
    assert form["customer_id"].field.disabled
    assert "In plain words: At 09:00 AM, Monday through Friday (UTC)" in edit.content.decode()

    other = make_customer(upstream, email="grace@example.com")
    changed = rule_form(
        setup, name="Sweep at 100", customer_id=other, trigger_type="THRESHOLD", threshold_amount="100", amount="75"
    )
    response = admin.post(reverse("payments-edit-automation-rule", args=[rule.pk]), changed)
    rule.refresh_from_db()
    assert rule.name == "Sweep USDC to the bank"  # unchanged until approved
    assert upstream.call("GET", f"/automation-rules/{rule.rule_id}")["name"] == "Sweep USDC to the bank"
    approval = approve(checker, response)
    assert (approval.kind, approval.rule) == ("change_rule", rule)
    rule.refresh_from_db()
    assert rule.name == "Sweep at 100"
    assert rule.customer_upstream_id == setup["customer_id"]  # a disabled field ignores what is posted
    assert rule.trigger == {"thresholdAmount": "100", "type": "THRESHOLD_BASED"}
    assert rule.transaction_template["amount"]["value"] == "75"
    assert upstream.call("GET", f"/automation-rules/{rule.rule_id}")["name"] == "Sweep at 100"
    event = AuditEvent.objects.get(action="automation_rule.update")
    assert (event.outcome, event.details["maker"], event.details["checker"]) == ("success", "ann", "bob")


def test_failed_edit_leaves_the_mirror_unchanged(admin, checker, setup):
    approve(checker, admin.post(CREATE, rule_form(setup)))
    rule = AutomationRule.objects.get()
    before = list(AutomationRule.objects.values())
    response = admin.post(
        reverse("payments-edit-automation-rule", args=[rule.pk]),
        rule_form(setup, name="Renamed", destination_currency="EUR"),
    )
    approval = approve(checker, response)
    assert approval.status == "failed" and "EUR" in approval.reason
    assert list(AutomationRule.objects.values()) == before


def test_list_per_customer_and_source(client_as, admin, checker, upstream, setup, django_assert_max_num_queries):
    approve(checker, admin.post(CREATE, rule_form(setup, name="From the service wallet")))
    approve(checker, admin.post(CREATE, rule_form(setup, name="From the bank", source_account_id=setup["bank"],
                                 source_payment_method="ACH", source_currency="USD",
                                 destination_account_id=setup["wallet"], destination_payment_method="BASE",
                                 destination_currency="USDC")))  # fmt: skip
    assert AutomationRule.objects.count() == 2
    client = client_as("auditor")
    url = reverse("payments-list-automation-rules")
    client.get(url)
    with django_assert_max_num_queries(6):
        everything = client.get(url)
    assert [r.name for r in everything.context["page"].items] == ["From the bank", "From the service wallet"]
    by_source = client.get(url, {"source": setup["bank"]})
    assert [r.name for r in by_source.context["page"].items] == ["From the bank"]
    by_customer = client.get(url, {"customer": setup["customer_id"]}, headers={"HX-Request": "true"})
    assert "<html" not in by_customer.content.decode() and "From the bank" in by_customer.content.decode()
    assert client.get(url, {"customer": "someone-else"}).context["page"].items == []
    assert "New rule" not in everything.content.decode()
    assert reverse("payments-edit-automation-rule", args=[AutomationRule.objects.first().pk]) not in (
        everything.content.decode()
    )


def test_new_rule_from_an_account_is_prefilled(admin, setup):
    response = admin.get(reverse("payments-create-automation-rule"), {"source": setup["service"]})
    form = response.context["form"]
    assert form["customer_id"].value() == setup["customer_id"]
    assert form["source_payment_method"].value() == "BASE"
    assert form["source_account_id"].value() == setup["service"]


def test_only_another_manage_rules_holder_may_approve_a_rule(admin, setup, client_as):
    response = admin.post(CREATE, rule_form(setup))
    approval = ApprovalRequest.objects.get()
    url = reverse("payments-approve-approval-request", args=[approval.pk])
    own = admin.post(url, follow=True).content.decode()
    assert "You made this request: another person must approve or reject it." in own
    # Operations moves money but does not manage rules.
    operations = client_as("operations")
    assert operations.post(url).status_code == 403
    page = operations.get(response["Location"]).content.decode()
    assert "Your role cannot approve this kind of request." in page
    approval.refresh_from_db()
    assert (approval.status, approval.checker) == ("pending", None)
    assert not AutomationRule.objects.exists()


def test_the_form_picks_the_customer_and_accounts_by_name(admin, setup):
    """The customer by the type-ahead the quote builder uses, the accounts among the chosen
    customer's own by name; the values sent stay ids."""
    blank = admin.get(CREATE).content.decode()
    assert "data-customer-picker" in blank and 'placeholder="Customer name, e-mail or id"' in blank
    assert 'name="customer_id" value=""' in blank and "Choose the customer first" in blank

    customer = Customer.objects.get(customer_id=setup["customer_id"])
    found = admin.get(reverse("payments-search-customers"), {"q": customer.email, "for": "id_customer_id"})
    assert f'data-pick-id="{setup["customer_id"]}"' in found.content.decode()

    # Choosing the customer asks for the form again (htmx), with what was typed kept.
    chosen = admin.get(CREATE, {"customer_id": setup["customer_id"], "name": "Weekday sweep"})
    form = chosen.context["form"]
    bank = PaymentAccount.objects.get(account_id=setup["bank"])
    assert (setup["bank"], bank.display_name) in form["source_account_id"].field.widget.choices
    assert form["name"].value() == "Weekday sweep"
    page = chosen.content.decode()
    assert f"<strong data-picker-name>{customer.name}</strong>" in page
    assert f'<option value="{setup["service"]}">' in page and "payment account id" not in page


def test_an_account_of_another_customer_is_refused_even_when_posted(admin, upstream, setup):
    other = make_customer(upstream, email="grace@example.com")
    theirs = make_account(upstream, other, "bank")["paymentAccountId"]
    sync_payment_accounts()
    response = admin.post(CREATE, rule_form(setup, destination_account_id=theirs))
    assert errors_of(response) == {
        "destination_account_id": ["This account belongs to another customer: a rule moves its own customer's money."]
    }
    assert not ApprovalRequest.objects.exists()


def test_the_next_runs_are_listed_in_the_members_time_zone(admin, setup):
    assert admin.post(reverse("staff-set-time-zone"), {"time_zone": "Asia/Tokyo"}).status_code == 302
    response = admin.post(CREATE, rule_form(setup, cron_schedule="30 23 * * *", amount="-1"))
    page = response.content.decode()
    # 23:30 UTC is 08:30 the next day in Tokyo (UTC+9); the expression itself stays UTC.
    runs = response.context["next_runs"]
    assert [(str(run.tzinfo), run.strftime("%H:%M"), run.utcoffset()) for run in runs] == [
        ("Asia/Tokyo", "08:30", dt.timedelta(hours=9))
    ] * 3
    assert [later - earlier for earlier, later in itertools.pairwise(runs)] == [dt.timedelta(days=1)] * 2
    assert dt.timedelta(0) < runs[0] - dt.datetime.now(dt.UTC) <= dt.timedelta(days=1)
    assert "Next runs in your time zone (Asia/Tokyo)" in page
    for run in runs:
        assert f'<time datetime="{run.isoformat()}">{run.strftime("%a %-d %b %Y")}, 08:30</time>' in page
    assert "Cron schedule (5 fields, UTC)" in page and "The API runs the schedule in UTC" in page
    assert response.context["form"]["cron_schedule"].value() == "30 23 * * *"


def test_no_next_runs_for_what_is_not_a_cron_expression(admin, setup):
    response = admin.post(CREATE, rule_form(setup, cron_schedule="61 * * * *"))
    assert response.context["next_runs"] == [] and "Next runs in your time zone" not in response.content.decode()


def test_customers_of_one_name_are_told_apart_by_their_e_mail_in_the_picker(admin):
    first = CustomerFactory(name="Helix Analytics", email="finance@helix.example")
    CustomerFactory(name="Helix Analytics", email="finance@helixanalytics.example")
    found = admin.get(reverse("payments-search-customers"), {"q": "Helix", "for": "id_customer_id"}).content.decode()
    for email in ("finance@helix.example", "finance@helixanalytics.example"):
        assert f'data-pick-email="{email}">Helix Analytics</button>\n    <br><span class="kv">{email} · ' in found
    chosen = admin.get(CREATE, {"customer_id": first.customer_id}).content.decode()
    assert '<span class="kv" data-picker-email>finance@helix.example</span>' in chosen


def test_an_account_not_offered_stays_shown_by_name(upstream, setup):
    """A rule's account the customer's list no longer offers is still named, not shown as a
    bare id, and the form still refuses it when it is another customer's."""
    other = make_customer(upstream, email="grace@example.com")
    theirs = make_account(upstream, other, "bank")["paymentAccountId"]
    sync_payment_accounts()
    form = AutomationRuleForm(initial={"customer_id": setup["customer_id"], "destination_account_id": theirs})
    choices = dict(form.fields["destination_account_id"].widget.choices)
    assert choices[theirs] == PaymentAccount.objects.get(account_id=theirs).display_name
    assert theirs not in dict(form.fields["source_account_id"].widget.choices)
    unknown = AutomationRuleForm(initial={"customer_id": setup["customer_id"], "source_account_id": "gone"})
    assert dict(unknown.fields["source_account_id"].widget.choices)["gone"] == "account gone"


def test_a_schedule_is_said_in_words_once_per_expression(monkeypatch):
    """The rules list says each rule's schedule: the words of an expression are worked out once."""
    from payments.forms import rules

    calls = []
    real = rules.get_description
    monkeypatch.setattr(rules, "get_description", lambda expression: calls.append(expression) or real(expression))
    rules.describe_cron.cache_clear()
    assert rules.describe_cron("0 9 * * 1-5") == "At 09:00 AM, Monday through Friday (UTC)"
    assert rules.describe_cron("0 9 * * 1-5") == "At 09:00 AM, Monday through Friday (UTC)"
    assert rules.describe_cron("not a schedule") == "not a schedule"
    assert calls == ["0 9 * * 1-5", "not a schedule"]
    rules.describe_cron.cache_clear()
