"""This app's URLs in the role matrix (see tests/access.py), one list per part."""

from tests.payments.access_accounts import ACCESS as ACCOUNTS
from tests.payments.access_approvals import ACCESS as APPROVALS
from tests.payments.access_lookups import ACCESS as LOOKUPS
from tests.payments.access_transactions import ACCESS as TRANSACTIONS

ACCESS = {**ACCOUNTS, **TRANSACTIONS, **LOOKUPS, **APPROVALS}
