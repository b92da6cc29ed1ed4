"""Chain addresses: checked when an integrator gives one, made for a new service wallet, and
derived from a seed for a transaction's deposit address."""

import hashlib
import re
import secrets

from ..rates import table

EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
SOLANA_ADDRESS = re.compile(rf"^[{BASE58}]{{32,44}}$")


def base58(data: bytes) -> str:
    number, text = int.from_bytes(data, "big"), ""
    while number:
        number, rest = divmod(number, 58)
        text = BASE58[rest] + text
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + text


def address_error(chain: str, address: str) -> str | None:
    if table().chains[chain] == "EVM":
        if not EVM_ADDRESS.match(address):
            return f"'{address}' is not an {chain} address: expected 0x followed by 40 hexadecimal digits"
    elif not SOLANA_ADDRESS.match(address):
        return f"'{address}' is not a SOLANA address: expected 32 to 44 base58 characters"
    return None


def new_address(chain: str) -> str:
    if table().chains[chain] == "EVM":
        return "0x" + secrets.token_hex(20)
    return base58(secrets.token_bytes(32))


def deposit_address(chain: str, seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    if table().chains[chain] == "EVM":
        return "0x" + digest.hex()[:40]
    return base58(digest)
