"""The rails, chains and currencies of the Payments API: the one place that lists them.

What each chain carries and each rail's currency follow docs/decisions/sandbox-payments.md.
"""

import re

# The spec's payment methods: fiat rails, then chains.
RAILS = [
    "ACH", "WIRE", "ACH_SAME_DAY", "SWIFT", "SEPA", "AE_UAEFTS", "AR_TRANSFERS_3", "AU_BECS", "BD_BEFTN", "BO_RTGS",
    "BR_TED_DOC_PIX", "CA_INTERAC", "CL_TEF", "CN_CNAPS", "CO_ACH", "CR_SINPE", "CZ_CERTIS", "DK_NEMKONTO_FI",
    "DO_ACH", "EC_LOCAL", "EG_RTGS_IPN", "GB_BACS_CHAPS_FPS", "GH_GHIPSS", "GT_ACH", "HK_HKICL_CHATS_ECG", "HU_GIRO",
    "ID_SKN_RTGS", "IL_ZAHAV", "IN_NEFT_RTGS_IMPS", "JM_LOCAL", "JO_ACH", "JP_ZENGIN", "KE_KIBBS_PESALINK",
    "KR_LOCAL", "LK_LOCAL", "MX_SPEI", "MY_IBG_RENTAS", "NG_NIBSS_NEFT", "NO_NICS", "NP_LOCAL", "NZ_LOCAL", "PE_CCE",
    "PH_INSTAPAY_PESONET", "PK_RAAST_IBFT", "PL_ELIXIR_BLUE_CASH", "QA_QPS", "RO_RTGS", "SA_MADA", "SE_BANKGIROT",
    "SG_FAST_MEPS", "SV_LOCAL", "TH_BAHTNET_PROMPTPAY", "TR_FAST_EFT", "TZ_RTGS", "VN_IBPS", "ZA_RTGS_EFT",
]  # fmt: skip
CHAINS = ["ARBITRUM", "BASE", "ETHEREUM", "OPTIMISM", "POLYGON", "SOLANA"]
EVM_CHAINS = frozenset(CHAINS) - {"SOLANA"}
TOKENS = ["USDC", "USDT", "EURC", "ETH", "SOL"]
# Which tokens each chain carries (docs/decisions/sandbox-payments.md). Used to offer a service
# wallet's balances; a token the API does not know on a chain is simply shown as unavailable.
CHAIN_TOKENS = {
    "ARBITRUM": ["USDC", "USDT", "ETH"],
    "BASE": ["USDC", "EURC", "ETH"],
    "ETHEREUM": ["USDC", "USDT", "EURC", "ETH"],
    "OPTIMISM": ["USDC", "USDT", "ETH"],
    "POLYGON": ["USDC", "USDT"],
    "SOLANA": ["USDC", "USDT", "EURC", "SOL"],
}
# The currency of each rail where the rail fixes it; the others are the country's currency,
# read from the rail's two-letter prefix by `rail_currency`.
_RAIL_CURRENCY = {"ACH": "USD", "WIRE": "USD", "ACH_SAME_DAY": "USD", "SWIFT": "USD", "SEPA": "EUR"}
_COUNTRY_CURRENCY = {
    "AE": "AED", "AR": "ARS", "AU": "AUD", "BD": "BDT", "BO": "BOB", "BR": "BRL", "CA": "CAD", "CL": "CLP",
    "CN": "CNY", "CO": "COP", "CR": "CRC", "CZ": "CZK", "DK": "DKK", "DO": "DOP", "EC": "USD", "EG": "EGP",
    "GB": "GBP", "GH": "GHS", "GT": "GTQ", "HK": "HKD", "HU": "HUF", "ID": "IDR", "IL": "ILS", "IN": "INR",
    "JM": "JMD", "JO": "JOD", "JP": "JPY", "KE": "KES", "KR": "KRW", "LK": "LKR", "MX": "MXN", "MY": "MYR",
    "NG": "NGN", "NO": "NOK", "NP": "NPR", "NZ": "NZD", "PE": "PEN", "PH": "PHP", "PK": "PKR", "PL": "PLN",
    "QA": "QAR", "RO": "RON", "SA": "SAR", "SE": "SEK", "SG": "SGD", "SV": "USD", "TH": "THB", "TR": "TRY",
    "TZ": "TZS", "VN": "VND", "ZA": "ZAR",
}  # fmt: skip
FIAT_CURRENCIES = sorted({*_RAIL_CURRENCY.values(), *_COUNTRY_CURRENCY.values()})


# The staff word of each payment method, the code in a title (core.labels, vocabulary METHOD).
# A country's rail reads as its systems ("GB_BACS_CHAPS_FPS" -> "GB BACS CHAPS FPS").
_NAMED_METHODS = {
    "ACH": "ACH",
    "ACH_SAME_DAY": "Same-day ACH",
    "WIRE": "Wire",
    "SWIFT": "SWIFT",
    "SEPA": "SEPA",
    "ARBITRUM": "Arbitrum",
    "BASE": "Base",
    "ETHEREUM": "Ethereum",
    "OPTIMISM": "Optimism",
    "POLYGON": "Polygon",
    "SOLANA": "Solana",
}
METHOD_LABELS = {method: _NAMED_METHODS.get(method) or method.replace("_", " ") for method in [*RAILS, *CHAINS]}


PAYMENT_METHOD_CHOICES = [
    ("", "—"),
    ("Fiat rails", [(rail, METHOD_LABELS[rail]) for rail in RAILS]),
    ("Chains", [(chain, METHOD_LABELS[chain]) for chain in CHAINS]),
]
CHAIN_CHOICES = [(chain, METHOD_LABELS[chain]) for chain in CHAINS]
TOKEN_CHOICES = [(token, token) for token in TOKENS]

EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
SOLANA_ADDRESS = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,44}$")


def rail_currency(method: str) -> str | None:
    """The fiat currency of a rail, None for a chain or an unknown method."""
    if method in _RAIL_CURRENCY:
        return _RAIL_CURRENCY[method]
    return _COUNTRY_CURRENCY.get(method[:2]) if method in RAILS else None


# Every rail with its currency.
RAIL_CURRENCY = {rail: rail_currency(rail) for rail in RAILS}


def address_error(chain: str, address: str) -> str | None:
    """Why `address` cannot be a wallet on `chain`, or None when its format fits."""
    if chain in EVM_CHAINS and not EVM_ADDRESS.match(address):
        return f"An address on {METHOD_LABELS.get(chain) or chain} is 0x followed by 40 hexadecimal characters."
    if chain == "SOLANA" and not SOLANA_ADDRESS.match(address):
        return "A Solana address is 32 to 44 base58 characters (no 0, O, I or l)."
    return None
