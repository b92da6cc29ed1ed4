"""The role matrix's vocabulary. Each app lists its URLs in tests/<app>/access.py as
ACCESS = {url name: Access(...)}; tests/core/test_access.py checks every one of them
for every role, and that no staff URL is missing from the lists."""

from collections.abc import Callable
from dataclasses import dataclass, field

from tests.conftest import ROLES

ALL = frozenset(ROLES)
ANY_STAFF = frozenset({*ROLES, None})  # signed in, with or without a role
READERS = ALL  # every role reads


@dataclass(frozen=True)
class Access:
    """Who may use a URL: `roles` get `allowed` (200 for a page, 302 for an action), every
    other signed-in user 403. `kwargs` makes the records the URL needs and returns its kwargs;
    `data` is the POST body of an action (valid, so that an allowed role succeeds); `form`
    says the same URL shows the action's form on GET (200 for `roles`, 403 for the others)."""

    roles: frozenset
    method: str = "get"
    kwargs: Callable[[], dict] | None = None
    data: Callable[[], dict] | None = None
    allowed: int | None = None
    headers: dict = field(default_factory=dict)
    # A POST whose URL also serves its form on GET, to the same roles.
    form: bool = False

    @property
    def expected_when_allowed(self) -> int:
        return self.allowed or (200 if self.method == "get" else 302)
