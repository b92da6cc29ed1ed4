"""Watch-list files as compliance teams receive them, read into WatchListEntry rows.

- OFAC SDN CSV: sdn.csv (ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type,
  Tonnage, GRT, Vess_flag, Vess_owner, Remarks; no header; "-0-" for empty), alt.csv aliases
  (ent_num, alt_num, alt_type, alt_name, alt_remarks) and add.csv addresses (ent_num, add_num,
  address, city/state/postal code, country, add_remarks). Digital currency addresses are in the
  remarks: "Digital Currency Address - XBT 1abc...; Digital Currency Address - ETH 0x12...;".
- OpenSanctions targets.simple.csv (header: id, schema, name, aliases, birth_date, countries,
  addresses, identifiers, sanctions, phones, emails, dataset, first_seen, last_seen,
  last_change; several values in a cell are separated by ";"). A wallet is a row of schema
  CryptoWallet, its address in name or identifiers.

An import replaces the list's entries by the file's (entries keep their row, and so their alerts,
when the file still holds their id).
"""

import csv
import io
import re

from django.db import transaction
from django.utils import timezone

from .models import WatchList, WatchListAddress, WatchListEntry
from .screening import address_key, is_plausible_address, normalise

OFAC_EMPTY = "-0-"
DIGITAL_ADDRESS = re.compile(r"Digital Currency Address - ([A-Za-z0-9]+)\s+([^\s;,]+)")
OPENSANCTIONS_HEADER = ["id", "schema", "name", "aliases"]


class ImportRefused(Exception):
    """The file is not in the format chosen (the message says what is wrong)."""


def _text(data) -> str:
    if isinstance(data, bytes):
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return data.decode("latin-1")
    return data or ""


def _cell(value: str) -> str:
    value = (value or "").strip()
    return "" if value == OFAC_EMPTY else value


def detect_format(sdn_text: str) -> str:
    first = next(csv.reader(io.StringIO(sdn_text)), [])
    if [c.strip().lower() for c in first[:4]] == OPENSANCTIONS_HEADER:
        return WatchList.Format.OPENSANCTIONS
    if first and first[0].strip().isdigit():
        return WatchList.Format.OFAC_SDN
    raise ImportRefused("This file is neither an OFAC sdn.csv nor an OpenSanctions targets.simple.csv.")


def parse_ofac(sdn: str, alt: str = "", add: str = "") -> list[dict]:
    entries = {}
    for row in csv.reader(io.StringIO(sdn)):
        if not row or not row[0].strip():
            continue
        if len(row) < 12 or not row[0].strip().isdigit():
            raise ImportRefused("sdn.csv: each line must have 12 columns and start with the entry number.")
        remarks = _cell(row[11])
        entries[row[0].strip()] = {
            "source_id": row[0].strip(),
            "name": _cell(row[1]),
            "schema": _cell(row[2]) or "entity",
            "program": _cell(row[3]),
            "source": "OFAC SDN",
            "aliases": [],
            "postal_addresses": [],
            "wallets": [(code.upper(), address) for code, address in DIGITAL_ADDRESS.findall(remarks)],
        }
    for row in csv.reader(io.StringIO(alt)):
        if len(row) >= 4 and row[0].strip() in entries and _cell(row[3]):
            entries[row[0].strip()]["aliases"].append(_cell(row[3]))
    for row in csv.reader(io.StringIO(add)):
        if len(row) >= 5 and row[0].strip() in entries:
            postal = ", ".join(c for c in (_cell(row[2]), _cell(row[3]), _cell(row[4])) if c)
            if postal:
                entries[row[0].strip()]["postal_addresses"].append(postal)
    return list(entries.values())


def _split(cell: str) -> list[str]:
    return [v.strip() for v in (cell or "").split(";") if v.strip()]


def parse_opensanctions(text: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    if [c.strip().lower() for c in (reader.fieldnames or [])[:4]] != OPENSANCTIONS_HEADER:
        raise ImportRefused("targets.simple.csv must start with the header id,schema,name,aliases,…")
    entries = []
    for row in reader:
        if not row.get("id"):
            continue
        schema = row.get("schema") or ""
        wallets = []
        names = [row.get("name") or ""]
        if schema == "CryptoWallet":
            candidates = [row.get("name") or "", *_split(row.get("identifiers") or "")]
            wallets = [("", a) for a in dict.fromkeys(c.strip() for c in candidates) if is_plausible_address(a)]
            names = [] if wallets and (row.get("name") or "") in {a for _c, a in wallets} else names
        entries.append(
            {
                "source_id": row["id"],
                "name": (row.get("name") or "").strip(),
                "schema": schema,
                "program": "; ".join(_split(row.get("sanctions") or ""))[:300],
                "source": (row.get("dataset") or "OpenSanctions")[:100],
                "aliases": _split(row.get("aliases") or "") if names else [],
                "postal_addresses": _split(row.get("addresses") or ""),
                "wallets": wallets,
                "screen_name": bool(names),
            }
        )
    return entries


@transaction.atomic
def import_entries(watchlist: WatchList, entries: list[dict], *, user=None) -> WatchList:
    """Replace the list's entries by `entries` (parse_ofac / parse_opensanctions)."""
    watchlist = WatchList.objects.select_for_update().get(pk=watchlist.pk)
    rows = []
    for e in entries:
        names = [normalise(n) for n in [e["name"], *e["aliases"]]] if e.get("screen_name", True) else []
        rows.append(
            WatchListEntry(
                watchlist=watchlist,
                source_id=e["source_id"][:100],
                name=e["name"][:500],
                names=names,
                aliases=e["aliases"],
                schema=e["schema"][:40],
                program=e["program"][:300],
                source=e["source"][:100],
                postal_addresses=e["postal_addresses"],
            )
        )
    WatchListEntry.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["watchlist", "source_id"],
        update_fields=["name", "names", "aliases", "schema", "program", "source", "postal_addresses"],
        batch_size=1000,
    )
    kept = [e["source_id"][:100] for e in entries]
    WatchListEntry.objects.filter(watchlist=watchlist).exclude(source_id__in=kept).delete()
    ids = dict(WatchListEntry.objects.filter(watchlist=watchlist).values_list("source_id", "pk"))
    WatchListAddress.objects.filter(entry__watchlist=watchlist).delete()
    addresses = {}
    for e in entries:
        for code, address in e["wallets"]:
            family, key = address_key(code, address)
            entry_id = ids[e["source_id"][:100]]
            # An EVM address listed for ETH and for USDT is one address of the family.
            addresses[(entry_id, family, key)] = WatchListAddress(entry_id=entry_id, chain=family, address=key)
    addresses = list(addresses.values())
    WatchListAddress.objects.bulk_create(addresses, batch_size=1000)
    watchlist.entry_count, watchlist.address_count = len(ids), len(addresses)
    watchlist.imported_at, watchlist.imported_by = timezone.now(), user
    watchlist.save(update_fields=["entry_count", "address_count", "imported_at", "imported_by"])
    return watchlist


def format_of(main) -> str:
    """The list format of an uploaded main file (bytes or text)."""
    return detect_format(_text(main))


def read_files(fmt: str, *, main, aliases=None, addresses=None) -> list[dict]:
    """The entries of uploaded files (bytes or text) in `fmt` ("" = detect it from the main file)."""
    main = _text(main)
    fmt = fmt or detect_format(main)
    if fmt == WatchList.Format.OPENSANCTIONS:
        return parse_opensanctions(main)
    return parse_ofac(main, _text(aliases), _text(addresses))
