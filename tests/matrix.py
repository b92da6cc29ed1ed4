"""The role matrix as one table: every staff URL name of every app -> who may use it."""

from tests.core.access import ACCESS as CORE
from tests.customers.access import ACCESS as CUSTOMERS
from tests.mirror.access import ACCESS as MIRROR
from tests.monitoring.access import ACCESS as MONITORING
from tests.notifications.access import ACCESS as NOTIFICATIONS
from tests.payments.access import ACCESS as PAYMENTS
from tests.search.access import ACCESS as SEARCH

MATRIX = {**CORE, **CUSTOMERS, **PAYMENTS, **MIRROR, **MONITORING, **SEARCH, **NOTIFICATIONS}
