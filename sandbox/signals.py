"""What the sandbox's services announce when work is to follow the commit of a change.

The services sit below the Celery tasks and never import them: they send one of these signals
with the id of the record, and the receivers in sandbox/tasks.py (connected when the app is
ready, sandbox/apps.py) queue the task that does the work once the database transaction
commits. A new kind of scheduled work is a signal here, its send in the service and its
receiver beside its task.
"""

from django.dispatch import Signal

# An event was stored with one Delivery per endpoint that wants it: attempt the delivery.
# Sent with delivery_id.
delivery_created = Signal()

# A transaction entered PROCESSING: complete (or fail) it when its processing delay is over.
# Sent with transaction_id and countdown (seconds).
processing_started = Signal()

# A customer went UNDER_REVIEW: apply the review's outcome when it is due.
# Sent with customer_id and countdown (seconds).
review_started = Signal()

# A balance changed on an account that is the source of a threshold rule: check those rules.
# Sent with account_id (the paymentAccountId).
watched_balance_changed = Signal()
