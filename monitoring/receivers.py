"""The mirror told us rows changed: have them evaluated or screened in the worker once the
change is committed. Nothing is evaluated here (this may run in the drain of a webhook batch or
in a staff request).

Transactions need no message: the upsert marked each changed row `evaluation_due_at` in its own
UPDATE, and beat's evaluate-due-transactions picks the marks up; a mark commits or rolls back
with the change, so neither a broker away nor a worker's crash loses one. Without a broker
(eager Celery) they are evaluated as soon as the change commits."""

from functools import partial

from celery import current_app
from django.db import transaction


def queue_evaluation(sender, pks, **kwargs) -> None:
    from customers.models import Customer
    from payments.models import PaymentAccount, Transaction

    from . import tasks

    if sender is Transaction:
        if current_app.conf.task_always_eager:
            transaction.on_commit(tasks.evaluate_due_transactions.delay, robust=True)
        return
    task = {
        Customer: tasks.screen_changed_customers,
        PaymentAccount: tasks.screen_changed_accounts,
    }.get(sender)
    if task is not None:
        transaction.on_commit(partial(task.delay, list(pks)), robust=True)
