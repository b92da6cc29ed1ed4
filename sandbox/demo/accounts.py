"""The demo's payment accounts: bank accounts (active and pending) and wallets."""

from ..models import Customer, PaymentAccount
from ..serializers.accounts import PaymentAccountCreateIn, aba_checksum_ok
from ..serializers.fields import validated
from ..services.accounts import payment_account_create
from ..services.addresses import base58
from .seeding import Seeding


def account(run: Seeding, customer: Customer, body: dict) -> PaymentAccount:
    """A payment account made from a POST /payment-accounts body, as the API makes it."""
    data = validated(PaymentAccountCreateIn, {"customerId": str(customer.pk), **body})
    return payment_account_create(api_key=run.api_key, data=data)


def bank_account(run: Seeding, customer: Customer, method: str = "ACH") -> PaymentAccount:
    number = "".join(str(run.rng.randint(0, 9)) for _ in range(run.rng.randint(10, 12)))
    return account(
        run,
        customer,
        {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "nickname": run.rng.choice(["Operating account", "Main checking", "Payroll", "Savings"]),
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": customer.name,
                "bankAccountOwnerEmail": customer.email,
                "bankName": run.rng.choice(["First Harbor Bank", "Prairie National Bank", "Summit Credit Union"]),
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": method,
                "bankAccountNumber": number,
                "bankRoutingNumber": routing_number(run),
            },
        },
    )


def pending_bank_account(run: Seeding, customer: Customer) -> PaymentAccount:
    """Without numbers: PENDING, waiting for its hosted bank-account form."""
    return account(
        run,
        customer,
        {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "nickname": "Payout account (form sent)",
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": customer.name,
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "WIRE",
            },
        },
    )


def routing_number(run: Seeding) -> str:
    """Eight random digits and the ABA check digit: valid in form, no real bank's number."""
    head = "0" + "".join(str(run.rng.randint(0, 9)) for _ in range(7))
    check = next(str(d) for d in range(10) if aba_checksum_ok(head + str(d)))
    return head + check


def external_wallet(run: Seeding, customer: Customer, chain: str | None = None) -> PaymentAccount:
    chain = chain or run.rng.choice(["BASE", "BASE", "POLYGON", "SOLANA"])
    address = base58(run.rng.randbytes(32)) if chain == "SOLANA" else "0x" + run.rng.randbytes(20).hex()
    return account(
        run,
        customer,
        {
            "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
            "nickname": f"{chain.title()} wallet",
            "externalCryptoWallet": {"currency": "USDC", "address": {"address": address, "chain": chain}},
        },
    )


def wallet_chain(wallet: PaymentAccount) -> str:
    return wallet.details["address"]["chain"]
