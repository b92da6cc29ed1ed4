"""This app's URLs in the role matrix (see tests/access.py)."""

from tests.access import READERS, Access
from tests.factories import CustomerFactory
from tests.marks import marked

EDITORS = frozenset({"compliance", "compliance_lead", "admin"})
# Who works a case once it is escalated (tests/customers/test_decisions.py tries each role).
LEADS = frozenset({"compliance_lead", "admin"})


def _customer():
    return {"customer_id": CustomerFactory().customer_id}


def _business():
    return {"customer_id": CustomerFactory(business=True).customer_id}


def _person_rows():
    return {**_business(), "kind": "persons"}


ACCESS = {
    "customers-list-customers": Access(READERS),
    "customers-export-customers": Access(READERS),
    "customers-view-customer": Access(READERS, kwargs=_customer),
    "customers-view-customer-live": Access(READERS, kwargs=_customer),
    "customers-list-counts-live": Access(READERS),
    # Allowed roles get 302: a case to claim, or "none left" back to the queue.
    "customers-claim-next-case": Access(EDITORS, method="post", data=marked),
    # Invalid on purpose (no e-mail): the form answers 200 without calling the API.
    "customers-create-customer": Access(
        EDITORS, method="post", data=lambda: {"customer_type": "INDIVIDUAL"}, allowed=200
    ),
    # Read a moment ago (synced_at = now): the refresh is not sent again, no API call.
    "customers-refresh-customer": Access(EDITORS, method="post", kwargs=_customer),
    "customers-assign-customer": Access(EDITORS, method="post", kwargs=_customer, data=lambda: {"claim": "1"}),
    "customers-list-escalations": Access(READERS),
    # Every decision is in tests/customers/test_decisions.py; here the one every role tries.
    "customers-decide-customer": Access(
        EDITORS,
        method="post",
        kwargs=_customer,
        data=lambda: {"kind": "approved", "reason": "Documents match.", "seen": "0"},
    ),
    "customers-bulk-assign": Access(
        EDITORS, method="post", data=lambda: {"customers": [_customer()["customer_id"]], "claim": "1"}
    ),
    "customers-add-note": Access(EDITORS, method="post", kwargs=_customer, data=lambda: {"body": "Called them."}),
    "customers-record-handout": Access(EDITORS, method="post", kwargs=_customer, data=lambda: marked(kind="copied")),
    # Empty forms: "Nothing to send" comes back (200) without an API call.
    "customers-edit-kyc": Access(EDITORS, method="post", kwargs=_customer, allowed=200),
    "customers-edit-kyb": Access(EDITORS, method="post", kwargs=_business, allowed=200),
    "customers-add-row": Access(EDITORS, kwargs=_person_rows),
    "customers-remove-row": Access(EDITORS, kwargs=_business, data=lambda: {"prefix": "persons-1"}),
    # The create page's rows: no customer yet, the kind in the query.
    "customers-add-new-row": Access(EDITORS, data=lambda: {"kind": "kyc_documents"}),
    "customers-remove-new-row": Access(EDITORS, data=lambda: {"prefix": "kyc_documents-1"}),
}
