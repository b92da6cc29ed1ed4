"""What an amount is worth in US dollars, as a Decimal: the figure monitoring rules compare.

Dollar stablecoins (USDC, USDT) and USD count 1:1; EURC counts as EUR. Other currencies use a
fixed table of units per dollar: the rates snapshot the Payments API's sandbox quotes with (its
rates.json, as of 2025-06-02), copied here because the back-office reaches the sandbox only over
HTTP and a stored USD value must not change when a rate moves. A currency the table does not know
has no USD value (None): rules that compare USD values then leave the transaction alone.
"""

from decimal import Decimal, InvalidOperation

USD_PLACES = Decimal("0.01")

# Units of the currency for one US dollar.
UNITS_PER_USD = {
    "USD": "1", "USDC": "1", "USDT": "1", "EUR": "0.92", "EURC": "0.92", "ETH": "0.000333333333333333",
    "SOL": "0.00666666666666667", "AED": "3.6725", "ARS": "1050", "AUD": "1.55", "BDT": "121.5", "BOB": "6.91",
    "BRL": "5.8", "CAD": "1.4", "CLP": "950", "CNY": "7.25", "COP": "4200", "CRC": "505", "CZK": "23.5",
    "DKK": "6.87", "DOP": "61", "EGP": "50.5", "GBP": "0.79", "GHS": "15", "GTQ": "7.72", "HKD": "7.78",
    "HUF": "380", "IDR": "16200", "ILS": "3.65", "INR": "86", "JMD": "157", "JOD": "0.709", "JPY": "150",
    "KES": "129", "KRW": "1450", "LKR": "295", "MXN": "20", "MYR": "4.45", "NGN": "1550", "NOK": "11",
    "NPR": "137.5", "NZD": "1.72", "PEN": "3.72", "PHP": "57.5", "PKR": "279", "PLN": "3.95", "QAR": "3.64",
    "RON": "4.6", "SAR": "3.75", "SEK": "10.7", "SGD": "1.35", "THB": "34", "TRY": "36", "TZS": "2500",
    "VND": "25400", "ZAR": "18.2",
}  # fmt: skip
# The exact prices of the two native tokens (the table's per-dollar figures are rounded).
USD_PRICE = {"ETH": Decimal("3000"), "SOL": Decimal("150")}


def to_usd(amount, currency: str) -> Decimal | None:
    """`amount` of `currency` in USD, to the cent; None when either is unknown."""
    if amount is None or not currency:
        return None
    try:
        amount = Decimal(str(amount))
    except InvalidOperation:
        return None
    currency = currency.upper()
    if currency in USD_PRICE:
        return (amount * USD_PRICE[currency]).quantize(USD_PLACES)
    per_usd = UNITS_PER_USD.get(currency)
    if per_usd is None:
        return None
    return (amount / Decimal(per_usd)).quantize(USD_PLACES)


def transaction_usd_value(*, source_amount, source_currency, destination_amount, destination_currency):
    """What a transaction moves in USD: its source amount, else its destination amount."""
    value = to_usd(source_amount, source_currency)
    return value if value is not None else to_usd(destination_amount, destination_currency)


def _sql_half_even(cents: str, vendor: str) -> str:
    """`cents` (an SQL expression) rounded to a whole number the way Decimal.quantize rounds
    (half to even), then back to dollars. PostgreSQL computes in exact numerics; SQLite holds
    decimals as binary floats, so its figure is first rounded to 9 places, where a half cent
    that a float division missed by a hair is a half cent again."""
    if vendor == "postgresql":
        whole, rounded = f"TRUNC({cents})", f"ROUND({cents})"
        fraction = f"({cents}) - TRUNC({cents})"
        even = f"MOD(TRUNC({cents}), 2) = 0"
    else:
        cents = f"ROUND({cents}, 9)"
        whole, rounded = f"CAST({cents} AS INTEGER)", f"ROUND({cents})"
        fraction = f"({cents}) - CAST({cents} AS INTEGER)"
        even = f"CAST({cents} AS INTEGER) % 2 = 0"
    value = f"(CASE WHEN ABS({fraction}) = 0.5 AND {even} THEN {whole} ELSE {rounded} END)"
    return f"CAST({value} / 100.0 AS NUMERIC)" if vendor != "postgresql" else f"({value} / 100)"


def _sql_to_usd(amount: str, currency: str, vendor: str) -> str:
    """to_usd in SQL: a CASE over the same table; NULL where to_usd answers None."""
    number = "NUMERIC" if vendor == "postgresql" else "REAL"
    cases = [f"WHEN '{code}' THEN {amount} * CAST('{price}' AS {number})" for code, price in USD_PRICE.items()]
    cases += [
        f"WHEN '{code}' THEN {amount} / CAST('{per_usd}' AS {number})"
        for code, per_usd in UNITS_PER_USD.items()
        if code not in USD_PRICE
    ]
    dollars = f"(CASE UPPER({currency}) {' '.join(cases)} END)"
    return f"(CASE WHEN {amount} IS NULL THEN NULL ELSE {_sql_half_even(f'{dollars} * 100', vendor)} END)"


def usd_value_fill_sql(table: str, vendor: str) -> str:
    """One UPDATE that sets every row's usd_value as transaction_usd_value would: the source
    amount's USD value, else the destination amount's (the migration that added the column)."""
    source = _sql_to_usd("source_amount", "source_currency", vendor)
    destination = _sql_to_usd("destination_amount", "destination_currency", vendor)
    return f"UPDATE {table} SET usd_value = COALESCE({source}, {destination})"  # noqa: S608 (no input)
