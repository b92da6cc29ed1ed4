"""Catching up with the sandbox clock: everything that fell due, here and now.

The periodic Celery tasks (sandbox/tasks.py) do this piece by piece; `test-helpers/clock/advance`
calls `due_work_run` after its commit, so that advancing the clock has its effect at once, with
or without a beat.
"""

from . import rules, transactions, verification, webhooks

# Deliveries attempted by one catch-up: a jump of the clock should not hold the request for long.
DELIVERY_BATCH = 100


def due_work_run() -> dict:
    """In dependency order: reviews (customers become ACTIVE), transactions (expiry, completion,
    whose credits may reach thresholds), automation rules, then the webhook deliveries all of
    these emitted or that were waiting for a retry. Answers how many of each."""
    reviews = verification.review_complete_due()
    settled = transactions.transactions_advance_due()
    fired = rules.automation_rules_fire_due()
    delivered = webhooks.deliver_due(limit=DELIVERY_BATCH)
    return {
        "reviews": reviews,
        "transactions": settled,
        "rulesFired": len(fired["fired"]),
        "rulesFailed": len(fired["failed"]),
        "deliveries": delivered,
    }
