"""The demo's monitoring: live rules approved by a second person, a small watch list, and through
the Payments API (the sandbox) the patterns that trip them: a structuring series just under the
approval threshold, a wallet whose address is on the list, a third-party payee whose name is.
Run by seed_demo after the mirror's first sync; does nothing when its rules exist already."""

import pathlib
import uuid
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from payments.models import PaymentAccount, Transaction
from payments.upserts import payment_accounts_upsert, transactions_upsert
from upstream.client import get_client
from upstream.mirrored import Source

from ... import backtest
from ...importers import import_entries, read_files
from ...models import Alert, Backtest, MonitoringRule, RuleKind, WatchList
from ...rules import default_params
from ...screening import screen_accounts
from ...services import evaluate_transactions, rule_approve, rule_create, rule_submit

DEMO = pathlib.Path(__file__).resolve().parents[2] / "demo"
SANCTIONED_WALLET = "0x5a9c0f1d0000000000000000000000000000dead"
SANCTIONED_PAYEE = "Northwind Maritime Holdings Limited"
RULES = [
    ("Split payments under the approval threshold", RuleKind.STRUCTURING, {}),
    ("Large transfer", RuleKind.LARGE_TRANSFER, {"min_usd": "50000"}),
    ("New payee, then a large payout", RuleKind.NEW_ACCOUNT_PAYOUT, {}),
    ("Money straight back out", RuleKind.RAPID_IN_OUT, {}),
]

WAITING_RULE = "Many transactions in a day"


class Command(BaseCommand):
    help = "Seed monitoring rules, a demo watch list and the patterns that trip them (demo only)."

    def handle(self, *args, **options):
        if MonitoringRule.objects.filter(name=RULES[0][0]).exists():
            self.stdout.write("Monitoring demo exists already.")
            return
        User = get_user_model()
        maker, _ = User.objects.get_or_create(username="demo-rule-author", defaults={"is_active": False})
        checker = User.objects.filter(username="demo-admin").first() or maker
        with transaction.atomic():
            for name, kind, params in RULES:
                rule = rule_create(user=maker, name=name, kind=kind, params={**default_params(kind), **params})
                rule_submit(user=maker, rule=rule)
                if checker != maker:
                    rule_approve(user=checker, rule=rule)
            # One more, left waiting: an admin finds it in "Waiting for approval" with the others.
            velocity = rule_create(
                user=maker, name=WAITING_RULE, kind=RuleKind.VELOCITY, params=default_params(RuleKind.VELOCITY)
            )
            rule_submit(user=maker, rule=velocity)
            watchlist = WatchList.objects.create(
                name="Demo sanctions list", format=WatchList.Format.OFAC_SDN, match_threshold=88
            )
            entries = read_files(
                WatchList.Format.OFAC_SDN,
                main=(DEMO / "sdn.csv").read_bytes(),
                aliases=(DEMO / "alt.csv").read_bytes(),
                addresses=(DEMO / "add.csv").read_bytes(),
            )
            import_entries(watchlist, entries, user=checker)
        made = self.make_patterns()
        # A backtest to show on the structuring rule's page.
        structuring = MonitoringRule.objects.get(name=RULES[0][0])
        backtest.run(Backtest.objects.create(version=structuring.current_version, started_by=checker))
        alerts = Alert.objects.count()
        self.stdout.write(
            f"Monitoring demo: {len(RULES)} live rules, one waiting for approval, a watch list, {made} patterns, {alerts} alerts."
        )

    def make_patterns(self) -> int:
        bank = (
            PaymentAccount.objects.filter(
                account_type="EXTERNAL_BANK_ACCOUNT",
                status="ACTIVE",
                customer__status="ACTIVE",
                details__bankAccountPaymentMethod="ACH",
            )
            .select_related("customer")
            .first()
        )
        if bank is None:
            self.stdout.write("No active customer with an ACH bank account: no monitoring patterns made.")
            return 0
        client = get_client()
        customer_id = bank.customer.customer_id
        wallet = client.payment_accounts.create(
            customer_id=customer_id,
            payment_account_type="EXTERNAL_CRYPTO_WALLET",
            nickname="Cold storage",
            external_crypto_wallet={"currency": "USDC", "address": {"address": SANCTIONED_WALLET, "chain": "BASE"}},
        )
        payee = client.payment_accounts.create(
            customer_id=customer_id,
            payment_account_type="EXTERNAL_BANK_ACCOUNT",
            nickname="Supplier",
            is_third_party=True,
            external_bank_account={
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": SANCTIONED_PAYEE,
                "bankAccountOwnerEmail": "accounts@example.com",
                "bankName": "First Test Bank",
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "ACH",
                "bankAccountNumber": "000987654321",
                "bankRoutingNumber": "021000021",
            },
        )
        payment_accounts_upsert(items=[wallet, payee], seen_by=Source.STAFF)
        accounts = PaymentAccount.objects.filter(account_id__in=[wallet.payment_account_id, payee.payment_account_id])
        transactions = []
        threshold = Decimal(settings.APPROVAL_THRESHOLD_USD)
        made = 2
        for share in ("0.990", "0.995", "0.999"):
            quote = client.quotes.create(
                customer_id=customer_id,
                source={
                    "sourceCurrency": "USD",
                    "sourcePaymentMethod": "ACH",
                    "sourceAmount": str((threshold * Decimal(share)).quantize(Decimal("0.01"))),
                    "sourcePaymentAccountId": bank.account_id,
                },
                destination={
                    "destinationPaymentAccountId": wallet.payment_account_id,
                    "destinationPaymentMethod": "BASE",
                    "destinationCurrency": "USDC",
                },
            )
            answer = client.transactions.create(quote_id=quote.quote_id, idempotency_key=str(uuid.uuid4()))
            transactions_upsert(items=[answer], seen_by=Source.STAFF)
            transactions.append(answer.transaction_id)
            made += 1
        # The worker does this once the upserts commit; the demo does not wait for one (a hit
        # found twice is one alert).
        evaluate_transactions(
            list(Transaction.objects.filter(transaction_id__in=transactions).values_list("pk", flat=True))
        )
        screen_accounts(list(accounts.values_list("pk", flat=True)))
        return made
