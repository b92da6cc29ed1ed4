"""Extended statistics on the customer columns the queue filters on together.

Organization, type and status are correlated (one organization may hold most customers,
and only individuals or only businesses); without these statistics PostgreSQL multiplies
the columns' selectivities as if independent and misjudges a rare combination as common,
then walks the keyset index looking for it. PostgreSQL only (SQLite has no such thing).
"""

from django.db import migrations

STATISTICS = {
    "customer_org_type_status_stats": "organization_id, customer_type, status",
}


def create_statistics(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, columns in STATISTICS.items():
            schema_editor.execute(
                f"CREATE STATISTICS IF NOT EXISTS {name} (ndistinct, dependencies, mcv) ON {columns} "
                "FROM customers_customer"
            )
        schema_editor.execute("ANALYZE customers_customer")


def drop_statistics(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in STATISTICS:
            schema_editor.execute(f"DROP STATISTICS IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("customers", "0005_case_decisions")]

    operations = [migrations.RunPython(create_statistics, drop_statistics, elidable=False)]
