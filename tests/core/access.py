"""This app's URLs in the role matrix (see tests/access.py)."""

from tests.access import ANY_STAFF, Access

ACCESS = {
    "home": Access(ANY_STAFF),
    "core-list-audit-events": Access(frozenset({"admin", "auditor"})),
    "core-export-audit-events": Access(frozenset({"admin", "auditor"})),
    "core-set-time-zone": Access(ANY_STAFF, method="post", data=lambda: {"time_zone": "Europe/Berlin"}, form=True),
}
