"""One new-account form sent at once (a double click, a resend during a slow answer): one
account upstream, one audit event of its success, the same account in every answer."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from payments.models import PaymentAccount
from tests.payments.account_fixtures import make_customer
from tests.payments.test_accounts import bank_form, wallet_form
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("kind", ["wallet", "hosted bank form"])
def test_one_account_form_sent_at_once_makes_one_account(racing, make_staff, kind):
    from sandbox.models import PaymentAccount as UpstreamAccount

    customer_id = make_customer(racing.sandbox)
    admin = racing.member(make_staff("admin", "ada-admin"))
    if kind == "wallet":
        data = wallet_form(customer_id)
    else:
        data = bank_form(customer_id, entry="HOSTED_FORM", account_number="", routing_number="")
    start = len(racing.calls)

    answers = at_once(*[lambda: admin.post(reverse("payments-create-payment-account"), data)] * 3, gap=0.05)

    assert racing.sent("POST", "/payment-accounts", since=start) == 1
    assert UpstreamAccount.objects.filter(customer_id=customer_id).count() == 1
    account = PaymentAccount.objects.get()
    assert account.status == ("PENDING" if kind == "hosted bank form" else "ACTIVE")
    assert AuditEvent.objects.filter(action="payment_account.create", outcome="success").count() == 1
    assert {answer.headers["location"] for answer in answers} == {
        reverse("payments-view-payment-account", args=[account.pk])
    }
