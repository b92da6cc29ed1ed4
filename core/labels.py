"""Staff words for codes: one vocabulary per kind of code (statuses, issue codes, payment methods,
webhook events, audit actions, roles), code -> the word staff read.

Each app registers the words of its own codes when it starts (its `AppConfig.ready`), so that
core's pages and exports (the audit log, the CSV helper) speak every app's words without
importing the apps. Pages show the word with the code in a `title`; exports carry both. The
crawl of the seeded demo (tests/integration/test_crawl_demo.py) fails on a page that shows a
code of these vocabularies where its word belongs.
"""

from types import MappingProxyType

# The vocabularies. STATUS holds the API's statuses of every record (customers, transactions,
# payment accounts): they share their words ("ACTIVE" is "Active" on each).
STATUS = "status"
ISSUE = "issue"
METHOD = "method"
EVENT = "event"
ACTION = "action"
ROLE = "role"
OUTCOME = "outcome"
DECISION = "decision"
ACCOUNT_TYPE = "account_type"
CUSTOMER_TYPE = "customer_type"
APPROVAL_KIND = "approval_kind"
INBOX_STATE = "inbox_state"
ERROR = "error"
HANDOUT = "handout"
CASE_KIND = "case_kind"

_WORDS: dict[str, dict[str, str]] = {}
# Which vocabulary names the value of an audit event's detail: by "<target kind>.<key>" where a
# key means another thing on another kind of record ("type"), else by the key alone.
_DETAILS: dict[str, str] = {}


def register(kind: str, words: dict[str, str]) -> None:
    """Add `words` (code -> staff word) to the vocabulary `kind`."""
    _WORDS.setdefault(kind, {}).update({str(code): str(word) for code, word in words.items()})


def words(kind: str) -> MappingProxyType:
    """The vocabulary `kind` as registered (read-only)."""
    return MappingProxyType(_WORDS.get(kind, {}))


def humanize(code) -> str:
    """A code no vocabulary knows yet, in words all the same: "NEW_CODE" -> "New code",
    "rule.fired" -> "Rule fired"."""
    return str(code or "").replace("_", " ").replace(".", " ").strip().capitalize()


def label(kind: str, code) -> str:
    """The staff word for `code` of the vocabulary `kind`; a code the API adds later reads in
    words too."""
    return _WORDS.get(kind, {}).get(str(code or "")) or humanize(code)


def raw_codes(*kinds: str) -> set[str]:
    """The codes of `kinds` whose word differs from the code: what a page must never show bare."""
    return {code for kind in kinds for code, word in _WORDS.get(kind, {}).items() if word != code}


def register_details(mapping: dict[str, str]) -> None:
    """`{"status": STATUS, "payment_account.type": ACCOUNT_TYPE}`: the vocabulary of the value
    of an audit event's detail, by its key (or its target kind and key)."""
    _DETAILS.update(mapping)


def detail_items(target_kind: str, details) -> list[tuple[str, str, str]]:
    """An audit event's details as staff read them: (the key in words, the value in words, the
    code behind the value when a vocabulary named it, for the title; else "")."""
    if not isinstance(details, dict):
        return [("Details", str(details), "")]
    items = []
    for key, value in details.items():
        kind = _DETAILS.get(f"{target_kind}.{key}") or _DETAILS.get(key)
        name = humanize(key)
        if kind and isinstance(value, list):
            items.append((name, ", ".join(label(kind, v) for v in value) or "none", ", ".join(map(str, value))))
        elif kind and value not in (None, ""):
            items.append((name, label(kind, value), str(value)))
        else:
            items.append((name, _plain(value), ""))
    return items


def _plain(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)
