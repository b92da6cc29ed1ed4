"""Quote builder → quote → execute, against the sandbox (the `upstream` fixture)."""

import json
import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from payments.models import Quote, Transaction
from tests.conftest import authenticated_now
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer
from upstream.models import WriteClaim


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


@pytest.fixture
def setup(upstream):
    return sandbox_customer(upstream)


def _create_quote(client, setup, **overrides) -> Quote:
    response = client.post(reverse("payments-create-quote"), quote_post_data(setup, **overrides))
    assert response.status_code == 302, response.content.decode()[:2000]
    return Quote.objects.get(quote_id=response["Location"].rstrip("/").split("/")[-1])


def test_customer_search_offers_active_customers_only(client_as, upstream, setup):
    other = sandbox_customer(upstream, name="Zed", with_accounts=False)
    upstream.helper(f"customers/{other['customer_id']}/deactivate")
    from mirror.sync import sync_customers

    sync_customers()
    client = client_as("operations")
    html = client.get(
        reverse("payments-create-quote"), {"q": "ada"}, headers={"HX-Request": "true", "HX-Target": "customer-results"}
    ).content.decode()
    assert setup["customer_id"] in html
    assert '<ul id="customer-results"' in html and "<h1>" not in html
    html = client.get(reverse("payments-create-quote"), {"q": "zed"}).content.decode()
    assert other["customer_id"] not in html
    assert "No active customer starts with" in html


def test_builder_offers_only_the_combinations_the_accounts_allow(client_as, setup):
    bank, wallet = setup["bank"]["paymentAccountId"], setup["wallet"]["paymentAccountId"]
    params = {"customer": setup["customer_id"], "source_account": bank}
    html = client_as("operations").get(reverse("payments-create-quote"), params).content.decode()
    source = html.split('name="source_account"')[1].split("</select>")[0]
    destination = html.split('name="destination_account"')[1].split("</select>")[0]
    assert bank in source and wallet in source  # either may send
    assert wallet in destination and bank not in destination  # from fiat: crypto only
    assert '<option value="ACH"' in html and '<option value="WIRE"' not in html
    assert '<option value="BASE"' in html and '<option value="USDC"' in html
    assert "Onramp (fiat → crypto)" in html
    # Choosing the wallet as source turns it around: an offramp to the bank account.
    html = (
        client_as("admin")
        .get(
            reverse("payments-create-quote"),
            {"customer": setup["customer_id"], "source_account": wallet},
            headers={"HX-Request": "true", "HX-Target": "quote-form"},
        )
        .content.decode()
    )
    assert html.startswith('\n  <form id="quote-form"') or html.lstrip().startswith('<form id="quote-form"')
    destination = html.split('name="destination_account"')[1].split("</select>")[0]
    assert bank in destination and "Offramp (crypto → fiat)" in html


def test_preview_shows_rate_fees_and_destination_amount(client_as, setup):
    params = {
        "source_method": "ACH",
        "source_currency": "USD",
        "destination_method": "BASE",
        "destination_currency": "USDC",
        "amount": "100.00",
    }
    html = client_as("operations").get(reverse("payments-preview-quote"), params).content.decode()
    # Sandbox pricing: USD → USDC is not FX (rate 1); ACH flat 0.50 + 25 bps of 100.00 = 0.75 USD.
    assert "<strong>1</strong> USDC per USD" in html
    assert "Service fee, flat</dt><dd>0.50 USD" in html
    assert "Service fee, percentage</dt><dd>0.25 USD" in html
    assert "0.75 USD (USD value 0.75)" in html
    assert "<strong>99.250000 USDC</strong>" in html


def test_preview_shows_the_api_message_for_an_impossible_pair(client_as, setup):
    params = {
        "source_method": "ACH",
        "source_currency": "USD",
        "destination_method": "WIRE",
        "destination_currency": "USD",
        "amount": "1",
    }
    html = client_as("operations").get(reverse("payments-preview-quote"), params).content.decode()
    assert 'role="alert">No preview:' in html


def test_operations_creates_a_quote_with_its_own_idempotency_key(client_as, operations_user, client, setup):
    client.force_login(operations_user)
    authenticated_now(client, operations_user)
    quote = _create_quote(client, setup, developer_fee="1.00", correlation_id="order-42")
    assert quote.customer.customer_id == setup["customer_id"]
    assert quote.created_by == operations_user
    assert isinstance(quote.idempotency_key, uuid.UUID)
    assert str(quote.source_amount.normalize()) == "1E+2"
    assert quote.request["developerFee"] == {"developerFeeType": "USD", "developerFeeAmount": "1.00"}  # as sent
    assert quote.developer_fee == Decimal("1.00") and quote.correlation_id == "order-42"
    assert "correlationId" not in quote.request  # the execute's, never sent with the quote
    html = client.get(reverse("payments-view-quote", args=[quote.quote_id])).content.decode()
    assert "data-countdown" in html and quote.expires_at.strftime("%Y-%m-%dT%H:%M:%S") in html
    assert "98.25 USDC" in html  # 100 - 0.75 service - 1.00 developer fee
    assert 'value="order-42" readonly' in html
    assert AuditEvent.objects.filter(action="quote.create", target_id=quote.quote_id, outcome="success").exists()


def test_api_validation_errors_land_on_the_form(client_as, setup):
    response = client_as("operations").post(reverse("payments-create-quote"), quote_post_data(setup, amount="100.001"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "errorlist" in html and "places" in html  # the sandbox: at most 2 places for USD
    # On the amount field itself (QuoteForm.api_fields: source.sourceAmount), not at the top.
    assert any("places" in message for message in response.context["form"].errors["amount"])
    assert not Quote.objects.exists()


def test_inactive_customer_quote_is_refused_with_the_api_message(client_as, upstream, setup):
    upstream.helper(f"customers/{setup['customer_id']}/deactivate")  # the mirror still says ACTIVE
    response = client_as("operations").post(reverse("payments-create-quote"), quote_post_data(setup))
    assert response.status_code == 200
    assert "quotes can be created only for ACTIVE customers" in response.content.decode()
    assert not Quote.objects.exists()
    assert AuditEvent.objects.filter(action="quote.create", outcome="failure").exists()


def test_execute_makes_the_transaction_and_a_second_execute_replays_it(client_as, setup):
    client = client_as("operations")
    quote = _create_quote(client, setup)
    url = reverse("payments-execute-quote", args=[quote.quote_id])
    first = client.post(url, {"correlation_id": "batch-7"})
    tx = Transaction.objects.get()
    assert first["Location"] == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert tx.status == "AWAITING_TRANSFER" and tx.correlation_id == "batch-7" and tx.quote_id == quote.quote_id
    assert tx.status_changes.get().seen_by == "staff"
    # A second execute answers with the first's transaction, without a call.
    again = client.post(url, {"correlation_id": "batch-7"})
    assert again["Location"] == first["Location"]
    # A browser retry after a lost answer: one transaction, same page. As if the first answer
    # never reached the mirror: no row, its claim left with an unknown outcome.
    Transaction.objects.all().delete()
    WriteClaim.objects.update(state=WriteClaim.State.UNKNOWN)
    second = client.post(url, {"correlation_id": "something else"})
    assert Transaction.objects.get().transaction_id == tx.transaction_id
    assert second["Location"] == first["Location"]
    quote.refresh_from_db()
    assert quote.correlation_id == "batch-7"  # the first execute bound the body
    # The API replayed its answer: audited as such, with the read-back that found it.
    replayed = AuditEvent.objects.filter(action="quote.execute", outcome="success").latest("id")
    assert replayed.details["replayed"] is True and replayed.details["reconciled"] == "earlier try"


def test_expired_quote_says_so_and_offers_the_same_inputs(client_as, upstream, setup):
    client = client_as("operations")
    quote = _create_quote(client, setup, amount="250.00")
    upstream.helper("clock/advance", {"seconds": 301})
    response = client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {}, follow=True)
    html = response.content.decode()
    assert f"Quote {quote.quote_id} expired at" in html
    assert not Transaction.objects.exists()
    assert "New quote with the same inputs" in html
    link = html.split("New quote with the same inputs")[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
    prefilled = client.get(link).content.decode()
    assert 'value="250.00"' in prefilled
    assert AuditEvent.objects.filter(action="quote.execute", outcome="failure", target_id=quote.quote_id).exists()


def test_used_quote_says_so(client_as, upstream, setup):
    client = client_as("operations")
    quote = _create_quote(client, setup)
    # The quote is used by someone else with another key (another system, same API key).
    upstream.call("POST", "/transactions", {"quoteId": quote.quote_id}, headers={"x-idempotency-key": "elsewhere"})
    html = client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {}, follow=True).content.decode()
    assert f"Quote {quote.quote_id} has already been used" in html
    assert not Transaction.objects.exists()


def test_inactive_customer_execute_is_refused_and_the_mirror_unchanged(client_as, upstream, setup):
    client = client_as("operations")
    quote = _create_quote(client, setup)
    upstream.helper(f"customers/{setup['customer_id']}/deactivate")
    html = client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {}, follow=True).content.decode()
    assert "transactions need an ACTIVE customer" in html
    assert not Transaction.objects.exists()


def test_execute_after_a_timeout_is_safe_to_retry(client_as, setup, faulty_upstream):
    client = client_as("operations")
    quote = _create_quote(client, setup)
    url = reverse("payments-execute-quote", args=[quote.quote_id])
    faulty_upstream.fail("slow")
    html = client.post(url, {}, follow=True).content.decode()
    assert "The Payments API did not answer, so this may have gone through; trying again is safe." in html
    assert not Transaction.objects.exists()
    keys = {request.headers["x-idempotency-key"] for request in faulty_upstream.sent("POST", "/transactions")}
    assert keys == {str(quote.idempotency_key)}
    faulty_upstream.fail(None)
    client.post(url, {})
    assert Transaction.objects.count() == 1


@pytest.mark.parametrize("role", ["compliance", "auditor"])
def test_readers_see_the_quote_without_execute(client_as, role, setup, operations_user, client):
    client.force_login(operations_user)
    authenticated_now(client, operations_user)
    quote = _create_quote(client, setup)
    html = client_as(role).get(reverse("payments-view-quote", args=[quote.quote_id])).content.decode()
    assert quote.quote_id in html and 'id="execute-button"' not in html
    assert "New quote with the same inputs" not in html


def test_builder_amounts_reach_the_api_as_plain_decimals_or_stay_on_the_form(client_as, setup, faulty_upstream):
    client = client_as("operations")
    # Nine places: sent as "0.000000001" (never "1E-9"); the API's refusal lands on the field.
    response = client.post(reverse("payments-create-quote"), quote_post_data(setup, amount="0.000000001"))
    sent = faulty_upstream.sent("POST", "/quotes")
    assert [json.loads(r.content)["source"]["sourceAmount"] for r in sent] == ["0.000000001"]
    errors = response.context["form"].errors
    assert list(errors) == ["amount"] and "decimal places" in errors["amount"][0]
    assert "1E-9" not in response.content.decode()
    # An exponent, a sign, too many digits: refused on the field, nothing sent.
    for typed in ["1e5", "-0", "12345678901234567890123456", "1.0000000000000000001"]:
        faulty_upstream.fail(None)
        response = client.post(reverse("payments-create-quote"), quote_post_data(setup, amount=typed))
        assert response.status_code == 200
        assert list(response.context["form"].errors) == ["amount"], typed
        assert f'value="{typed}"' in response.content.decode()  # what was typed is kept
        assert not faulty_upstream.sent("POST", "/quotes")
    assert not Quote.objects.exists()


def test_a_quote_s_page_takes_six_queries_with_its_accounts_transaction_and_request(
    client_as, django_assert_max_num_queries
):
    from tests.factories import ApprovalRequestFactory, PaymentAccountFactory, QuoteFactory, TransactionFactory

    bank = PaymentAccountFactory(bank=True, account_id=str(uuid.uuid4()), nickname="Payroll")
    wallet = PaymentAccountFactory(account_id=str(uuid.uuid4()), nickname="Treasury wallet")
    quote = QuoteFactory(source_account_id=bank.account_id, destination_account_id=wallet.account_id)
    ApprovalRequestFactory(quote=quote, maker__username="mira-maker")
    used = TransactionFactory(quote_id=quote.quote_id, status="COMPLETED")
    client = client_as("operations")
    client.get(reverse("home"))  # the top bar's cached figures, read once
    with django_assert_max_num_queries(6):
        html = client.get(reverse("payments-view-quote", args=[quote.quote_id])).content.decode()
    assert f'title="{bank.account_id}">Payroll · ' in html and f'title="{wallet.account_id}">Treasury wallet · ' in html
    assert f"transaction <code>{used.transaction_id}</code>" in html
    assert "request by mira-maker" in html
