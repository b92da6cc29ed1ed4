"""Watch-list screening: names matched fuzzily, wallet addresses exactly.

Names are normalised (NFKD without accents, case folded, punctuation out, legal suffixes such as
ltd, llc, inc, gmbh, sa removed) and their words sorted, so that word order does not count; the
score is rapidfuzz's ratio of two such names (0-100: token_sort_ratio), and a name matches at the
list's threshold or above. A name is compared only with the entries that share a word, or the
first three letters of one (the candidate index, kept in memory per list and rebuilt when the
list is imported again): a new customer screens in a few milliseconds against 20,000 entries.

Addresses match exactly per chain family: EVM chains (Ethereum, Base, Arbitrum, Optimism,
Polygon) share their addresses and compare without case; Solana's compare as they are.
"""

import re
import threading
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from payments.rails import EVM_CHAINS

from .models import Alert, AlertKind, WatchList, WatchListAddress, WatchListEntry

LEGAL_SUFFIXES = frozenset(
    [
        "ltd",
        "limited",
        "llc",
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "gmbh",
        "ag",
        "sa",
        "sas",
        "sarl",
        "srl",
        "spa",
        "bv",
        "nv",
        "plc",
        "llp",
        "lp",
        "pte",
        "pty",
        "oy",
        "ab",
        "as",
        "kg",
        "jsc",
        "pjsc",
        "ojsc",
        "ooo",
        "zao",
        "oao",
        "sl",
        "sro",
        "fze",
        "fzco",
    ]
)
_PUNCTUATION = re.compile(r"[^\w\s]|_")
EVM = "EVM"
_EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_BASE58 = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,44}$")


def normalise(name: str) -> str:
    """ "Ünited  Trading, L.L.C." -> "trading united": comparable whatever the spelling."""
    text = unicodedata.normalize("NFKD", name or "")
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    # Dotted abbreviations first ("L.L.C.", "S.A."), then the other punctuation becomes a space.
    text = re.sub(r"\b(?:\w\.){2,}", lambda m: m.group(0).replace(".", ""), text)
    words = [w for w in _PUNCTUATION.sub(" ", text).split() if w not in LEGAL_SUFFIXES]
    return " ".join(sorted(words))


def chain_family(chain: str, address: str = "") -> str:
    """The API's chain (or a list's currency code) as the family its addresses belong to."""
    chain = (chain or "").upper()
    if chain in EVM_CHAINS or _EVM_ADDRESS.match(address or ""):
        return EVM
    if chain in ("SOLANA", "SOL"):
        return "SOLANA"
    return chain


def address_key(chain: str, address: str) -> tuple[str, str]:
    family = chain_family(chain, address)
    address = (address or "").strip()
    return family, address.lower() if family == EVM else address


# --- Matching ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NameHit:
    entry_id: int
    name: str  # the list's name or alias that matched
    score: int


class NameIndex:
    """One list's names in memory: normalised names, and word (and 3-letter prefix) -> the
    positions of the names that hold it."""

    def __init__(self, rows):
        self.names: list[str] = []
        self.shown: list[str] = []
        self.entries: list[int] = []
        self.words: dict[str, list[int]] = {}
        for entry_id, name, normalised in rows:
            if not normalised:
                continue
            position = len(self.names)
            self.names.append(normalised)
            self.shown.append(name)
            self.entries.append(entry_id)
            for key in _keys(normalised):
                self.words.setdefault(key, []).append(position)

    def match(self, name: str, threshold: int, limit: int = 3) -> list[NameHit]:
        query = normalise(name)
        if not query:
            return []
        positions = set()
        for key in _keys(query):
            positions.update(self.words.get(key, ()))
        if not positions:
            return []
        candidates = {p: self.names[p] for p in positions}
        found = process.extract(
            query, candidates, scorer=fuzz.ratio, score_cutoff=threshold, limit=limit * 3, processor=None
        )
        hits, seen = [], set()
        for _text, score, position in found:
            entry = self.entries[position]
            if entry not in seen:
                seen.add(entry)
                hits.append(NameHit(entry, self.shown[position], round(score)))
        return hits[:limit]


def _keys(normalised: str):
    for word in normalised.split():
        if len(word) >= 2:
            yield word
        if len(word) >= 3:
            yield "~" + word[:3]


_indexes: dict[int, tuple[object, NameIndex]] = {}
_lock = threading.Lock()


def name_index(watchlist: WatchList) -> NameIndex:
    """The list's index, built once per import (its imported_at is the version)."""
    version = watchlist.imported_at
    cached = _indexes.get(watchlist.pk)
    if cached is not None and cached[0] == version:
        return cached[1]
    with _lock:
        rows = []
        for entry_id, name, aliases, names in WatchListEntry.objects.filter(watchlist=watchlist).values_list(
            "pk", "name", "aliases", "names"
        ):
            shown = [name, *aliases]
            rows.extend((entry_id, label, normalised) for label, normalised in zip(shown, names, strict=False))
        index = NameIndex(rows)
        _indexes[watchlist.pk] = (version, index)
        return index


# --- Screening the mirror ------------------------------------------------------------------------


def screening_lists() -> list[WatchList]:
    return list(WatchList.objects.filter(entry_count__gt=0))


def _key(watchlist_id: int, source_id: str, target: str) -> str:
    return f"screen:{watchlist_id}:{source_id}:{target}"[:200]


def _alert(entry, list_name: str, *, customer_id, target: str, said: str, account_id: str, matched: str, score: int):
    """A screening alert of `entry` on a customer; `said` begins the sentence."""
    program = f", program {entry.program}" if entry.program else ""
    return Alert(
        kind=AlertKind.SCREENING,
        customer_id=customer_id,
        entry_id=entry.pk,
        dedupe_key=_key(entry.watchlist_id, entry.source_id, target),
        sentence=f"{said} on the watch list {list_name}{program}."[:500],
        figures={"score": score, "list": list_name},
        account_ids=[account_id] if account_id else [],
        matched=matched[:300],
        score=score,
    )


def _entries(ids) -> dict[int, WatchListEntry]:
    fields = ("pk", "watchlist_id", "source_id", "name", "program")
    return {e.pk: e for e in WatchListEntry.objects.filter(pk__in=set(ids)).only(*fields)}


def screen_names(watchlist: WatchList, *, customers=(), owners=()) -> list[Alert]:
    """customers: (pk, name); owners: (customer pk, account id, owner name) of third-party bank
    accounts. The alerts they raise against one list (not stored)."""
    index = name_index(watchlist)
    items = [(f"customer:{pk}", pk, name, "", "customer name") for pk, name in customers if name]
    items += [(f"account:{acc}", pk, name, acc, "bank account owner") for pk, acc, name in owners if name]
    found = [(item, hit) for item in items for hit in index.match(item[2], watchlist.match_threshold)]
    entries = _entries(hit.entry_id for _item, hit in found)
    threshold = watchlist.match_threshold
    return [
        _alert(
            entries[hit.entry_id],
            watchlist.name,
            customer_id=customer_id,
            target=target,
            said=f"The {what} “{name}” matches “{entries[hit.entry_id].name}” (score {hit.score}, threshold {threshold})",
            account_id=account_id,
            matched=name,
            score=hit.score,
        )
        for (target, customer_id, name, account_id, what), hit in found
        if hit.entry_id in entries
    ]


def screen_addresses(wallets) -> list[Alert]:
    """wallets: (customer pk, account id, chain, address) of external crypto wallets, against
    every list at once (one query)."""
    keyed = {}
    for customer_id, account_id, chain, address in wallets:
        if address:
            keyed.setdefault(address_key(chain, address), []).append((customer_id, account_id, address, chain))
    if not keyed:
        return []
    addresses = {a for _family, a in keyed}
    rows = WatchListAddress.objects.filter(address__in=addresses).select_related("entry__watchlist")
    return [
        _alert(
            row.entry,
            row.entry.watchlist.name,
            customer_id=customer_id,
            target=f"wallet:{account_id}",
            said=f"The wallet address {address} on {chain.title()} is listed for “{row.entry.name}”",
            account_id=account_id,
            matched=address,
            score=100,
        )
        for row in rows
        for customer_id, account_id, address, chain in keyed.get((row.chain, row.address), ())
    ]


def wallet_of(details: dict) -> tuple[str, str]:
    address = (details or {}).get("address")
    if isinstance(address, dict):
        return str(address.get("chain") or ""), str(address.get("address") or "")
    return "", ""


def owner_of(details: dict) -> str:
    return str((details or {}).get("bankAccountOwnerName") or "")


def is_plausible_address(address: str) -> bool:
    return bool(_EVM_ADDRESS.match(address) or _BASE58.match(address) or len(address) >= 25)


# --- Screening what enters the mirror ------------------------------------------------------------


def screen_customers(pks) -> int:
    """Screen these customers' names against every list; returns the new alerts."""
    from customers.models import Customer

    from .services import raise_alerts

    lists = screening_lists()
    if not lists:
        return 0
    customers = list(Customer.objects.filter(pk__in=pks).values_list("pk", "name"))
    return len(raise_alerts([a for wl in lists for a in screen_names(wl, customers=customers)]))


def _accounts(queryset):
    """(owners, wallets) of these payment accounts: third-party bank account owners' names and
    external wallets' addresses."""
    owners, wallets = [], []
    for customer_id, account_id, account_type, third_party, details in queryset.values_list(
        "customer_id", "account_id", "account_type", "is_third_party", "details"
    ):
        if not account_id:
            continue
        if account_type == "EXTERNAL_BANK_ACCOUNT" and third_party:
            owners.append((customer_id, account_id, owner_of(details)))
        elif account_type == "EXTERNAL_CRYPTO_WALLET":
            chain, address = wallet_of(details)
            wallets.append((customer_id, account_id, chain, address))
    return owners, wallets


def screen_accounts(pks) -> int:
    from payments.models import PaymentAccount

    from .services import raise_alerts

    owners, wallets = _accounts(PaymentAccount.objects.filter(pk__in=pks))
    alerts = screen_addresses(wallets)
    for wl in screening_lists():
        alerts += screen_names(wl, owners=owners)
    return len(raise_alerts(alerts))
