"""Deterministic values a transaction shows: its transfer instructions (the bank details of the
rail, or a deposit address) and the reference ids of its legs. The same transaction always gets
the same values; no real bank or chain knows them."""

import hashlib
import uuid

from ..models import PaymentAccountType, Quote, Transaction
from ..rates import Currency, amount_str, table
from .addresses import base58, deposit_address

SANDBOX_BANK = {
    "transferBankName": "Sandbox Settlement Bank",
    "transferBankAddress": "1 Sandbox Way, Testville",
}


def _digits(seed: str, count: int) -> str:
    number = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    return str(number).zfill(count)[-count:]


def _iban(country: str, length: int, seed: str) -> str:
    bban = _digits(seed, length - 4)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def _clabe(seed: str) -> str:
    body = "646180" + _digits(seed, 11)
    total = sum(int(d) * w % 10 for d, w in zip(body, [3, 7, 1] * 6, strict=False))
    return body + str((10 - total % 10) % 10)


def _reference(tx_id: uuid.UUID) -> str:
    return "SBX" + tx_id.hex[:10].upper()


def _field_value(name: str, tx: Transaction, rail: dict) -> str:
    seed = f"{tx.pk}:{name}"
    values = {
        "transferBankAccountNumber": lambda: _digits(seed, 12),
        # 123456780 passes the ABA checksum and belongs to no real bank.
        "transferRoutingNumber": lambda: "123456780",
        "transferBicSwift": lambda: "SBXB" + rail.get("ibanCountry", "US") + "2XXXX",
        "transferIban": lambda: _iban(rail.get("ibanCountry", "DE"), rail.get("ibanLength", 22), seed),
        "transferSortCode": lambda: "040075",
        "transferIfscCode": lambda: "SBXB0" + _digits(seed, 6),
        "transferClabeNumber": lambda: _clabe(seed),
        "transferPixCode": lambda: str(uuid.uuid5(uuid.NAMESPACE_URL, seed)),
        "transferBsbNumber": lambda: "062-" + _digits(seed, 3),
        "transferTransitNumber": lambda: _digits(seed, 5),
        "transferBankCode": lambda: _digits(seed, 3),
        "transferBranchCode": lambda: _digits(seed, 3),
        "transferCnapsCode": lambda: _digits(seed, 12),
        "transferNubanCode": lambda: _digits(seed, 10),
        "transferClearingCode": lambda: _digits(seed, 4),
        "transferRoutingCode": lambda: _digits(seed, 9),
        "transferPaymentLink": lambda: f"https://pay.sandbox.example/{_reference(tx.pk)}",
    }
    return values[name]()


def fiat_instructions(tx: Transaction, method: str, beneficiary: str) -> dict:
    """Bank details to pay into; only the fields the rail uses (sandbox/data/rates.json)."""
    rates = table()
    rail = rates.rails[method]
    instructions = {"type": "fiat", "transferPaymentMethod": method, "transferMessage": _reference(tx.pk)}
    instructions |= SANDBOX_BANK
    instructions["transferBankBeneficiaryName"] = f"Payments Sandbox FBO {beneficiary}".strip()
    for name in rates.instruction_templates[rail["instructions"]]:
        instructions[name] = _field_value(name, tx, rail)
    return instructions


def crypto_instructions(tx: Transaction, quote: Quote, currency: Currency) -> dict:
    """Where to send the source crypto: the customer's own service wallet, else a sandbox deposit address."""
    source = quote.source_account
    if source.account_type == PaymentAccountType.SERVICE_CRYPTO_WALLET:
        address = source.details["address"]["address"]
    else:
        address = deposit_address(currency.chain, f"deposit:{tx.pk}")
    return {
        "type": "crypto",
        "depositAddress": address,
        "chain": currency.chain,
        "currency": currency.as_object(),
        "amount": amount_str(currency.quantize(quote.source_amount)),
    }


def reference_id(currency: Currency, seed: str) -> str:
    """A chain transaction hash for crypto, a bank reference for fiat."""
    digest = hashlib.sha512(seed.encode()).digest()
    if not currency.is_crypto:
        return "SBXREF" + _digits(seed, 14)
    if table().chains[currency.chain] == "EVM":
        return "0x" + digest.hex()[:64]
    return base58(digest)


def transfer_instructions(tx: Transaction, quote: Quote, source: Currency) -> dict:
    """Where the customer sends the source amount: a deposit address for crypto, bank details for fiat."""
    if source.is_crypto:
        return crypto_instructions(tx, quote, source)
    return fiat_instructions(tx, quote.source_payment_method, quote.customer.name)
