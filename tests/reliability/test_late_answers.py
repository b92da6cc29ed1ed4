"""A write whose answer is lost may have been done: the back-office looks the record up before
it offers a retry, and says what it found (docs/security.md: an outcome it cannot know is
reported as possibly done, never as "nothing was changed").

The `late` fault does each request in the sandbox and answers after the client's timeout;
a look with the longer lookup timeout (upstream.client.RECONCILE_TIMEOUT) gets its answer.
"""

import httpx
import pytest
from django.urls import reverse

from audit.models import AuditEvent
from customers.models import Customer
from payments.models import Transaction
from tests.marks import marked
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer

pytestmark = pytest.mark.django_db

NEW = marked(
    {
        "customer_type": "INDIVIDUAL",
        "email": "late@example.com",
        "first_name": "Late",
        "last_name": "Answer",
        **{
            f"{prefix}-{name}": "0"
            for prefix in ("persons", "documents", "kyc_documents")
            for name in ("TOTAL_FORMS", "INITIAL_FORMS")
        },
    }
)


def upstream_customers(upstream, email):
    return [c for c in upstream.call("GET", "/customers?pageSize=100")["customers"] if c["email"] == email]


def test_a_create_answered_late_finds_the_customer_and_a_retry_is_not_offered(
    client_as, upstream, faulty_upstream, settings
):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600
    client = client_as("compliance")
    faulty_upstream.fail("late")
    response = client.post(reverse("customers-create-customer"), NEW, follow=True)
    html = response.content.decode()

    made = upstream_customers(upstream, "late@example.com")
    assert len(made) == 1
    customer = Customer.objects.get(email="late@example.com")
    assert customer.customer_id == made[0]["customerId"]
    assert "Customer Late Answer created" in html and "Nothing was created" not in html
    assert response.redirect_chain[-1][0] == reverse("customers-view-customer", args=[customer.customer_id])
    event = AuditEvent.objects.get(action="customer.create")
    assert event.outcome == "success" and event.details["reconciled"] == "ApiTimeout"
    assert len(faulty_upstream.sent("POST", "/customers")) == 1


def test_a_create_whose_answer_is_lost_and_not_done_says_so_and_a_retry_makes_one(client_as, upstream, faulty_upstream):
    client = client_as("compliance")

    def lost_before_the_api(request):
        if request.method == "POST":
            raise httpx.ReadTimeout("The read operation timed out", request=request)
        return faulty_upstream.to_sandbox(request)

    faulty_upstream.answer(lost_before_the_api)
    html = client.post(reverse("customers-create-customer"), NEW).content.decode()
    assert "the back-office checked with it: this was not done. Try again." in html
    assert "Nothing was created" in html
    assert not upstream_customers(upstream, "late@example.com")
    assert AuditEvent.objects.get(action="customer.create").details["checked"] == "not done"

    faulty_upstream.fail(None)
    client.post(reverse("customers-create-customer"), NEW)
    assert len(upstream_customers(upstream, "late@example.com")) == 1


def test_a_create_that_could_not_be_checked_is_read_back_before_it_is_sent_again(client_as, upstream, faulty_upstream):
    """The answer lost and the look failed too: the same form sent again finds the customer the
    first try made instead of making a second."""
    client = client_as("compliance")

    def done_but_lost(request):
        if request.method == "POST":
            faulty_upstream.to_sandbox(request)  # done upstream; the look (GET) fails as well
        raise httpx.ReadTimeout("The read operation timed out", request=request)

    faulty_upstream.answer(done_but_lost)
    html = client.post(reverse("customers-create-customer"), NEW).content.decode()
    assert "may have gone through; trying again is safe." in html
    assert len(upstream_customers(upstream, "late@example.com")) == 1

    faulty_upstream.fail(None)
    response = client.post(reverse("customers-create-customer"), NEW)
    customer = Customer.objects.get(email="late@example.com")
    assert response["Location"] == reverse("customers-view-customer", args=[customer.customer_id])
    assert faulty_upstream.sent("POST", "/customers") == []
    assert len(upstream_customers(upstream, "late@example.com")) == 1
    event = AuditEvent.objects.get(action="customer.create", outcome="success")
    assert event.details["reconciled"] == "earlier try"


def test_a_create_that_cannot_be_checked_says_it_may_have_gone_through(client_as, upstream, faulty_upstream):
    client = client_as("compliance")
    faulty_upstream.fail("slow")  # the look times out too
    html = client.post(reverse("customers-create-customer"), NEW).content.decode()
    assert "may have gone through" in html
    assert "Nothing was created" not in html and "nothing was changed" not in html.lower()
    assert "This may have been created all the same" in html
    assert AuditEvent.objects.get(action="customer.create").details["checked"] == "unknown"


def test_a_customer_the_mirror_knew_before_is_not_taken_for_the_new_one(client_as, upstream, faulty_upstream):
    """Two customers may share an e-mail: one the mirror knew before the create is not the
    create's outcome."""
    from mirror.sync import sync_customers

    upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "late@example.com", "firstName": "Old", "lastName": "One"},
    )
    sync_customers()

    def lost_before_the_api(request):
        if request.method == "POST":
            raise httpx.ReadTimeout("The read operation timed out", request=request)
        return faulty_upstream.to_sandbox(request)

    faulty_upstream.answer(lost_before_the_api)
    confirmed = marked(NEW, same_email="on")  # the page showed the one it knows, and staff confirmed
    html = client_as("compliance").post(reverse("customers-create-customer"), confirmed).content.decode()
    assert "this was not done" in html
    assert Customer.objects.filter(email="late@example.com").count() == 1


def test_an_execute_answered_late_finds_the_transaction(client_as, upstream, faulty_upstream, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600
    setup = sandbox_customer(upstream)
    client = client_as("operations")
    response = client.post(reverse("payments-create-quote"), quote_post_data(setup))
    quote_id = response["Location"].rstrip("/").split("/")[-1]

    faulty_upstream.fail("late")
    response = client.post(reverse("payments-execute-quote", args=[quote_id]), {}, follow=True)

    tx = Transaction.objects.get()
    assert tx.quote_id == quote_id
    assert response.redirect_chain[-1][0] == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert "did not go through" not in response.content.decode()
    sent = faulty_upstream.sent("POST", "/transactions")
    # The try and the look: one key, so the API made one transaction.
    assert len(sent) == 2 and len({r.headers["x-idempotency-key"] for r in sent}) == 1
    event = AuditEvent.objects.get(action="quote.execute")
    assert event.outcome == "success" and event.details["reconciled"] == "ApiTimeout"
