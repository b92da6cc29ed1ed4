"""URLs of the pages that find records again (a rule with its history, the open quotes, the
customer type-ahead) in the role matrix (see tests/access.py)."""

from tests.access import ALL, Access
from tests.factories import AutomationRuleFactory


def _rule():
    return {"pk": AutomationRuleFactory().pk}


ACCESS = {
    "payments-view-automation-rule": Access(ALL, kwargs=_rule),
    "payments-list-open-quotes": Access(ALL),
    "payments-search-customers": Access(ALL),
}
