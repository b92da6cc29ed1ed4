import datetime as dt
import re
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from audit.records import audit_record
from tests.factories import (
    ApprovalRequestFactory,
    AuditEventFactory,
    AutomationRuleFactory,
    CustomerFactory,
    PaymentAccountFactory,
    QuoteFactory,
    StaffUserFactory,
    TransactionFactory,
)


def test_one_event_per_write(admin_user):
    with transaction.atomic():
        audit_record(actor=admin_user, action="customer.update", target_kind="customer", target_id="c-1")
    event = AuditEvent.objects.get()
    assert (event.actor_username, event.action, event.target_kind, event.target_id, event.outcome) == (
        "admin-user",
        "customer.update",
        "customer",
        "c-1",
        "success",
    )


def test_no_event_when_the_write_fails(admin_user):
    with pytest.raises(ValueError), transaction.atomic():
        audit_record(actor=admin_user, action="customer.update", target_kind="customer", target_id="c-1")
        raise ValueError("the change failed")
    assert AuditEvent.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_success_outside_a_transaction_is_refused(admin_user):
    with pytest.raises(RuntimeError):
        audit_record(actor=admin_user, action="customer.update")
    assert AuditEvent.objects.count() == 0


def test_events_carry_the_request_id(client, admin_user):
    client.force_login(admin_user)
    AuditEvent.objects.all().delete()
    client.post(reverse("account_logout"), HTTP_X_REQUEST_ID="req-12345678")
    assert AuditEvent.objects.get(action="auth.logout").request_id == "req-12345678"


def test_audit_page_filters(client_as):
    client = client_as("auditor")
    AuditEventFactory.create_batch(3, action="customer.update", actor_username="alice")
    AuditEventFactory.create_batch(2, action="transaction.cancel", actor_username="bob")
    html = client.get(reverse("audit-list-events"), {"action": "transaction.cancel"}).content.decode()
    assert html.count("transaction.cancel") >= 2
    assert "customer.update</td>" not in html
    html = client.get(reverse("audit-list-events"), {"actor": "alice"}).content.decode()
    assert html.count("<td>alice</td>") == 3


def test_audit_page_date_range(client_as):
    client = client_as("auditor")
    AuditEventFactory(action="old.thing")
    AuditEvent.objects.filter(action="old.thing").update(created_at=timezone.now() - dt.timedelta(days=10))
    AuditEventFactory(action="new.thing")
    since = (timezone.now() - dt.timedelta(days=1)).date().isoformat()
    html = client.get(reverse("audit-list-events"), {"since": since}).content.decode()
    assert "new.thing" in html and "old.thing" not in html


def test_audit_page_bad_date_is_a_clear_error(client_as):
    html = client_as("auditor").get(reverse("audit-list-events"), {"since": "yesterday"}).content.decode()
    assert "Check the filters" in html


def test_audit_page_keyset_pagination_walks_every_event_once(client_as, django_assert_max_num_queries):
    client = client_as("admin")
    AuditEvent.objects.all().delete()
    AuditEventFactory.create_batch(120)
    client.get(reverse("home"))  # the session's first touch is a write of its own
    seen, url, pages = [], reverse("audit-list-events"), 0
    while url:
        # The page's own four, the names of its targets (customers) and the actors suggested.
        with django_assert_max_num_queries(6):
            response = client.get(url)
        page = response.context["page"]
        seen += [e.pk for e in page.items]
        url = f"{reverse('audit-list-events')}?cursor={page.next_cursor}" if page.next_cursor else None
        pages += 1
    assert pages == 3
    assert sorted(seen) == sorted(AuditEvent.objects.values_list("pk", flat=True))
    assert len(seen) == len(set(seen)) == 120


def test_audit_page_htmx_request_gets_only_the_results(client_as):
    client = client_as("auditor")
    response = client.get(reverse("audit-list-events"), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">')
    assert "<html" not in html


def test_garbage_cursor_starts_from_the_first_page(client_as):
    AuditEventFactory.create_batch(3, action="thing.do")
    response = client_as("auditor").get(
        reverse("audit-list-events"), {"cursor": "!!not-a-cursor", "action": "thing.do"}
    )
    assert response.status_code == 200
    assert len(response.context["page"].items) == 3


def test_audit_page_speaks_staff_words_with_the_codes_on_hover(client_as):
    AuditEventFactory(
        action="customer.decide", target_kind="customer", details={"decision": "escalated", "escalation_level": 2}
    )
    AuditEventFactory(
        action="payment_account.create",
        target_kind="payment_account",
        details={"type": "EXTERNAL_BANK_ACCOUNT", "status": "PENDING"},
    )
    AuditEventFactory(
        action="transaction.cancel", target_kind="transaction", outcome="failure", details={"error": "NOT_FOUND"}
    )
    AuditEventFactory(
        action="staff.change_roles",
        target_kind="user",
        details={"before": ["compliance"], "after": ["compliance_lead"]},
    )

    html = client_as("auditor").get(reverse("audit-list-events")).content.decode()

    assert '<td title="customer.decide">Decided the case</td>' in html
    assert 'Decision: <span title="escalated">Escalated</span>' in html and "Escalation level: 2" in html
    assert '<td title="payment_account.create">Created a payment account</td>' in html
    assert '<span title="payment_account">Payment account</span>' in html
    assert 'Type: <span title="EXTERNAL_BANK_ACCOUNT">External bank account</span>' in html
    assert 'Status: <span title="PENDING">Pending</span>' in html
    assert 'Error: <span title="NOT_FOUND">The Payments API does not know this record</span>' in html
    assert 'After: <span title="compliance_lead">Compliance lead</span>' in html
    visible = re.sub(r"<[^>]+>", " ", html)
    for code in ("customer.decide", "EXTERNAL_BANK_ACCOUNT", "PENDING", "NOT_FOUND", "compliance_lead"):
        assert code not in visible, code


def test_the_action_filter_suggests_known_actions_in_words_and_takes_any(client_as):
    AuditEventFactory(action="customer.brand_new_step")
    client = client_as("auditor")
    html = client.get(reverse("audit-list-events")).content.decode()
    assert 'list="id_action-suggestions"' in html
    suggestions = re.search(r'<datalist id="id_action-suggestions">(.*?)</datalist>', html).group(1)
    assert '<option value="customer.update_kyc">' in suggestions and "customer.brand_new_step" not in suggestions
    typed = client.get(reverse("audit-list-events"), {"action": "customer.brand_new_step"}).content.decode()
    assert "Check the filters" not in typed and typed.count('title="customer.brand_new_step"') == 1


def test_audit_targets_are_named_with_links_and_the_id_on_hover(client_as, django_assert_max_num_queries):
    client = client_as("admin")
    member = StaffUserFactory(username="dana")
    customer = CustomerFactory(name="Helix Analytics")
    quote = QuoteFactory(customer=customer, source_amount=Decimal("250"))
    tx = TransactionFactory(customer=customer)
    rule = AutomationRuleFactory(customer=customer, name="Sweep to USDC")
    approval = ApprovalRequestFactory()
    account = PaymentAccountFactory(customer=customer, nickname="Treasury wallet", account_id="acc-treasury")
    pending = PaymentAccountFactory(customer=customer, pending=True, nickname="Payroll")
    AuditEvent.objects.all().delete()
    targets = [
        ("user", member.pk),
        ("customer", customer.customer_id),
        ("quote", quote.quote_id),
        ("transaction", tx.transaction_id),
        ("automation_rule", rule.rule_id),
        ("approval_request", approval.pk),
        ("user", 987654),  # a member since removed
        ("payment_account", account.account_id),
        ("payment_account", f"pending:{pending.pk}"),
    ]
    for kind, target_id in targets:
        AuditEventFactory(target_kind=kind, target_id=str(target_id))
    client.get(reverse("home"))
    with django_assert_max_num_queries(
        6
    ):  # the session, the member, their permissions, the page, its targets, the actor suggestions
        html = client.get(reverse("audit-list-events")).content.decode()
    assert f'<a href="{reverse("staff-view-staff", args=[member.pk])}" title="User {member.pk}">dana</a>' in html
    assert f'href="{reverse("customers-view-customer", args=[customer.customer_id])}"' in html
    assert ">Helix Analytics</a>" in html
    assert ">Quote of 250.00 USD → USDC</a>" in html
    assert f'href="{reverse("payments-view-transaction", args=[tx.transaction_id])}"' in html
    assert ">Rule “Sweep to USDC”</a>" in html
    assert f'href="{reverse("payments-view-approval-request", args=[approval.pk])}"' in html
    assert "a removed staff member" in html
    assert 'title="Payment account acc-treasury">Treasury wallet · ' in html
    assert f'href="{reverse("payments-view-payment-account", args=[pending.pk])}"' in html
    # The same page filtered from a day: the same queries.
    with django_assert_max_num_queries(6):
        since = client.get(reverse("audit-list-events"), {"since": "2000-01-01"}).content.decode()
    assert ">Helix Analytics</a>" in since and ">Rule “Sweep to USDC”</a>" in since
    # No target reads as a row number: the id is only on hover.
    rows = html.split("<tbody", 1)[1]
    assert not re.search(r">\s*User\s*</span>\s*<code>\d+", rows)
    assert not re.search(r"User \d+<", rows.replace('title="User', ""))
    # An auditor reads the member's name, with no link to a staff page the role may not open.
    auditor_html = client_as("auditor").get(reverse("audit-list-events")).content.decode()
    assert f'<span title="User {member.pk}">dana</span>' in auditor_html
    assert reverse("staff-view-staff", args=[member.pk]) not in auditor_html


def test_a_page_of_many_targets_names_them_in_one_query_per_kind(client_as, django_assert_max_num_queries):
    client = client_as("auditor")
    AuditEvent.objects.all().delete()
    for customer in CustomerFactory.create_batch(10):
        AuditEventFactory(target_kind="customer", target_id=customer.customer_id)
    for member in StaffUserFactory.create_batch(10):
        AuditEventFactory(target_kind="user", target_id=str(member.pk))
    client.get(reverse("home"))
    with django_assert_max_num_queries(6):
        client.get(reverse("audit-list-events"))


def test_the_actor_filter_suggests_members(client_as):
    client = client_as("auditor")
    StaffUserFactory(username="zoe-ops")
    html = client.get(reverse("audit-list-events")).content.decode()
    assert 'list="id_actor-suggestions"' in html
    assert '<option value="zoe-ops">' in html
