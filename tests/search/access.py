"""This app's URLs in the role matrix (see tests/access.py)."""

from tests.access import ANY_STAFF, Access

ACCESS = {
    # Every member may search; what each finds follows their role (tests/search/test_search.py).
    "search": Access(ANY_STAFF),
}
