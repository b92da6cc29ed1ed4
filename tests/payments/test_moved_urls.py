"""Addresses of before answer 308 to where the page is now: bookmarks and shared links work,
and a form posted to an old address is posted again to the new one (308 keeps the method)."""

import pytest

from tests.factories import AutomationRuleFactory, PaymentAccountFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/payments/accounts/new/?type=EXTERNAL_BANK_ACCOUNT", "/payments/accounts/new?type=EXTERNAL_BANK_ACCOUNT"),
        ("/payments/accounts/create/", "/payments/accounts/new"),
        ("/payments/accounts/{account}/balances/", "/payments/accounts/{account}/balances"),
        ("/payments/accounts/{account}/refresh/", "/payments/accounts/{account}/refresh"),
        ("/payments/rules/new/", "/payments/rules/new"),
        ("/payments/rules/create/", "/payments/rules/new"),
        ("/payments/rules/{rule}/edit/", "/payments/rules/{rule}/edit"),
        ("/payments/rules/{rule}/update/", "/payments/rules/{rule}/edit"),
        ("/payments/quotes/create", "/payments/quotes/new"),
        ("/payments/transactions/tx-1/confirm-cancel", "/payments/transactions/tx-1/cancel"),
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_old_address_answers_308_to_the_new_one(client_as, old, new, method):
    ids = {"account": PaymentAccountFactory().pk, "rule": AutomationRuleFactory().pk}
    response = getattr(client_as("admin"), method)(old.format(**ids))
    assert response.status_code == 308
    assert response["Location"] == new.format(**ids)


def test_the_new_form_address_serves_the_form_and_takes_the_post(client_as):
    client = client_as("admin")
    assert client.get("/payments/accounts/new?type=SERVICE_CRYPTO_WALLET").status_code == 200
    response = client.post("/payments/accounts/new", {"account_type": "NOT_A_TYPE"})
    assert response.status_code == 400
