import uuid

import pytest

from sandbox.models import PaymentAccount

from .conftest import SOLANA_ADDRESS, SandboxClient, account_body, assert_error


@pytest.fixture
def customer_id(active_customer):
    return active_customer["customerId"]


def test_bank_account_with_numbers_is_active_and_masked(api, customer_id):
    response = api.post("/payment-accounts", account_body("bank", customer_id))
    assert response.status_code == 201
    body = response.json()
    uuid.UUID(body["paymentAccountId"])
    assert body["paymentAccountType"] == "EXTERNAL_BANK_ACCOUNT"
    assert body["paymentAccountStatus"] == "ACTIVE"
    assert body["customerId"] == customer_id
    assert body["isThirdParty"] is False
    assert body["createdAt"].endswith("Z")
    assert "bankAccountFormLink" not in body
    assert body["externalBankAccount"] == {
        "bankAccountType": "CHECKING",
        "bankAccountOwnerName": "Ada Lovelace",
        "bankAccountOwnerEmail": "ada@example.com",
        "bankName": "First Test Bank",
        "bankAccountCurrency": {"label": "USD"},
        "bankAccountPaymentMethod": "ACH",
        "bankAccountMask": "****6789",
    }


def test_pending_bank_account_then_its_form(api, customer_id):
    response = api.post("/payment-accounts", account_body("pending_bank", customer_id))
    assert response.status_code == 201
    body = response.json()
    assert body["paymentAccountId"] == ""
    assert body["paymentAccountStatus"] == "PENDING"
    assert "createdAt" not in body
    assert "bankAccountMask" not in body["externalBankAccount"]
    link = body["bankAccountFormLink"]
    assert link.startswith("http://testserver/sandbox/forms/bank-accounts/")
    token = link.rsplit("/", 1)[1]
    listed = api.get("/payment-accounts", {"customerId": customer_id}).json()["paymentAccounts"]
    assert listed[0]["paymentAccountId"] == "" and listed[0]["bankAccountFormLink"] == link

    form = {"bankAccountNumber": "987654321", "bankRoutingNumber": "021000021", "bankName": "Second Bank"}
    response = api.post(f"/test-helpers/bank-account-forms/{token}/complete", form)
    assert response.status_code == 200, response.json()
    done = response.json()
    assert done["paymentAccountStatus"] == "ACTIVE"
    uuid.UUID(done["paymentAccountId"])
    assert done["createdAt"]
    assert "bankAccountFormLink" not in done
    assert done["externalBankAccount"]["bankAccountMask"] == "****4321"
    assert done["externalBankAccount"]["bankName"] == "Second Bank"
    assert done["externalBankAccount"]["bankAccountPaymentMethod"] == "WIRE"
    assert api.get(f"/payment-accounts/{done['paymentAccountId']}").json() == done

    again = api.post(f"/test-helpers/bank-account-forms/{token}/complete", form)
    assert "already completed" in assert_error(again, 400, "BAD_REQUEST")["message"]
    unknown = api.post("/test-helpers/bank-account-forms/nope/complete", form)
    assert assert_error(unknown, 404, "NOT_FOUND")["message"] == "Bank account form nope not found"
    bad = api.post(f"/test-helpers/bank-account-forms/{token}/complete", {"bankAccountNumber": "12"})
    assert_error(bad, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"bankAccountCurrency": "EUR"}, ["externalBankAccount", "bankAccountCurrency"]),
        ({"bankAccountPaymentMethod": "SEPA"}, ["externalBankAccount", "bankAccountPaymentMethod"]),
        ({"bankRoutingNumber": "123456789"}, ["externalBankAccount", "bankRoutingNumber"]),
        ({"bankAccountNumber": "12ab"}, ["externalBankAccount", "bankAccountNumber"]),
    ],
)
def test_bank_account_validation(api, customer_id, change, path):
    body = account_body("bank", customer_id)
    body["externalBankAccount"].update(change)
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert [d["path"] for d in details] == [path]
    assert details[0]["location"] == "body"


def test_bank_account_needs_both_numbers_or_neither(api, customer_id):
    body = account_body("bank", customer_id)
    del body["externalBankAccount"]["bankRoutingNumber"]
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["externalBankAccount", "bankRoutingNumber"]


def test_external_wallets(api, customer_id):
    body = account_body("wallet", customer_id)
    created = api.post("/payment-accounts", body).json()
    assert created["externalCryptoWallet"]["currency"] == {
        "label": "USDC",
        "chain": "BASE",
        "contractAddress": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "currencyDecimals": 6,
    }
    # A token may be named by its contract address, any case on EVM chains.
    body["externalCryptoWallet"]["currency"] = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
    assert api.post("/payment-accounts", body).json()["externalCryptoWallet"]["currency"]["label"] == "USDC"
    solana = {"currency": "USDC", "address": {"address": SOLANA_ADDRESS, "chain": "SOLANA"}}
    response = api.post("/payment-accounts", {**body, "externalCryptoWallet": solana})
    assert response.status_code == 201
    assert response.json()["externalCryptoWallet"]["address"] == solana["address"]


@pytest.mark.parametrize(
    ("wallet", "path"),
    [
        ({"currency": "USDC", "address": {"address": "0x123", "chain": "BASE"}}, ["address", "address"]),
        ({"currency": "USDC", "address": {"address": "0x" + "ab" * 20, "chain": "SOLANA"}}, ["address", "address"]),
        ({"currency": "USDC", "address": {"address": "0x" + "ab" * 20, "chain": "base"}}, ["address", "chain"]),
        ({"currency": "USDT", "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}}, ["currency"]),
        ({"currency": "0x" + "cd" * 20, "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}}, ["currency"]),
    ],
)
def test_external_wallet_validation(api, customer_id, wallet, path):
    body = account_body("wallet", customer_id, externalCryptoWallet=wallet)
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["externalCryptoWallet", *path]


def test_service_wallets_get_an_address_of_their_chain(api, customer_id):
    evm = api.post("/payment-accounts", account_body("service_wallet", customer_id)).json()
    assert evm["serviceCryptoWallet"]["cryptoWalletType"] == "EVM"
    assert evm["serviceCryptoWallet"]["address"]["chain"] == "BASE"
    assert len(evm["serviceCryptoWallet"]["address"]["address"]) == 42
    body = account_body("service_wallet", customer_id, serviceCryptoWallet={"chain": "SOLANA"})
    solana = api.post("/payment-accounts", body).json()["serviceCryptoWallet"]
    assert solana["cryptoWalletType"] == "SOLANA"
    assert 32 <= len(solana["address"]["address"]) <= 44
    body = account_body(
        "service_wallet", customer_id, serviceCryptoWallet={"chain": "SOLANA", "cryptoWalletType": "EVM"}
    )
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["serviceCryptoWallet", "cryptoWalletType"]


def test_service_fiat_accounts(api, customer_id):
    fiat = api.post("/payment-accounts", account_body("fiat", customer_id)).json()
    assert fiat["serviceFiatAccount"]["currency"] == {"label": "USD"}
    assert {"ACH", "WIRE", "ACH_SAME_DAY", "SWIFT"} <= set(fiat["serviceFiatAccount"]["supportedPaymentMethods"])
    auto = api.post("/payment-accounts", account_body("auto_fiat", customer_id)).json()
    assert auto["serviceAutoFiatAccount"] == {
        "currency": {"label": "EUR"},
        "supportedDestinationCurrencies": [{"label": "USDC"}, {"label": "EURC"}],
    }
    body = account_body("auto_fiat", customer_id)
    body["serviceAutoFiatAccount"]["supportedDestinationCurrencies"] = []
    assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")


def test_the_type_object_must_match_the_type(api, customer_id):
    body = account_body("wallet", customer_id, paymentAccountType="SERVICE_CRYPTO_WALLET")
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert {tuple(d["path"]) for d in details} == {("serviceCryptoWallet",), ("externalCryptoWallet",)}
    body = account_body("fiat", customer_id, isThirdParty=True)
    details = assert_error(api.post("/payment-accounts", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["isThirdParty"]
    assert api.post("/payment-accounts", account_body("wallet", customer_id, isThirdParty=True)).json()["isThirdParty"]


def test_customer_must_exist_and_be_ours(api, make_api, customer_id, customer_factory):
    missing = str(uuid.uuid4())
    response = api.post("/payment-accounts", account_body("bank", missing))
    assert assert_error(response, 404, "NOT_FOUND")["message"] == f"Customer {missing} not found"
    other = make_api()
    assert_error(other.post("/payment-accounts", account_body("bank", customer_id)), 403, "FORBIDDEN")
    body = account_body("bank", customer_id, organizationId=str(uuid.uuid4()))
    assert_error(api.post("/payment-accounts", body), 403, "FORBIDDEN")
    rejected = customer_factory("REJECTED")["customerId"]
    assert (
        "REJECTED"
        in assert_error(api.post("/payment-accounts", account_body("bank", rejected)), 400, "BAD_REQUEST")["message"]
    )


def test_keys(api, api_key, make_api, customer_id):
    read_only = make_api(read_only=True, organization_id=api_key[0].organization_id)
    assert_error(read_only.post("/payment-accounts", account_body("bank", customer_id)), 403, "FORBIDDEN")
    assert read_only.get("/payment-accounts").status_code == 200
    assert_error(SandboxClient(None).get("/payment-accounts"), 401, "UNAUTHORIZED")


def test_get_one(api, make_api, customer_id, make_account):
    account = make_account(customer_id, "service_wallet")
    assert api.get(f"/payment-accounts/{account['paymentAccountId']}").json() == account
    missing = str(uuid.uuid4())
    response = api.get(f"/payment-accounts/{missing}")
    assert assert_error(response, 404, "NOT_FOUND")["message"] == f"Payment account {missing} not found"
    assert_error(api.get("/payment-accounts/not-a-uuid"), 404, "NOT_FOUND")
    assert_error(make_api().get(f"/payment-accounts/{account['paymentAccountId']}"), 403, "FORBIDDEN")


def test_list_pages_by_cursor(
    api, make_api, customer_id, make_account, customer_factory, django_assert_max_num_queries
):
    ids = [make_account(customer_id, kind)["paymentAccountId"] for kind in ("bank", "wallet", "fiat")]
    other_customer = customer_factory("ACTIVE")["customerId"]
    make_account(other_customer, "service_wallet")
    other_org = make_api()
    make_account(customer_factory("ACTIVE", client=other_org)["customerId"], "bank", client=other_org)

    seen, token = [], None
    while True:
        params = {"customerId": customer_id, "pageSize": 2} | ({"pageToken": token} if token else {})
        with django_assert_max_num_queries(3):
            page = api.get("/payment-accounts", params).json()
        seen += [a["paymentAccountId"] for a in page["paymentAccounts"]]
        token = page["nextPageToken"]
        if token is None:
            break
    assert seen == ids
    everything = api.get("/payment-accounts").json()
    assert len(everything["paymentAccounts"]) == 4 and everything["nextPageToken"] is None
    assert len(api.get("/payment-accounts", {"pageSize": 1}).json()["paymentAccounts"]) == 1


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageSize": "x"}, "pageSize"),
        ({"pageToken": "garbage!"}, "pageToken"),
        ({"customerId": "nope"}, "customerId"),
    ],
)
def test_list_query_validation(api, params, path):
    details = assert_error(api.get("/payment-accounts", params), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == [path] and details[0]["location"] == "query"


def test_balance_and_funding(api, make_api, customer_id, make_account):
    wallet = make_account(customer_id, "service_wallet")
    path = f"/payment-accounts/{wallet['paymentAccountId']}"
    body = api.get(f"{path}/balance", {"chain": "BASE", "currency": "USDC"}).json()
    assert body == {
        "paymentAccountId": wallet["paymentAccountId"],
        "currency": {
            "label": "USDC",
            "chain": "BASE",
            "contractAddress": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
            "currencyDecimals": "6",
        },
        "balance": "0.000000",
        "usdValue": "0.00",
    }
    funded = api.post(f"/test-helpers{path}/fund", {"currency": "USDC", "chain": "BASE", "amount": "12.5"})
    assert funded.status_code == 200 and funded.json()["balance"] == "12.500000"
    api.post(f"/test-helpers{path}/fund", {"currency": "ETH", "amount": "0.5"})
    eth = api.get(f"{path}/balance", {"chain": "BASE", "currency": "ETH"}).json()
    assert eth["balance"] == "0.500000000000000000" and eth["usdValue"] == "1500.00"
    assert "contractAddress" not in eth["currency"]
    by_address = api.get(f"{path}/balance", {"currency": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"}).json()
    assert by_address["balance"] == "12.500000" and by_address["usdValue"] == "12.50"

    for params, field in [
        ({"chain": "base", "currency": "USDC"}, "chain"),
        ({"chain": "ETHEREUM", "currency": "USDC"}, "chain"),
        ({"chain": "BASE"}, "currency"),
        ({"chain": "BASE", "currency": "BTC"}, "currency"),
    ]:
        details = assert_error(api.get(f"{path}/balance", params), 400, "VALIDATION_ERROR")["details"]
        assert details[0]["path"] == [field] and details[0]["location"] == "query"
    assert (
        "ARBITRUM"
        in assert_error(api.get(f"{path}/balance", {"chain": "base"}), 400, "VALIDATION_ERROR")["details"][0]["message"]
    )
    assert_error(make_api().get(f"{path}/balance", {"currency": "USDC"}), 403, "FORBIDDEN")

    for bad in [
        {"amount": 5, "currency": "USDC"},
        {"amount": "-1", "currency": "USDC"},
        {"amount": "0.0000001", "currency": "USDC"},
    ]:
        assert_error(api.post(f"/test-helpers{path}/fund", bad), 400, "VALIDATION_ERROR")


def test_fiat_balance(api, customer_id, make_account):
    fiat = make_account(customer_id, "fiat")
    path = f"/payment-accounts/{fiat['paymentAccountId']}"
    api.post(f"/test-helpers{path}/fund", {"amount": "100.25"})
    assert api.get(f"{path}/balance").json() == {
        "paymentAccountId": fiat["paymentAccountId"],
        "currency": {"label": "USD"},
        "balance": "100.25",
        "usdValue": "100.25",
    }
    assert_error(api.get(f"{path}/balance", {"chain": "BASE"}), 400, "VALIDATION_ERROR")
    assert_error(api.get(f"{path}/balance", {"currency": "EUR"}), 400, "VALIDATION_ERROR")


def test_pending_account_is_kept_without_id(api, customer_id, make_account):
    make_account(customer_id, "pending_bank")
    account = PaymentAccount.objects.get(status="PENDING")
    assert account.account_id is None and account.created_at is None
