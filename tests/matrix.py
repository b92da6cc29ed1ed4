"""The role matrix as one table: every staff URL name of every app -> who may use it."""

from tests.core.access import ACCESS as CORE
from tests.customers.access import ACCESS as CUSTOMERS
from tests.mirror.access import ACCESS as MIRROR
from tests.notifications.access import ACCESS as NOTIFICATIONS
from tests.payments.access import ACCESS as PAYMENTS

MATRIX = {**CORE, **CUSTOMERS, **PAYMENTS, **MIRROR, **NOTIFICATIONS}
