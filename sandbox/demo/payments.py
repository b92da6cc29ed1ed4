"""The money of the demo's ACTIVE customers: funded accounts, quotes, transactions in every
status and automation rules."""

import datetime as dt

from django.db.models import F

from ..models import AutomationRule, Customer, Quote, Transaction, TransactionStatus
from ..serializers.fields import validated
from ..serializers.quotes import QuoteCreateIn
from ..serializers.rules import RuleCreateIn
from ..services.customers import customer_deactivate
from ..services.ledger import payment_account_fund
from ..services.quotes import quote_create
from ..services.rules import rule_create
from ..services.transactions import transaction_advance, transaction_cancel, transaction_create, transaction_for_key
from .accounts import account, bank_account, external_wallet, pending_bank_account, wallet_chain
from .seeding import Seeding

# An offramp (service wallet -> bank account) that completes; the other scenarios are statuses.
OFFRAMP_COMPLETED = "OFFRAMP_COMPLETED"
# Transaction outcomes handed out to ACTIVE customers in turn, three each.
SCENARIOS = [
    TransactionStatus.AWAITING_TRANSFER,
    TransactionStatus.PROCESSING,
    TransactionStatus.COMPLETED,
    TransactionStatus.FAILED,
    TransactionStatus.CANCELLED,
    TransactionStatus.EXPIRED,
    OFFRAMP_COMPLETED,
]


def fill_active_customer(run: Seeding, customer: Customer, *, deactivate: bool) -> None:
    """Accounts of every type, funded balances, quotes, transactions and a rule."""
    turn = run.active_count
    run.active_count += 1
    bank = bank_account(run, customer)
    wallet = external_wallet(run, customer)
    fiat = account(
        run,
        customer,
        {
            "paymentAccountType": "SERVICE_FIAT_ACCOUNT",
            "nickname": "USD balance",
            "serviceFiatAccount": {"currency": "USD"},
        },
    )
    service_wallet = account(
        run,
        customer,
        {
            "paymentAccountType": "SERVICE_CRYPTO_WALLET",
            "nickname": "Treasury wallet",
            "serviceCryptoWallet": {"cryptoWalletType": "EVM", "chain": "BASE"},
        },
    )
    if turn % 3 == 1:
        auto = account(
            run,
            customer,
            {
                "paymentAccountType": "SERVICE_AUTO_FIAT_ACCOUNT",
                "nickname": "EUR collections",
                "serviceAutoFiatAccount": {"currency": "EUR", "supportedDestinationCurrencies": ["USDC", "EURC"]},
            },
        )
        payment_account_fund(account=auto, chain=None, currency="EUR", amount=run.amount(500, 4000))
    if turn % 3 == 0:
        pending_bank_account(run, customer)

    payment_account_fund(account=fiat, chain=None, currency="USD", amount=run.amount(8000, 25000))
    payment_account_fund(account=service_wallet, chain="BASE", currency="USDC", amount=run.amount(3000, 12000))

    onramp = {"source": (bank, "ACH", "USD"), "destination": (wallet, wallet_chain(wallet), "USDC")}
    funded = {"source": (fiat, "ACH", "USD"), "destination": (wallet, wallet_chain(wallet), "USDC")}
    offramp = {"source": (service_wallet, "BASE", "USDC"), "destination": (bank, "ACH", "USD")}
    for step in range(3):
        scenario = SCENARIOS[(3 * turn + step) % len(SCENARIOS)]
        make_transaction(run, customer, scenario, onramp=onramp, funded=funded, offramp=offramp)
    # An open quote, as if the customer were looking at a price (it expires as every quote does).
    make_quote(run, customer, **onramp, guarantee=turn % 2 == 0)

    if turn % 2 == 0:
        make_rule(run, customer, f"Sweep USD above threshold ({customer.name})", funded, {"thresholdAmount": "5000.00"})
    else:
        make_rule(run, customer, f"Weekly USDC top-up ({customer.name})", onramp, {"cronSchedule": "0 9 * * 1"})
    if deactivate:
        customer_deactivate(customer=customer)


def make_quote(run: Seeding, customer: Customer, *, source, destination, amount=None, guarantee=False) -> Quote:
    src, src_method, src_currency = source
    dst, dst_method, dst_currency = destination
    body = {
        "customerId": str(customer.pk),
        "source": {
            "sourceCurrency": src_currency,
            "sourcePaymentMethod": src_method,
            "sourceAmount": str(amount or run.amount(50, 900)),
            "sourcePaymentAccountId": str(src.account_id),
        },
        "destination": {
            "destinationPaymentAccountId": str(dst.account_id),
            "destinationPaymentMethod": dst_method,
            "destinationCurrency": dst_currency,
        },
        "guaranteeQuote": guarantee,
    }
    if run.rng.random() < 0.3:
        body["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": "1.50"}
    return quote_create(api_key=run.api_key, data=validated(QuoteCreateIn, body))


def make_transaction(run: Seeding, customer: Customer, scenario: str, *, onramp, funded, offramp) -> Transaction:
    """One transaction brought to `scenario` by the services an integrator and the test
    helpers would use. An external source waits for its transfer (AWAITING_TRANSFER); a
    funded SERVICE_* source starts PROCESSING."""
    route = {
        TransactionStatus.AWAITING_TRANSFER: onramp,
        TransactionStatus.CANCELLED: onramp,
        TransactionStatus.EXPIRED: onramp,
        OFFRAMP_COMPLETED: offramp,
    }.get(scenario, funded)
    quote = make_quote(run, customer, **route)
    run.transaction_count += 1
    correlation = f"INV-{run.today.year}-{run.transaction_count:04d}"
    tx = transaction_create(api_key=run.api_key, quote_id=quote.pk, correlation_id=correlation)
    if scenario == TransactionStatus.CANCELLED:
        tx = transaction_cancel(api_key=run.api_key, transaction_id=tx.pk)
    elif scenario == TransactionStatus.EXPIRED:
        tx = expire(run, tx)
    elif scenario in (TransactionStatus.COMPLETED, TransactionStatus.FAILED, OFFRAMP_COMPLETED):
        to = TransactionStatus.FAILED if scenario == TransactionStatus.FAILED else TransactionStatus.COMPLETED
        tx = transaction_advance(api_key=run.api_key, transaction_id=tx.pk, to=to)
    expected = TransactionStatus.COMPLETED if scenario == OFFRAMP_COMPLETED else scenario
    if tx.status != expected:
        raise AssertionError(f"Demo transaction {tx.pk} is {tx.status}, not {expected}")
    return tx


def expire(run: Seeding, tx: Transaction) -> Transaction:
    """No service ages one transaction (clock/advance would move the whole sandbox: every
    organization's open quotes, transfers and reviews), so the transaction and its quote
    are dated two hours back; the sandbox's own expiry-on-read then makes it EXPIRED at
    its expiresAt."""
    back = dt.timedelta(hours=2)
    Quote.objects.filter(pk=tx.quote_id).update(
        created_at=F("created_at") - back, expires_at=F("expires_at") - back, used_at=F("used_at") - back
    )
    Transaction.objects.filter(pk=tx.pk).update(
        created_at=F("created_at") - back, updated_at=F("updated_at") - back, expires_at=F("expires_at") - back
    )
    return transaction_for_key(api_key=run.api_key, transaction_id=tx.pk)


def make_rule(run: Seeding, customer: Customer, name: str, route: dict, trigger: dict) -> AutomationRule:
    (src, src_method, src_currency), (dst, dst_method, dst_currency) = route["source"], route["destination"]
    body = {
        "name": name[:200],
        "customerId": str(customer.pk),
        "transactionTemplate": {
            "source": {
                "sourcePaymentAccountId": str(src.account_id),
                "sourcePaymentMethod": src_method,
                "sourceCurrency": src_currency,
            },
            "destination": {
                "destinationPaymentAccountId": str(dst.account_id),
                "destinationPaymentMethod": dst_method,
                "destinationCurrency": dst_currency,
            },
            "amount": {"type": "FLAT", "value": "500.00"},
        },
        "trigger": trigger,
    }
    return rule_create(api_key=run.api_key, data=validated(RuleCreateIn, body))
