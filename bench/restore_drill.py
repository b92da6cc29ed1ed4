"""The restore drill of docs/operations.md ("Backups and restore"), run against scratch databases.

The provider is a separate server with a database of its own (the sandbox on its own, as
docs/sandbox.md runs it): losing the back-office's database loses nothing of the provider's, as
in production. The drill then:

1. seeds the provider with customers, payment accounts and transactions, which reach the mirror
   as they do in production (a sync for what the API lists; a signed `transaction.update`
   webhook through the receiver and the inbox for each transaction, which no list shows);
2. backs the back-office's database up with `pg_dump --format=custom`;
3. lets the provider move on: open transactions complete, new ones are made (and delivered);
4. drops the back-office's database (the failure), creates it empty, `pg_restore`s the backup;
5. runs `sync_mirror`, and checks that every transaction of the backup is known and refreshed
   to the provider's status, and counts what the window between backup and failure lost;
6. for comparison, "rebuilds" an empty database from the API alone (`migrate` + `sync_mirror`)
   and counts the transactions that knows.

Prints JSON. Needs PostgreSQL (BENCH_PG, default postgres://postgres@127.0.0.1:5432) and its
client tools (pg_dump, pg_restore); creates and drops `restore_drill_<pid>` and
`restore_drill_<pid>_provider`.

    .venv/bin/python bench/restore_drill.py [--customers 10] [--per-customer 6] [--after-backup 4]
"""

import argparse
import datetime as dt
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from _setup import PG, ROOT, _drop, _psql

# The customer, bank account and wallet of the transactions workspace's tests.
from tests.payments.transactions_helpers import BANK, KYC, WALLET

PYTHON = sys.executable
SECRET = "whsec_" + "ZHJpbGwtd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ=="


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Provider:
    """The sandbox on its own: its database, a key, a gunicorn on a loopback port."""

    def __init__(self, database: str):
        self.database, self.port = database, free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/sandbox"
        self.env = {
            **os.environ,
            "SANDBOX_MOUNTED": "1",
            "ROOT_URLCONF": "sandbox.standalone_urls",
            "DATABASE_URL": f"{PG}/{database}",
            "PAYMENTS_API_BASE_URL": self.base_url,
            "CELERY_BROKER_URL": "",
            "LOG_LEVEL": "WARNING",
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": "2",
            "PYTHONWARNINGS": "ignore",
        }
        self.process: subprocess.Popen | None = None

    def manage(self, *args: str) -> str:
        ran = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True)
        if ran.returncode:
            raise RuntimeError(f"provider manage.py {' '.join(args)}: {ran.stderr[-2000:]}")
        return ran.stdout

    def start(self) -> str:
        _psql(f"DROP DATABASE IF EXISTS {self.database}")
        _psql(f"CREATE DATABASE {self.database}")
        self.manage("migrate", "--noinput", "-v", "0")
        key = self.manage("sandbox_keys", "create").strip().splitlines()[-1]
        self.process = subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "backoffice.wsgi"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.base_url}/openapi.json", timeout=2)  # noqa: S310 (loopback)
                return key
            except OSError:
                time.sleep(0.25)
        raise RuntimeError("the provider did not start")

    def helper(self, path: str, body: dict) -> None:
        request = urllib.request.Request(  # noqa: S310 (loopback)
            f"{self.base_url}/test-helpers/{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.key}"},
        )
        try:
            urllib.request.urlopen(request, timeout=30).read()  # noqa: S310
        except urllib.error.HTTPError as refused:
            raise RuntimeError(f"{path}: {refused.code} {refused.read()[:300]!r}") from None

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        _drop(self.database)


def deliver(client, transaction_id: str) -> None:
    """The provider's transaction.update webhook, signed, through the receiver and the inbox."""
    from sandbox.signing import signature_headers

    now = dt.datetime.now(tz=dt.UTC)
    body = json.dumps(
        {
            "eventId": f"evt_{uuid.uuid4().hex}",
            "eventType": "transaction.update",
            "createdAt": now.isoformat(),
            "data": {"transactionId": transaction_id},
        }
    )
    headers = signature_headers(SECRET, f"msg_{uuid.uuid4().hex}", now, body)
    answer = client.post("/webhooks/payments", body, content_type="application/json", headers=headers)
    assert answer.status_code == 202, answer.content


def seed(provider: Provider, webhooks, *, customers: int, per_customer: int) -> tuple[list[dict], list[dict]]:
    """ACTIVE customers with a bank account and a wallet, and transactions between them, every
    third left AWAITING_TRANSFER, every third PROCESSING, every third COMPLETED."""
    from mirror.sync import sync_customers, sync_payment_accounts
    from upstream.client import get_client

    api = get_client()
    made = []
    for c in range(customers):
        customer = api.customers.create(
            customer_type="INDIVIDUAL",
            email=f"drill{c}@example.com",
            first_name="Ada",
            last_name=f"Drill{c}",
            kyc_data=KYC,
        )
        provider.helper(f"customers/{customer.customer_id}/review", {"outcome": "ACTIVE", "issues": []})
        bank = api.payment_accounts.create(
            customer_id=customer.customer_id,
            payment_account_type=BANK["paymentAccountType"],
            nickname=BANK["nickname"],
            external_bank_account=BANK["externalBankAccount"],
        )
        wallet = api.payment_accounts.create(
            customer_id=customer.customer_id,
            payment_account_type=WALLET["paymentAccountType"],
            nickname=WALLET["nickname"],
            external_crypto_wallet=WALLET["externalCryptoWallet"],
        )
        made.append(
            {"customer": customer.customer_id, "bank": bank.payment_account_id, "wallet": wallet.payment_account_id}
        )
    sync_customers()
    sync_payment_accounts()
    transactions = []
    for i in range(customers * per_customer):
        transactions.append(new_transaction(provider, webhooks, made[i % customers], i))
    return made, transactions


def new_transaction(provider: Provider, webhooks, setup: dict, i: int) -> dict:
    from upstream.client import get_client

    api = get_client()
    quote = api.quotes.create(
        customer_id=setup["customer"],
        source={
            "sourceCurrency": "USD",
            "sourcePaymentMethod": "ACH",
            "sourceAmount": f"{100 + i}.00",
            "sourcePaymentAccountId": setup["bank"],
        },
        destination={
            "destinationPaymentAccountId": setup["wallet"],
            "destinationPaymentMethod": "BASE",
            "destinationCurrency": "USDC",
        },
    )
    transaction = api.transactions.create(quote_id=quote.quote_id)
    transaction_id = transaction.transaction_id
    deliver(webhooks, transaction_id)
    for step in ("PROCESSING", "COMPLETED")[: i % 3]:
        provider.helper(f"transactions/{transaction_id}/advance", {"to": step})
        deliver(webhooks, transaction_id)
    return {"id": transaction_id, "index": i}


def provider_status(transaction_id: str) -> str:
    from upstream.client import get_client

    return get_client().transactions.get(transaction_id=transaction_id).transaction_status


def mirror_statuses() -> dict[str, str]:
    from payments.models import Transaction

    return dict(Transaction.objects.values_list("transaction_id", "status"))


def sync_all() -> float:
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("sync_mirror", quiet=True, stdout=open(os.devnull, "w"))  # noqa: SIM115
    return time.perf_counter() - started


def run(customers: int, per_customer: int, after_backup: int) -> dict:
    name = f"restore_drill_{os.getpid()}"
    provider = Provider(f"{name}_provider")
    figures: dict = {"transactions_before_backup": customers * per_customer, "made_after_backup": after_backup}
    workdir = Path(tempfile.mkdtemp(prefix="restore-drill-"))
    try:
        provider.key = provider.start()
        os.environ.update(
            {
                "PAYMENTS_API_BASE_URL": provider.base_url,
                "PAYMENTS_API_KEY": provider.key,
                "PAYMENTS_WEBHOOK_SECRET": SECRET,
                "CELERY_BROKER_URL": "",
            }
        )
        from _setup import setup_django

        setup_django(name)
        from django.db import connections
        from django.test import Client

        webhooks = Client()
        setups, transactions = seed(provider, webhooks, customers=customers, per_customer=per_customer)
        before = mirror_statuses()
        assert len(before) == len(transactions), (len(before), len(transactions))

        # 2. Back up.
        dump = workdir / "backoffice.dump"
        started = time.perf_counter()
        subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", f"{PG}/{name}"], check=True)
        figures["pg_dump_seconds"] = round(time.perf_counter() - started, 2)
        figures["dump_bytes"] = dump.stat().st_size

        # 3. The provider moves on: every open transaction of the backup completes, new ones come.
        for tx in transactions:
            # The sandbox's own clock may have moved some already.
            status = provider_status(tx["id"])
            if status == "AWAITING_TRANSFER":
                provider.helper(f"transactions/{tx['id']}/advance", {"to": "PROCESSING"})
            if status in ("AWAITING_TRANSFER", "PROCESSING"):
                provider.helper(f"transactions/{tx['id']}/advance", {"to": "COMPLETED"})
        later = [new_transaction(provider, webhooks, setups[0], 3 * i) for i in range(after_backup)]

        # 4. The failure, then the restore.
        connections.close_all()
        _psql(f"DROP DATABASE {name}")
        _psql(f"CREATE DATABASE {name}")
        started = time.perf_counter()
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={PG}/{name}", str(dump)], check=True)
        figures["pg_restore_seconds"] = round(time.perf_counter() - started, 2)

        # 5. Sync, then check every transaction against the provider.
        figures["sync_seconds"] = round(sync_all(), 2)
        after = mirror_statuses()
        known = [tx for tx in transactions if tx["id"] in after]
        agree = [tx for tx in known if after[tx["id"]] == provider_status(tx["id"])]
        figures["backed_up_known_after_restore"] = len(known)
        figures["backed_up_status_as_provider_after_sync"] = len(agree)
        figures["stale_at_restore_refreshed_by_sync"] = sum(
            1 for tx in transactions if before[tx["id"]] != after.get(tx["id"])
        )
        figures["made_after_backup_known"] = sum(1 for tx in later if tx["id"] in after)
        # A webhook the provider sends later (any change) brings such a transaction back.
        provider.helper(f"transactions/{later[0]['id']}/advance", {"to": "PROCESSING"})
        deliver(webhooks, later[0]["id"])
        figures["made_after_backup_known_after_their_next_webhook"] = sum(
            1 for tx in later if tx["id"] in mirror_statuses()
        )

        # 6. The API alone: what a "rebuild from the API" of an empty database knows.
        connections.close_all()
        _psql(f"DROP DATABASE {name}")
        _psql(f"CREATE DATABASE {name}")
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        sync_all()
        figures["known_after_rebuild_from_api_alone"] = len(mirror_statuses())
        figures["provider_transactions"] = len(transactions) + len(later)
        figures["drill_passed"] = figures["backed_up_known_after_restore"] == len(transactions) and figures[
            "backed_up_status_as_provider_after_sync"
        ] == len(transactions)
        return figures
    finally:
        provider.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=10)
    parser.add_argument("--per-customer", type=int, default=6)
    parser.add_argument("--after-backup", type=int, default=4)
    args = parser.parse_args()
    figures = run(args.customers, args.per_customer, args.after_backup)
    print(json.dumps(figures, indent=2))
    sys.exit(0 if figures["drill_passed"] else 1)


if __name__ == "__main__":
    main()
