"""Set-up shared by the transactions workspace's tests: a real sandbox customer with accounts
brought into the mirror the way production does (a sync), the quote builder's POST and the
automation rule form's.
(Mirror rows a test sets up directly come from tests/factories.py.)"""

KYC = {
    "legalFirstName": "Ada",
    "legalLastName": "Lovelace",
    "phoneNumber": "+12025550123",
    "dateOfBirth": "1990-12-10",
    "nationalIdType": "ssn",
    "nationalIdNumber": "123-45-6789",
    "nationalIdIssuingCountry": "US",
    "nationality": "US",
}
BANK = {
    "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
    "nickname": "Checking",
    "externalBankAccount": {
        "bankAccountType": "CHECKING",
        "bankAccountOwnerName": "Ada Lovelace",
        "bankAccountOwnerEmail": "ada@example.com",
        "bankName": "First Test Bank",
        "bankAccountCurrency": "USD",
        "bankAccountPaymentMethod": "ACH",
        "bankAccountNumber": "000123456789",
        "bankRoutingNumber": "021000021",
    },
}
WALLET = {
    "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
    "nickname": "Base wallet",
    "externalCryptoWallet": {"currency": "USDC", "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}},
}


def sandbox_customer(upstream, *, name: str = "Ada", with_accounts: bool = True) -> dict:
    """An ACTIVE sandbox customer with an ACH bank account and a BASE USDC wallet, synced into
    the mirror: {"customer_id", "bank", "wallet"}."""
    from mirror.sync import sync_customers, sync_payment_accounts

    body = {
        "customerType": "INDIVIDUAL",
        "email": f"{name.lower()}@example.com",
        "firstName": name,
        "lastName": "Lovelace",
        "kycData": KYC,
    }
    customer = upstream.call("POST", "/customers", body)
    customer_id = customer["customerId"]
    upstream.helper(f"customers/{customer_id}/review", {"outcome": "ACTIVE", "issues": []})
    result = {"customer_id": customer_id}
    if with_accounts:
        result["bank"] = upstream.call("POST", "/payment-accounts", {**BANK, "customerId": customer_id})
        result["wallet"] = upstream.call("POST", "/payment-accounts", {**WALLET, "customerId": customer_id})
    assert sync_customers().outcome == "succeeded"
    assert sync_payment_accounts().outcome == "succeeded"
    return result


def quote_post_data(setup: dict, **overrides) -> dict:
    """The builder's POST for a 100.00 USD ACH → BASE USDC onramp."""
    data = {
        "customer": setup["customer_id"],
        "source_account": setup["bank"]["paymentAccountId"],
        "source_method": "ACH",
        "source_currency": "USD",
        "destination_account": setup["wallet"]["paymentAccountId"],
        "destination_method": "BASE",
        "destination_currency": "USDC",
        "amount": "100.00",
        "developer_fee": "",
        "correlation_id": "",
    }
    return {**data, **overrides}


def rule_post_data(*, customer_id: str, source: str, destination: str, **overrides) -> dict:
    """The automation rule form's POST: 50.00 USDC from the BASE wallet `source` to the ACH bank
    account `destination`, on weekdays at 9."""
    data = {
        "name": "Sweep USDC to the bank",
        "customer_id": customer_id,
        "source_account_id": source,
        "source_payment_method": "BASE",
        "source_currency": "USDC",
        "destination_account_id": destination,
        "destination_payment_method": "ACH",
        "destination_currency": "USD",
        "amount": "50.00",
        "developer_fee": "",
        "trigger_type": "CRON",
        "cron_schedule": "0  9 * * 1-5",
        "threshold_amount": "",
    }
    return {**data, **overrides}
