"""Python values to the wire: request bodies and query strings, and ids as path segments."""

import uuid
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel, SecretStr

from .types import JsonNumber


def to_wire(value: Any) -> Any:
    """Python values -> JSON values: models by their camelCase names, Decimals as strings.

    Floats are refused: money is Decimal end to end, and a float would already have lost digits.
    """
    if isinstance(value, BaseModel):
        return to_wire(value.model_dump(by_alias=True, exclude_none=True))
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, JsonNumber):
        if not value.is_finite() or len(value.as_tuple().digits) > 15:
            raise ValueError(f"Cannot send {value} as a JSON number without losing digits")
        # Up to 15 significant digits, a float's shortest repr is exactly this decimal text.
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"Cannot send the amount {value}")
        return format(value, "f")  # never exponent form such as 1E+2
    if isinstance(value, float):
        raise TypeError("Floats are not sent to the Payments API: use Decimal for amounts")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Mapping):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(item) for item in value]
    raise TypeError(f"Cannot send a {type(value).__name__} to the Payments API")


def compact(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A body or a query without the fields left as None (unset, not null)."""
    return {name: value for name, value in fields.items() if value is not None}


def segment(value: str) -> str:
    """An id as one path segment: an id with "/" or ".." must not reach another path."""
    text = str(value)
    if not text or "/" in text or text in (".", "..") or "?" in text or "#" in text:
        raise ValueError(f"Not a usable id: {text!r}")
    return text
