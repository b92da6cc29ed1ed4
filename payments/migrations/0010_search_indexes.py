"""The search box finds a payment account by the last digits of its bank account (the API's
mask, "****6789") or the end of its wallet address, and by its wallet address or the start of
one: two expression indexes (text_pattern_ops, so that LIKE 'x%' uses them whatever the
collation). The expressions are those of search/kinds.py, ACCOUNT_TAIL_SQL and
ACCOUNT_ADDRESS_SQL, character for character: PostgreSQL uses an expression index only for
the same expression (tests/search/test_plans.py checks that it does). And a rule by the start
of its name. PostgreSQL only."""

from django.db import migrations

INDEXES = {
    "payments_paymentaccount": {
        "account_search_tail": "reverse(lower(coalesce(\"details\" ->> 'bankAccountMask', \"details\" -> 'address' ->> 'address', '')))",
        "account_search_address": "lower(\"details\" -> 'address' ->> 'address')",
    },
    # A rule by the start of its name (name__istartswith: UPPER(name) LIKE 'X%').
    "payments_automationrule": {"rule_name_upper_like": 'UPPER("name"::text)'},
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table, indexes in INDEXES.items():
            for name, expression in indexes.items():
                schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} (({expression}) text_pattern_ops)")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in (name for indexes in INDEXES.values() for name in indexes):
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("payments", "0009_transaction_usd_value")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
