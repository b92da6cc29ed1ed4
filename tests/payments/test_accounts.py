"""Payment accounts: list, detail, balances, create flows and refresh, against the sandbox."""

import json
import re

import httpx
import pytest
from django.urls import reverse

from audit.models import AuditEvent
from mirror.sync import sync_payment_accounts
from payments.models import PaymentAccount
from tests.marks import marked
from tests.payments.account_fixtures import EVM_ADDRESS, ROUTING, SOLANA_ADDRESS, make_account, make_customer

CREATE = reverse("payments-create-payment-account")


@pytest.fixture
def customer_id(upstream):
    return make_customer(upstream)


@pytest.fixture
def admin(client_as):
    return client_as("admin")


def wallet_form(customer_id, **fields):
    return marked(
        {
            "account_type": "EXTERNAL_CRYPTO_WALLET",
            "customer_id": customer_id,
            "nickname": "Treasury",
            "chain": "BASE",
            "currency": "USDC",
            "address": EVM_ADDRESS,
        },
        **fields,
    )


def bank_form(customer_id, **fields):
    return marked(
        {
            "account_type": "EXTERNAL_BANK_ACCOUNT",
            "customer_id": customer_id,
            "nickname": "Payroll",
            "entry": "DETAILS",
            "bank_account_type": "CHECKING",
            "owner_name": "Ada Lovelace",
            "owner_email": "ada@example.com",
            "bank_name": "First Test Bank",
            "currency": "USD",
            "payment_method": "ACH",
            "account_number": "000123456789",
            "routing_number": ROUTING,
        },
        **fields,
    )


def mirror_snapshot():
    return list(PaymentAccount.objects.order_by("pk").values())


def errors_of(response) -> dict:
    form = response.context["form"]
    return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


# --- Create -----------------------------------------------------------------------------------


def test_admin_creates_an_external_crypto_wallet(admin, customer_id):
    response = admin.post(CREATE, wallet_form(customer_id, is_third_party="on"))
    account = PaymentAccount.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("payments-view-payment-account", args=[account.pk])
    assert account.account_type == "EXTERNAL_CRYPTO_WALLET" and account.status == "ACTIVE"
    assert account.is_third_party is True
    assert account.customer.customer_id == customer_id
    assert account.details["address"] == {"address": EVM_ADDRESS, "chain": "BASE"}
    event = AuditEvent.objects.get(action="payment_account.create")
    assert event.outcome == "success" and event.target_id == account.account_id
    assert event.actor_username == "admin-user"

    page = admin.get(response["Location"]).content.decode()
    assert "External crypto wallet created." in page
    assert f'data-copy="{EVM_ADDRESS}"' in page
    assert "Yes: belongs to someone other than the customer" in page
    assert "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" in page  # the token's contract, from the API


def test_solana_wallet(admin, customer_id):
    response = admin.post(CREATE, wallet_form(customer_id, chain="SOLANA", address=SOLANA_ADDRESS))
    assert response.status_code == 302
    assert PaymentAccount.objects.get().details["address"]["chain"] == "SOLANA"


@pytest.mark.parametrize(
    ("chain", "address", "message"),
    [
        ("BASE", "0x123", "An address on Base is 0x followed by 40 hexadecimal characters."),
        ("SOLANA", EVM_ADDRESS, "A Solana address is 32 to 44 base58 characters (no 0, O, I or l)."),
        ("ETHEREUM", SOLANA_ADDRESS, "An address on Ethereum is 0x followed by 40 hexadecimal characters."),
    ],
)
def test_wallet_address_is_checked_per_chain_before_sending(
    admin, customer_id, faulty_upstream, chain, address, message
):
    faulty_upstream.fail("down")
    response = admin.post(CREATE, wallet_form(customer_id, chain=chain, address=address))
    assert response.status_code == 200
    assert errors_of(response) == {"address": [message]}
    assert response.context["form"]["address"].value() == address  # input kept
    assert not PaymentAccount.objects.exists()
    assert faulty_upstream.requests == [], "the API must not be called"


def test_api_validation_errors_land_on_their_fields(admin, customer_id):
    response = admin.post(CREATE, wallet_form(customer_id, currency="USDT"))  # no USDT on BASE
    assert response.status_code == 200
    errors = errors_of(response)
    assert list(errors) == ["currency"]
    assert "BASE" in errors["currency"][0]
    assert not PaymentAccount.objects.exists()
    assert AuditEvent.objects.get(action="payment_account.create").outcome == "failure"


def test_customer_no_longer_active_upstream(admin, upstream, customer_id):
    # The mirror still says ACTIVE; the API knows better.
    upstream.helper(f"customers/{customer_id}/deactivate")
    before = mirror_snapshot()
    response = admin.post(CREATE, wallet_form(customer_id))
    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert len(errors) == 1
    assert errors[0].startswith("The Payments API refused this: Customer ")
    assert "DEACTIVATED" in errors[0]
    assert mirror_snapshot() == before == []


def test_rejected_customer_is_refused_before_the_api(admin, upstream):
    rejected = make_customer(upstream, status="REJECTED", email="rejected@example.com")
    response = admin.post(CREATE, wallet_form(rejected))
    assert errors_of(response) == {"customer_id": ["This customer is rejected: it cannot get payment accounts."]}


def test_unknown_customer(admin, upstream):
    response = admin.post(CREATE, wallet_form("no-such-customer"))
    assert errors_of(response) == {
        "customer_id": ["No customer with this id in the back-office; sync customers first."]
    }


def test_api_down_leaves_the_mirror_unchanged(admin, customer_id, faulty_upstream):
    faulty_upstream.fail("slow")
    form = wallet_form(customer_id)
    response = admin.post(CREATE, form)
    assert response.status_code == 200
    # The request went out and its answer was lost: the account may exist upstream now, and
    # the look for it timed out too. The same form sent again is read back first.
    message = "The Payments API did not answer, so this may have gone through; trying again is safe."
    assert list(response.context["form"].non_field_errors()) == [message]
    assert message in response.content.decode() and "timed out" not in response.content.decode()
    assert len(faulty_upstream.sent("POST", "/payment-accounts")) == 1  # a create is never sent twice
    assert not PaymentAccount.objects.exists()
    event = AuditEvent.objects.get(action="payment_account.create")
    assert event.outcome == "failure" and event.details == {"error": "ApiTimeout", "checked": "unknown"}
    assert f'name="submission" value="{form["submission"]}"' in response.content.decode()

    faulty_upstream.fail(None)
    assert admin.post(CREATE, form).status_code == 302
    # The look first (GET), which found nothing made, then the one create.
    assert [r.method for r in faulty_upstream.requests] == ["GET", "POST"]
    assert PaymentAccount.objects.count() == 1


def test_bank_account_with_numbers_shows_only_the_mask(admin, customer_id):
    response = admin.post(CREATE, bank_form(customer_id))
    assert response.status_code == 302
    account = PaymentAccount.objects.get()
    assert account.status == "ACTIVE"
    assert account.details["bankAccountMask"] == "****6789"
    assert "bankAccountNumber" not in account.details and "bankRoutingNumber" not in account.details
    page = admin.get(response["Location"]).content.decode()
    assert "****6789" in page and "ACH" in page
    assert "000123456789" not in page
    listing = admin.get(reverse("payments-list-payment-accounts")).content.decode()
    assert "000123456789" not in listing


def test_a_full_number_echoed_by_the_api_never_reaches_the_mirror(admin, customer_id, faulty_upstream):
    def echoing(request):
        answer = faulty_upstream.to_sandbox(request)
        body = json.loads(answer.read())
        body["externalBankAccount"].update(bankAccountNumber="000123456789", bankRoutingNumber=ROUTING)
        return httpx.Response(answer.status_code, json=body)

    faulty_upstream.answer(echoing)
    assert admin.post(CREATE, bank_form(customer_id)).status_code == 302
    details = PaymentAccount.objects.get().details
    assert "000123456789" not in str(details)
    assert details["bankAccountMask"] == "****6789"


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"account_number": ""}, {"account_number": ["Needed when you give the numbers."]}),
        ({"routing_number": "123456789"}, {"routing_number": ["Not a valid ABA routing number (the check digit does not match)."]}),
        ({"account_number": "12ab"}, {"account_number": ["4 to 17 digits."]}),
        ({"currency": "EUR"}, {"currency": ["Select a valid choice. EUR is not one of the available choices."]}),
        ({"payment_method": "SEPA"}, {"payment_method": ["Select a valid choice. SEPA is not one of the available choices."]}),
        ({"entry": "HOSTED_FORM"}, {
            "account_number": ["Leave empty: the owner types it in the hosted form."],
            "routing_number": ["Leave empty: the owner types it in the hosted form."],
        }),
    ],
)  # fmt: skip
def test_bank_account_form_errors(admin, customer_id, fields, errors):
    response = admin.post(CREATE, bank_form(customer_id, **fields))
    assert response.status_code == 200
    assert errors_of(response) == errors
    assert not PaymentAccount.objects.exists()


def test_pending_bank_account_through_the_hosted_form(admin, upstream, customer_id):
    response = admin.post(CREATE, bank_form(customer_id, entry="HOSTED_FORM", account_number="", routing_number=""))
    assert response.status_code == 302
    account = PaymentAccount.objects.get()
    assert account.status == "PENDING" and account.account_id is None
    assert account.form_link.startswith("http://testserver/sandbox/forms/bank-accounts/")
    assert AuditEvent.objects.get(action="payment_account.create").target_id == f"pending:{account.pk}"

    page = admin.get(response["Location"]).content.decode()
    assert "send the owner the hosted form link" in page
    assert f'<a href="{account.form_link}" target="_blank" rel="noopener noreferrer">Open the hosted form</a>' in page
    assert f'data-copy="{account.form_link}"' in page
    assert "No balance until the hosted form is completed." in page
    listing = admin.get(reverse("payments-list-payment-accounts"), {"status": "PENDING"}).content.decode()
    assert f'data-copy="{account.form_link}"' in listing

    refresh = reverse("payments-refresh-payment-account", args=[account.pk])
    still = admin.post(refresh, follow=True)
    assert "Refreshed: the account is still pending." in still.content.decode()

    token = account.form_link.rsplit("/", 1)[1]
    upstream.helper(
        f"bank-account-forms/{token}/complete", {"bankAccountNumber": "987654321", "bankRoutingNumber": ROUTING}
    )
    done = admin.post(refresh, follow=True)
    assert "Refreshed: the account is now active." in done.content.decode()
    account.refresh_from_db()
    assert account.status == "ACTIVE" and account.account_id
    assert account.details["bankAccountMask"] == "****4321"
    assert "987654321" not in str(account.details) and "987654321" not in done.content.decode()
    # The next full sync finds the same row by its new id: no duplicate.
    assert sync_payment_accounts().outcome == "succeeded"
    assert PaymentAccount.objects.count() == 1


def test_refresh_of_an_active_account(admin, upstream, customer_id):
    made = make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    account = PaymentAccount.objects.get(account_id=made["paymentAccountId"])
    PaymentAccount.objects.filter(pk=account.pk).update(nickname="stale")
    response = admin.post(reverse("payments-refresh-payment-account", args=[account.pk]), follow=True)
    assert "Refreshed: the account is still active." in response.content.decode()
    account.refresh_from_db()
    assert account.nickname == "wallet"
    assert AuditEvent.objects.filter(action="payment_account.refresh", outcome="success").count() == 1


def test_refresh_when_the_api_is_down(admin, upstream, customer_id, faulty_upstream):
    make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    account = PaymentAccount.objects.get()
    before = mirror_snapshot()
    faulty_upstream.fail("slow")
    response = admin.post(reverse("payments-refresh-payment-account", args=[account.pk]), follow=True)
    assert "The Payments API did not answer; try again." in response.content.decode()
    assert mirror_snapshot() == before


def test_service_crypto_wallet_and_its_balances(admin, upstream, customer_id):
    form = marked(account_type="SERVICE_CRYPTO_WALLET", customer_id=customer_id, nickname="Hot", chain="BASE")
    response = admin.post(CREATE, form)
    assert response.status_code == 302
    account = PaymentAccount.objects.get()
    assert account.details["cryptoWalletType"] == "EVM" and account.details["address"]["address"].startswith("0x")
    upstream.helper(
        f"payment-accounts/{account.account_id}/fund", {"currency": "USDC", "chain": "BASE", "amount": "12.5"}
    )

    url = reverse("payments-view-payment-account-balances", args=[account.pk])
    fragment = admin.get(url, headers={"HX-Request": "true"})
    html = fragment.content.decode()
    assert "<html" not in html and 'id="balances"' in html
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", html)]
    assert cells == [
        "USDC", "Base", "12.500000", "12.50",
        "EURC", "Base", "0.000000", "0.00",
        "ETH", "Base", "0.000000000000000000", "0.00",
    ]  # fmt: skip
    assert '<span title="BASE">Base</span>' in html  # the chain in words, its code on hover


def test_service_auto_fiat_account(admin, customer_id):
    form = marked(
        account_type="SERVICE_AUTO_FIAT_ACCOUNT",
        customer_id=customer_id,
        currency="EUR",
        destination_currencies=["USDC", "EURC"],
    )
    assert admin.post(CREATE, form).status_code == 302
    account = PaymentAccount.objects.get()
    assert account.details == {
        "currency": {"label": "EUR"},
        "supportedDestinationCurrencies": [{"label": "USDC"}, {"label": "EURC"}],
    }
    page = admin.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    assert "USDC, EURC" in page


def test_unknown_type_is_a_bad_request(admin):
    assert admin.post(CREATE, {"account_type": "SERVICE_FIAT_ACCOUNT"}).status_code == 400


def test_new_form_offers_every_creatable_type(admin):
    page = admin.get(reverse("payments-create-payment-account"), {"type": "EXTERNAL_CRYPTO_WALLET", "customer": "c-1"})
    html = page.content.decode()
    for title in (
        "External bank account",
        "External crypto wallet",
        "Service crypto wallet",
        "Service auto-fiat account",
    ):
        assert title in html
    assert page.context["form"]["customer_id"].value() == "c-1"
    assert '<label for="id_address">Wallet address:</label>' in html


# --- Balances ---------------------------------------------------------------------------------


def test_detail_page_loads_balances_after_rendering(client_as, upstream, customer_id):
    made = make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    account = PaymentAccount.objects.get(account_id=made["paymentAccountId"])
    upstream.helper(f"payment-accounts/{account.account_id}/fund", {"amount": "3.25"})
    client = client_as("auditor")
    page = client.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    url = reverse("payments-view-payment-account-balances", args=[account.pk])
    assert f'hx-get="{url}" hx-trigger="load"' in page
    assert f'<a href="{url}">Show balances</a>' in page  # without JavaScript
    assert "Refresh from the API" not in page  # admin only
    # The link alone: a whole page with the balance.
    full = client.get(url)
    assert "<html" in full.content.decode() and "3.250000" in full.content.decode()


def test_balances_when_the_api_is_down(client_as, upstream, customer_id, faulty_upstream):
    make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    account = PaymentAccount.objects.get()
    faulty_upstream.fail("slow")
    response = client_as("operations").get(
        reverse("payments-view-payment-account-balances", args=[account.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert "The Payments API did not answer; try again." in response.content.decode()
    # One try with a short timeout, no retry: the page is waiting.
    assert len(faulty_upstream.requests) == 1 and faulty_upstream.sleeps == []
    assert faulty_upstream.requests[0].extensions["timeout"]["read"] == 3.0


# --- List -------------------------------------------------------------------------------------


def test_list_filters_and_a_fixed_number_of_queries(client_as, upstream, customer_id, django_assert_max_num_queries):
    other = make_customer(upstream, email="grace@example.com")
    for kind in ("wallet", "service_wallet", "bank"):
        make_account(upstream, customer_id, kind)
    make_account(upstream, other, "wallet")
    sync_payment_accounts()
    client = client_as("auditor")
    url = reverse("payments-list-payment-accounts")
    client.get(url)  # warm-up: session, user and permissions
    with django_assert_max_num_queries(6):
        everything = client.get(url)
    assert len(everything.context["page"].items) == 4
    with django_assert_max_num_queries(6):
        wallets = client.get(url, {"account_type": "EXTERNAL_CRYPTO_WALLET"})
    assert len(wallets.context["page"].items) == 2
    mine = client.get(url, {"customer": customer_id, "account_type": "EXTERNAL_CRYPTO_WALLET"})
    assert [a.customer.customer_id for a in mine.context["page"].items] == [customer_id]
    assert client.get(url, {"status": "PENDING"}).context["page"].items == []
    fragment = client.get(url, {"customer": other}, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and fragment.count("<tr>") == 2  # header + one row
    assert "New payment account" not in everything.content.decode()  # auditors read only


def test_list_pages_by_keyset(client_as, upstream, customer_id, monkeypatch):
    monkeypatch.setattr("payments.views.accounts.PAGE_SIZE", 2)
    for _ in range(3):
        make_account(upstream, customer_id, "wallet")
    sync_payment_accounts()
    client = client_as("operations")
    url = reverse("payments-list-payment-accounts")
    first = client.get(url).context["page"]
    second = client.get(url, {"cursor": first.next_cursor}).context["page"]
    seen = [a.pk for a in first.items + second.items]
    assert len(seen) == 3 == len(set(seen)) and second.next_cursor is None


def test_admin_sees_the_create_link(client_as):
    html = client_as("admin").get(reverse("payments-list-payment-accounts")).content.decode()
    assert reverse("payments-create-payment-account") in html


def test_nav_links_by_permission(client_as):
    html = client_as("compliance").get(reverse("home")).content.decode()
    nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    assert "Payment accounts" in nav and "Automation rules" in nav and "Exchange rates" in nav
    html = client_as(None).get(reverse("home")).content.decode()
    nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    assert "Payment accounts" not in nav


# --- What the list shows of an account ----------------------------------------------------------


@pytest.mark.parametrize(
    ("account_type", "details", "type_label", "currency"),
    [
        (
            "EXTERNAL_BANK_ACCOUNT",
            {"bankAccountCurrency": {"label": "USD"}, "bankAccountPaymentMethod": "ACH"},
            "External bank account",
            "USD · ACH",
        ),
        ("EXTERNAL_BANK_ACCOUNT", {"bankAccountCurrency": "USD"}, "External bank account", "USD"),
        (
            "EXTERNAL_CRYPTO_WALLET",
            {"currency": {"label": "USDC", "chain": "BASE"}, "address": {"address": "0xabc", "chain": "BASE"}},
            "External crypto wallet",
            "USDC on Base",
        ),
        (
            "SERVICE_CRYPTO_WALLET",
            {"cryptoWalletType": "EVM", "address": {"address": "0xabc", "chain": "POLYGON"}},
            "Service crypto wallet",
            "Polygon",
        ),
        (
            "SERVICE_AUTO_FIAT_ACCOUNT",
            {"currency": {"label": "EUR"}, "supportedDestinationCurrencies": [{"label": "USDC"}, {"label": "EURC"}]},
            "Service auto-fiat account",
            "EUR → USDC, EURC",
        ),
        ("SERVICE_FIAT_ACCOUNT", {}, "Service fiat account", "—"),
        ("A_TYPE_ADDED_LATER", {"unknown": 1}, "A_TYPE_ADDED_LATER", "—"),
    ],
)
def test_type_label_and_currency_summary(account_type, details, type_label, currency):
    account = PaymentAccount(account_type=account_type, details=details)
    assert (account.type_label, account.currency_summary) == (type_label, currency)


def test_list_shows_type_and_currency(client_as, upstream, customer_id):
    make_account(upstream, customer_id, "wallet")
    make_account(upstream, customer_id, "bank")
    sync_payment_accounts()
    html = client_as("operations").get(reverse("payments-list-payment-accounts")).content.decode()
    assert "External crypto wallet" in html and "USDC on Base" in html
    assert "External bank account" in html and "USD · ACH" in html
