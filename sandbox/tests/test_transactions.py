import datetime as dt
import uuid

import pytest

from sandbox import clock
from sandbox.models import Quote, Transaction

from .conftest import assert_error, offramp_quote, quote_body


def create(api, quote_id, key=None, **body):
    return api.post("/transactions", {"quoteId": quote_id, **body}, HTTP_X_IDEMPOTENCY_KEY=key or str(uuid.uuid4()))


def parse(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))


@pytest.fixture
def awaiting(api, onramp):
    """An onramp transaction in AWAITING_TRANSFER."""
    response = create(api, onramp["quote"]()["quoteId"], correlationId="order-1")
    assert response.status_code == 201, response.json()
    return response.json()


def advance(api, tx_id, to):
    return api.post(f"/test-helpers/transactions/{tx_id}/advance", {"to": to})


def test_onramp_awaits_a_fiat_transfer(api, onramp):
    quote = onramp["quote"]()
    before = clock.now()
    response = create(api, quote["quoteId"], correlationId="order-1")
    assert response.status_code == 201
    tx = response.json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    assert tx["quoteId"] == quote["quoteId"] and tx["customerId"] == onramp["customer_id"]
    assert tx["correlationId"] == "order-1"
    assert tx["source"] == {
        "sourceCurrency": {"label": "USD"},
        "sourcePaymentMethod": "ACH",
        "sourceAmount": "100.00",
        "sourcePaymentAccountId": onramp["bank"]["paymentAccountId"],
    }
    assert tx["destination"]["destinationAmount"] == quote["destinationAmount"]
    assert tx["destination"]["exchangeRate"] == quote["estimatedExchangeRate"]
    assert tx["destination"]["destinationCurrency"]["chain"] == "BASE"
    assert tx["fees"] == quote["fees"]
    assert before + dt.timedelta(minutes=30) <= parse(tx["expiresAt"]) <= clock.now() + dt.timedelta(minutes=30)
    instructions = tx["transferInstructions"]
    assert set(instructions) == {
        "type",
        "transferPaymentMethod",
        "transferMessage",
        "transferBankName",
        "transferBankAddress",
        "transferBankBeneficiaryName",
        "transferBankAccountNumber",
        "transferRoutingNumber",
    }
    assert instructions["type"] == "fiat" and instructions["transferPaymentMethod"] == "ACH"
    assert instructions["transferBankBeneficiaryName"].endswith("Ada Lovelace")
    assert api.get(f"/transactions/{tx['transactionId']}").json() == tx


def iban_ok(iban: str) -> bool:
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


@pytest.mark.parametrize(
    ("currency", "rail", "fields"),
    [
        ("EUR", "SEPA", {"transferIban", "transferBicSwift"}),
        ("GBP", "GB_BACS_CHAPS_FPS", {"transferSortCode", "transferBankAccountNumber"}),
        ("MXN", "MX_SPEI", {"transferClabeNumber"}),
        ("INR", "IN_NEFT_RTGS_IMPS", {"transferIfscCode", "transferBankAccountNumber"}),
        ("BRL", "BR_TED_DOC_PIX", {"transferPixCode"}),
        ("AUD", "AU_BECS", {"transferBsbNumber", "transferBankAccountNumber"}),
        ("CAD", "CA_INTERAC", {"transferBankCode", "transferTransitNumber", "transferBankAccountNumber"}),
        ("NGN", "NG_NIBSS_NEFT", {"transferNubanCode"}),
        ("CNY", "CN_CNAPS", {"transferCnapsCode", "transferBankAccountNumber"}),
        ("PLN", "PL_ELIXIR_BLUE_CASH", {"transferIban", "transferBicSwift"}),
        ("USD", "SWIFT", {"transferBankAccountNumber", "transferBicSwift"}),
    ],
)
def test_fiat_instructions_carry_only_the_rails_fields(api, onramp, make_account, currency, rail, fields):
    account = make_account(onramp["customer_id"], "fiat", serviceFiatAccount={"currency": currency})
    amount = "50000" if currency in ("NGN", "INR") else "500.00"
    body = quote_body(
        onramp["customer_id"],
        account["paymentAccountId"],
        onramp["wallet"]["paymentAccountId"],
        source={"sourceCurrency": currency, "sourcePaymentMethod": rail, "sourceAmount": amount},
    )
    quote = api.post("/quotes", body).json()
    tx = create(api, quote["quoteId"]).json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    instructions = tx["transferInstructions"]
    common = {"type", "transferPaymentMethod", "transferMessage", "transferBankName", "transferBankAddress"}
    assert set(instructions) == common | {"transferBankBeneficiaryName"} | fields
    if "transferIban" in fields:
        assert iban_ok(instructions["transferIban"])
    if rail == "MX_SPEI":
        clabe = instructions["transferClabeNumber"]
        assert len(clabe) == 18
        weights = [3, 7, 1] * 6
        assert (10 - sum(int(d) * w % 10 for d, w in zip(clabe[:17], weights, strict=False)) % 10) % 10 == int(
            clabe[17]
        )


def test_offramp_from_an_external_wallet_gets_a_deposit_address(api, onramp):
    tx = create(api, offramp_quote(api, onramp, onramp["wallet"]["paymentAccountId"])["quoteId"]).json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    instructions = tx["transferInstructions"]
    assert instructions["type"] == "crypto"
    assert instructions["chain"] == "BASE" and instructions["currency"]["label"] == "USDC"
    assert instructions["amount"] == "20.000000"
    assert instructions["depositAddress"].startswith("0x") and len(instructions["depositAddress"]) == 42


def balance(api, account_id, **params):
    return api.get(f"/payment-accounts/{account_id}/balance", params).json()["balance"]


def test_offramp_from_a_funded_service_wallet_processes_at_once(api, onramp, make_account):
    wallet = make_account(onramp["customer_id"], "service_wallet")["paymentAccountId"]
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "25"})
    quote = offramp_quote(api, onramp, wallet)
    tx = create(api, quote["quoteId"]).json()
    assert tx["transactionStatus"] == "PROCESSING"
    assert "expiresAt" not in tx
    assert tx["source"]["sourceReferenceId"].startswith("0x") and len(tx["source"]["sourceReferenceId"]) == 66
    assert balance(api, wallet, currency="USDC") == "5.000000"
    assert_error(api.delete(f"/transactions/{tx['transactionId']}"), 400, "BAD_REQUEST")

    done = advance(api, tx["transactionId"], "COMPLETED").json()
    assert done["transactionStatus"] == "COMPLETED"
    assert done["destination"]["destinationReferenceId"].startswith("SBXREF")
    assert balance(api, onramp["bank"]["paymentAccountId"]) == quote["destinationAmount"]


def test_an_unfunded_service_wallet_waits_for_its_deposit(api, onramp, make_account):
    wallet = make_account(onramp["customer_id"], "service_wallet")
    wallet_id = wallet["paymentAccountId"]
    tx = create(api, offramp_quote(api, onramp, wallet_id)["quoteId"]).json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    assert tx["transferInstructions"]["depositAddress"] == wallet["serviceCryptoWallet"]["address"]["address"]
    message = assert_error(advance(api, tx["transactionId"], "PROCESSING"), 400, "BAD_REQUEST")["message"]
    assert "fund it first" in message
    api.post(f"/test-helpers/payment-accounts/{wallet_id}/fund", {"currency": "USDC", "amount": "20"})
    assert advance(api, tx["transactionId"], "PROCESSING").json()["transactionStatus"] == "PROCESSING"
    assert balance(api, wallet_id, currency="USDC") == "0.000000"
    # A failure gives the money back.
    assert advance(api, tx["transactionId"], "FAILED").json()["transactionStatus"] == "FAILED"
    assert balance(api, wallet_id, currency="USDC") == "20.000000"
    message = assert_error(advance(api, tx["transactionId"], "COMPLETED"), 400, "BAD_REQUEST")["message"]
    assert "FAILED" in message and "final" in message


def test_the_whole_onramp_credits_the_wallet(api, onramp, awaiting):
    tx_id = awaiting["transactionId"]
    processing = advance(api, tx_id, "PROCESSING").json()
    assert processing["transactionStatus"] == "PROCESSING" and "expiresAt" not in processing
    assert processing["source"]["sourceReferenceId"].startswith("SBXREF")
    message = assert_error(advance(api, tx_id, "EXPIRED"), 400, "BAD_REQUEST")["message"]
    assert "COMPLETED or FAILED" in message
    completed = advance(api, tx_id, "COMPLETED").json()
    assert completed["transactionStatus"] == "COMPLETED"
    assert completed["destination"]["destinationReferenceId"].startswith("0x")
    assert parse(completed["updatedAt"]) >= parse(completed["createdAt"])
    assert balance(api, onramp["wallet"]["paymentAccountId"]) == "99.250000"
    assert_error(advance(api, tx_id, "bogus"), 400, "VALIDATION_ERROR")


def test_idempotent_replay(api, onramp):
    quote = onramp["quote"]()
    first = create(api, quote["quoteId"], key="key-1", correlationId="c")
    assert first.status_code == 201 and "x-idempotent-replayed" not in first.headers
    again = create(api, quote["quoteId"], key="key-1", correlationId="c")
    assert again.status_code == 201
    assert again.headers["x-idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert Transaction.objects.count() == 1

    other = create(api, quote["quoteId"], key="key-1", correlationId="d")
    assert "different request body" in assert_error(other, 400, "BAD_REQUEST")["message"]
    # Another key for the same quote: the quote is used.
    used = create(api, quote["quoteId"], key="key-2")
    assert "already been used" in assert_error(used, 400, "BAD_REQUEST")["message"]
    # Errors are replayed too, for 24 hours; then the key is free again.
    assert create(api, quote["quoteId"], key="key-2").headers["x-idempotent-replayed"] == "true"
    clock.advance(24 * 3600 + 1)
    later = create(api, onramp["quote"]()["quoteId"], key="key-1", correlationId="c")
    assert later.status_code == 201 and "x-idempotent-replayed" not in later.headers


def test_keys_are_per_api_key(api, api_key, make_api, onramp):
    colleague = make_api(organization_id=api_key[0].organization_id)
    first = create(api, onramp["quote"]()["quoteId"], key="shared")
    second = create(colleague, onramp["quote"]()["quoteId"], key="shared")
    assert first.status_code == second.status_code == 201
    assert first.json()["transactionId"] != second.json()["transactionId"]


def test_the_idempotency_key_is_required(api, onramp):
    response = api.post("/transactions", {"quoteId": onramp["quote"]()["quoteId"]})
    details = assert_error(response, 400, "VALIDATION_ERROR")["details"]
    assert details == [
        {
            "path": ["x-idempotency-key"],
            "message": "Required header: 1 to 255 printable ASCII characters, no spaces",
            "location": "header",
        }
    ]


def test_quote_problems(api, make_api, onramp, customer_factory):
    quote = onramp["quote"]()
    clock.advance(5 * 60)
    expired = create(api, quote["quoteId"])
    assert "expired" in assert_error(expired, 400, "BAD_REQUEST")["message"]
    missing = str(uuid.uuid4())
    assert assert_error(create(api, missing), 404, "NOT_FOUND")["message"] == f"Quote {missing} not found"
    assert_error(create(api, "not-a-uuid"), 404, "NOT_FOUND")
    details = assert_error(api.post("/transactions", {}, HTTP_X_IDEMPOTENCY_KEY="k"), 400, "VALIDATION_ERROR")[
        "details"
    ]
    assert details[0]["path"] == ["quoteId"]
    assert_error(create(make_api(), onramp["quote"]()["quoteId"]), 403, "FORBIDDEN")


def test_a_quote_taken_by_a_racing_request_is_refused(api, onramp):
    """The quote row lock and the one-to-one column keep a quote to one transaction even when two
    requests both saw it unused: here the other request's row exists but the quote was not marked."""
    quote = onramp["quote"]()
    create(api, quote["quoteId"])
    Quote.objects.filter(pk=quote["quoteId"]).update(used_at=None)
    response = create(api, quote["quoteId"])
    assert "already been used" in assert_error(response, 400, "BAD_REQUEST")["message"]
    assert Transaction.objects.filter(quote_id=quote["quoteId"]).count() == 1


def test_customer_must_still_be_active(api, onramp):
    quote = onramp["quote"]()
    api.post(f"/test-helpers/customers/{onramp['customer_id']}/deactivate")
    assert "DEACTIVATED" in assert_error(create(api, quote["quoteId"]), 400, "BAD_REQUEST")["message"]


def test_cancel(api, awaiting):
    tx_id = awaiting["transactionId"]
    response = api.delete(f"/transactions/{tx_id}")
    assert response.status_code == 200
    assert response.json() == {"message": f"Transaction {tx_id} cancelled"}
    cancelled = api.get(f"/transactions/{tx_id}").json()
    assert cancelled["transactionStatus"] == "CANCELLED" and "expiresAt" not in cancelled
    message = assert_error(api.delete(f"/transactions/{tx_id}"), 400, "BAD_REQUEST")["message"]
    assert "CANCELLED" in message
    assert_error(advance(api, tx_id, "PROCESSING"), 400, "BAD_REQUEST")


def test_cancel_a_created_transaction(api, awaiting):
    Transaction.objects.filter(pk=awaiting["transactionId"]).update(status="CREATED", expires_at=None)
    assert api.delete(f"/transactions/{awaiting['transactionId']}").status_code == 200


def test_created_moves_to_awaiting_transfer(api, awaiting):
    Transaction.objects.filter(pk=awaiting["transactionId"]).update(status="CREATED", expires_at=None)
    moved = advance(api, awaiting["transactionId"], "AWAITING_TRANSFER").json()
    assert moved["transactionStatus"] == "AWAITING_TRANSFER" and moved["expiresAt"]


@pytest.mark.parametrize("path", [["PROCESSING"], ["PROCESSING", "COMPLETED"], ["PROCESSING", "FAILED"], ["EXPIRED"]])
def test_cannot_cancel_after_awaiting_transfer(api, awaiting, path):
    for state in path:
        assert advance(api, awaiting["transactionId"], state).status_code == 200
    message = assert_error(api.delete(f"/transactions/{awaiting['transactionId']}"), 400, "BAD_REQUEST")["message"]
    assert path[-1] in message


def test_expiry_on_the_sandbox_clock(api, awaiting):
    clock.advance(30 * 60)
    expired = api.get(f"/transactions/{awaiting['transactionId']}").json()
    assert expired["transactionStatus"] == "EXPIRED"
    assert "expiresAt" not in expired
    assert expired["updatedAt"] == awaiting["expiresAt"]
    assert (
        "EXPIRED"
        in assert_error(api.delete(f"/transactions/{awaiting['transactionId']}"), 400, "BAD_REQUEST")["message"]
    )


def test_reads_and_permissions(api, api_key, make_api, awaiting):
    tx_id = awaiting["transactionId"]
    missing = str(uuid.uuid4())
    assert (
        assert_error(api.get(f"/transactions/{missing}"), 404, "NOT_FOUND")["message"]
        == f"Transaction {missing} not found"
    )
    assert_error(api.delete(f"/transactions/{missing}"), 404, "NOT_FOUND")
    assert_error(advance(api, missing, "PROCESSING"), 404, "NOT_FOUND")
    other = make_api()
    assert_error(other.get(f"/transactions/{tx_id}"), 403, "FORBIDDEN")
    assert_error(other.delete(f"/transactions/{tx_id}"), 403, "FORBIDDEN")
    assert_error(advance(other, tx_id, "PROCESSING"), 403, "FORBIDDEN")
    read_only = make_api(read_only=True, organization_id=api_key[0].organization_id)
    assert read_only.get(f"/transactions/{tx_id}").status_code == 200
    assert_error(read_only.delete(f"/transactions/{tx_id}"), 403, "FORBIDDEN")
    assert_error(create(read_only, str(uuid.uuid4())), 403, "FORBIDDEN")


def test_third_party_destination(api, onramp, customer_factory, make_account):
    stranger = customer_factory("ACTIVE")["customerId"]
    third = make_account(stranger, "wallet", isThirdParty=True)
    quote = onramp["quote"](destination={"destinationPaymentAccountId": third["paymentAccountId"]})
    assert create(api, quote["quoteId"]).status_code == 201
