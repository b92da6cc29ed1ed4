"""What a staff member typed in the search box, and which ways of finding a record it allows."""

import re
from dataclasses import dataclass

MIN_LENGTH = 2
MAX_LENGTH = 200
# An upstream id (a UUID, an md5, "cus_…") and the shortest prefix of one worth a look.
_ID = re.compile(r"[A-Za-z0-9_-]{4,64}")
# The last digits of a bank account (the API shows the last four: "****6789") or the end of a
# wallet address: at least this many letters or digits.
TAIL_MIN = 3
# The letters of a trigram: a shorter word gives a trigram index nothing to look up.
TRIGRAM = 3
MASKED_DIGITS = 4


@dataclass(frozen=True)
class Query:
    text: str

    @classmethod
    def parse(cls, raw) -> "Query":
        return cls(" ".join(str(raw or "").split())[:MAX_LENGTH])

    @property
    def too_short(self) -> bool:
        return len(self.text) < MIN_LENGTH

    @property
    def id_like(self) -> bool:
        """Could be an id or the start of one (no spaces, 4 to 64 letters, digits, - or _)."""
        return bool(_ID.fullmatch(self.text))

    @property
    def rarest_word(self) -> str:
        """The word a trigram index finds fewest rows for: of the words it can look up (three
        letters at least: a trigram), one with a digit (few names hold it), else the longest.
        The index then reads that word's trigrams only, and the whole text is checked on the
        rows it finds; all of a common word's trigrams ("ustomer" in a million "Customer N")
        would be read and intersected instead."""
        words = self.text.split()
        return max(
            words, key=lambda word: (len(word) >= TRIGRAM, any(c.isdigit() for c in word), len(word)), default=""
        )

    @property
    def has_at(self) -> bool:
        return "@" in self.text

    @property
    def alnum(self) -> str:
        """The letters and digits typed, lower-cased: "…6789", "**** 6789" -> "6789"."""
        return "".join(c for c in self.text if c.isalnum()).lower()

    @property
    def tail(self) -> str:
        """What the end of an account number or address is looked up by: digits alone count by
        their last four (a bank account is known by those); else all that was typed. "" when
        the text cannot be such an end (spaces between words, too short)."""
        if " " in self.text.strip("*…. ") or len(self.alnum) < TAIL_MIN:
            return ""
        return self.alnum[-MASKED_DIGITS:] if self.alnum.isdigit() else self.alnum
