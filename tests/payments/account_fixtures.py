"""Records the accounts tests need, made through the sandbox's API and test helpers."""

from mirror.sync import sync_customers
from sandbox.tests.conftest import KYC_DATA

EVM_ADDRESS = "0x" + "ab" * 20
SOLANA_ADDRESS = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"
ROUTING = "021000021"  # passes the ABA checksum


def make_customer(upstream, *, status: str = "ACTIVE", email: str = "ada@example.com") -> str:
    """A customer brought to `status` upstream and into the mirror; -> its id."""
    body = {"customerType": "INDIVIDUAL", "email": email, "firstName": "Ada", "lastName": "Lovelace"}
    customer = upstream.call("POST", "/customers", {**body, "kycData": dict(KYC_DATA)})
    customer_id = customer["customerId"]
    outcome = "ACTIVE" if status == "DEACTIVATED" else status
    issues = [] if outcome == "ACTIVE" else [{"code": "DOCUMENT_MISSING_BACK", "message": "Back of the ID missing"}]
    upstream.helper(f"customers/{customer_id}/review", {"outcome": outcome, "issues": issues})
    if status == "DEACTIVATED":
        upstream.helper(f"customers/{customer_id}/deactivate")
    run = sync_customers()
    assert run.outcome == "succeeded", run.error
    return customer_id


def make_account(upstream, customer_id: str, kind: str) -> dict:
    """An account made straight through the API (not through the back-office)."""
    bodies = {
        "wallet": {
            "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
            "externalCryptoWallet": {"currency": "USDC", "address": {"address": EVM_ADDRESS, "chain": "BASE"}},
        },
        "service_wallet": {"paymentAccountType": "SERVICE_CRYPTO_WALLET", "serviceCryptoWallet": {"chain": "BASE"}},
        "bank": {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": "Ada Lovelace",
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "ACH",
                "bankAccountNumber": "000123456789",
                "bankRoutingNumber": ROUTING,
            },
        },
    }
    return upstream.call("POST", "/payment-accounts", {**bodies[kind], "customerId": customer_id, "nickname": kind})
