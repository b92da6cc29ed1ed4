"""Watch lists: both formats imported from files in the repo, names matched fuzzily, wallet
addresses exactly (EVM without case), the mirror screened again on each import."""

import io
import pathlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditEvent
from customers.models import Customer
from monitoring import importers
from monitoring.models import Alert, WatchList, WatchListAddress, WatchListEntry
from monitoring.screening import NameIndex, normalise, screen_accounts, screen_customers
from tests.monitoring.helpers import account, customer

DATA = pathlib.Path(__file__).parent / "data"
OFAC = DATA / "ofac"
OPENSANCTIONS = DATA / "opensanctions" / "targets.simple.csv"
pytestmark = pytest.mark.django_db


def ofac_list(threshold: int = 90) -> WatchList:
    watchlist = WatchList.objects.create(name="OFAC SDN", format=WatchList.Format.OFAC_SDN, match_threshold=threshold)
    entries = importers.read_files(
        "",
        main=(OFAC / "sdn.csv").read_bytes(),
        aliases=(OFAC / "alt.csv").read_bytes(),
        addresses=(OFAC / "add.csv").read_bytes(),
    )
    return importers.import_entries(watchlist, entries)


def opensanctions_list() -> WatchList:
    watchlist = WatchList.objects.create(name="OpenSanctions", format=WatchList.Format.OPENSANCTIONS)
    return importers.import_entries(watchlist, importers.read_files("", main=OPENSANCTIONS.read_bytes()))


def test_normalise_folds_accents_case_punctuation_order_and_legal_suffixes():
    assert normalise("MÜLLER, Jürgen") == normalise("jurgen muller") == "jurgen muller"
    assert normalise("Global Trading Solutions, L.L.C.") == normalise("GLOBAL TRADING SOLUTIONS LLC")
    assert normalise("Northwind Shipping Company Ltd") == "northwind shipping"


def test_the_ofac_files_are_imported_with_aliases_postal_and_digital_currency_addresses():
    watchlist = ofac_list()
    assert watchlist.entry_count == 4
    karpov = WatchListEntry.objects.get(source_id="7160")
    assert karpov.name == "KARPOV, Dmitri Ivanovich"
    assert karpov.aliases == ["KARPOV, Dima"]
    assert karpov.program == "CYBER2"
    assert karpov.postal_addresses == ["Moscow, Russia"]
    assert set(karpov.addresses.values_list("chain", "address")) == {
        ("XBT", "1Mz7153HMuxXTuR2R1t78mGSdzaAtNbBWX"),
        ("EVM", "0x7f367cc41522ce07553e823bf3be79a889debe1b"),
    }
    assert WatchListAddress.objects.get(entry__source_id="9647").chain == "SOLANA"
    assert watchlist.address_count == 3


def test_the_opensanctions_file_is_imported_with_its_wallets():
    watchlist = opensanctions_list()
    assert watchlist.entry_count == 3
    olena = WatchListEntry.objects.get(source_id="NK-abc123")
    assert olena.aliases == ["Elena Petrenko", "Олена Петренко"]
    assert olena.program == "EU Financial Sanctions"
    wallet = WatchListEntry.objects.get(source_id="NK-wal789")
    assert wallet.schema == "CryptoWallet" and wallet.names == []
    assert list(wallet.addresses.values_list("chain", "address")) == [
        ("EVM", "0x9abcdef0123456789abcdef0123456789abcdef0")
    ]


def test_a_file_in_neither_format_is_refused():
    with pytest.raises(importers.ImportRefused):
        importers.read_files("", main=b"name,country\nSomeone,XX\n")


def test_fuzzy_name_hits_and_misses():
    ofac_list(threshold=90)
    hit_typo = customer(name="Dmitry Ivanovich Karpov")
    hit_accents = customer(name="Jurgen Muller")
    hit_company = customer(name="Global Trading Solutions, L.L.C.", business=True)
    miss = customer(name="Dmitri Ivanov")
    other = customer(name="Ada Lovelace")
    assert screen_customers([c.pk for c in (hit_typo, hit_accents, hit_company, miss, other)]) == 3
    alerts = {a.customer: a for a in Alert.objects.all()}
    assert set(alerts) == {hit_typo, hit_accents, hit_company}
    assert alerts[hit_accents].score == 100
    assert alerts[hit_accents].sentence.startswith(
        "The customer name “Jurgen Muller” matches “MÜLLER, Jürgen” (score 100, threshold 90) on the watch list OFAC SDN"
    )
    assert 90 <= alerts[hit_typo].score < 100


def test_an_alias_matches_too():
    opensanctions_list()
    someone = customer(name="Elena Petrenko")
    assert screen_customers([someone.pk]) == 1
    assert Alert.objects.get().entry.source_id == "NK-abc123"


def test_wallet_addresses_match_exactly_per_chain_evm_without_case():
    ofac_list()
    someone = customer()

    def wallet(chain, address):
        return account(someone, details={"currency": "USDC", "address": {"address": address, "chain": chain}})

    evm_upper = wallet("BASE", "0x7F367CC41522CE07553E823BF3BE79A889DEBE1B")
    evm_other = wallet("POLYGON", "0x7F367CC41522CE07553E823BF3BE79A889DEBE1C")
    solana_same = wallet("SOLANA", "5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1")
    solana_case = wallet("SOLANA", "5q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1")
    assert screen_accounts([a.pk for a in (evm_upper, evm_other, solana_same, solana_case)]) == 2
    assert {a.account_ids[0] for a in Alert.objects.all()} == {evm_upper.account_id, solana_same.account_id}
    assert all(a.score == 100 for a in Alert.objects.all())


def test_third_party_bank_account_owners_are_screened():
    ofac_list()
    someone = customer(name="Ada Lovelace")
    details = {"bankAccountOwnerName": "Aerocaribbean Airlines", "bankAccountCurrency": "USD"}
    payee = account(someone, third_party=True, account_type="EXTERNAL_BANK_ACCOUNT", details=details)
    own = account(someone, account_type="EXTERNAL_BANK_ACCOUNT", details=details)
    assert screen_accounts([payee.pk, own.pk]) == 1
    alert = Alert.objects.get()
    assert alert.account_ids == [payee.account_id]
    assert alert.customer == someone
    assert "bank account owner “Aerocaribbean Airlines”" in alert.sentence


def test_a_name_is_compared_only_with_entries_sharing_a_word_or_its_first_letters():
    index = NameIndex([(1, "Ivan Petrov", normalise("Ivan Petrov")), (2, "Zed Quux", normalise("Zed Quux"))])
    assert index.match("Ivan Petrova", 80)[0].entry_id == 1
    assert index.match("Petrov Ivan", 90)[0].score == 100
    assert index.match("Xavier Young", 0) == []


def test_an_import_screens_the_mirror_again_and_a_reimport_raises_nothing_twice(
    client_as, django_capture_on_commit_callbacks
):
    client = client_as("admin")
    known = customer(name="Olena Petrenko Shevchuk")
    later = customer(name="Ada Lovelace")
    with open(OPENSANCTIONS, "rb") as f, django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("monitoring-import-watchlist"),
            {"name": "OpenSanctions", "format": "", "match_threshold": 90, "main": f},
        )
    assert response.status_code == 302
    watchlist = WatchList.objects.get()
    assert watchlist.format == "opensanctions" and watchlist.screening_status == "done"
    assert list(Alert.objects.values_list("customer", flat=True)) == [known.pk]
    assert AuditEvent.objects.filter(action="monitoring.list_import").count() == 1
    # The list grows: the import adds an entry that matches a customer the mirror already had.
    grown = OPENSANCTIONS.read_text() + (
        "NK-new001,Person,Ada Lovelace,,,gb,,,UK Sanctions List,,,UK HMT,2026-01-01T00:00:00,"
        "2026-11-01T00:00:00,2026-11-01T00:00:00\n"
    )
    upload = SimpleUploadedFile("targets.simple.csv", grown.encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("monitoring-reimport-watchlist", kwargs={"pk": watchlist.pk}),
            {"match_threshold": 90, "main": upload},
        )
    assert response.status_code == 302
    assert sorted(Alert.objects.values_list("customer", flat=True)) == sorted([known.pk, later.pk])
    watchlist.refresh_from_db()
    assert watchlist.entry_count == 4 and watchlist.screening_done == watchlist.screening_total == 2


def test_a_customer_entering_the_mirror_is_screened(upstream, django_capture_on_commit_callbacks):
    from mirror.sync import sync_customers

    ofac_list()
    upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "jm@example.com", "firstName": "Jürgen", "lastName": "Müller"},
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert sync_customers().outcome == "succeeded"
    alert = Alert.objects.get()
    assert alert.customer == Customer.objects.get(email="jm@example.com")
    assert alert.kind == "screening"


def test_the_import_form_refuses_a_file_of_another_format(client_as):
    upload = SimpleUploadedFile("list.csv", io.BytesIO(b"name\nx\n").read())
    response = client_as("admin").post(
        reverse("monitoring-import-watchlist"), {"name": "Bad", "match_threshold": 90, "main": upload}
    )
    assert response.status_code == 400
    assert "neither an OFAC sdn.csv nor an OpenSanctions" in response.content.decode()
    assert not WatchList.objects.exists()
