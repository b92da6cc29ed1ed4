"""What every model of the Payments API shares: camelCase on the wire, extras kept, open enums."""

from decimal import Decimal
from enum import StrEnum

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class OpenEnum(StrEnum):
    """A str enum that keeps unknown values: `_missing_` makes a pseudo-member for them."""

    @classmethod
    def _missing_(cls, value):
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member

    @property
    def is_known(self) -> bool:
        return self._name_ in type(self).__members__


class JsonNumber(Decimal):
    """A Decimal the client writes as a JSON number, not a string (the few fields the spec types
    as numbers). Refused beyond 15 significant digits, where a JSON number would lose some."""


class ApiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")
