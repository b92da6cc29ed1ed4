"""The mirror told us rows changed: queue their evaluation in the worker once the change is
committed. Nothing is evaluated here (this may run in the drain of a webhook batch or in a staff
request)."""

from functools import partial

from django.db import transaction


def queue_evaluation(sender, pks, **kwargs) -> None:
    from customers.models import Customer
    from payments.models import PaymentAccount, Transaction

    from . import tasks

    task = {
        Transaction: tasks.evaluate_changed_transactions,
        Customer: tasks.screen_changed_customers,
        PaymentAccount: tasks.screen_changed_accounts,
    }.get(sender)
    if task is not None:
        transaction.on_commit(partial(task.delay, list(pks)), robust=True)
