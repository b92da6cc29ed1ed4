"""Words inside a customer's name for the search box ("Lovelace" finds "Ada Lovelace"): a
trigram index on UPPER(name), which `name__icontains` (UPPER(name) LIKE '%LOVELACE%') uses.
PostgreSQL only (pg_trgm); elsewhere the search reads the rows."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEX = "customer_name_upper_trgm"


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS {INDEX} ON customers_customer USING gin (UPPER("name"::text) gin_trgm_ops)'
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("customers", "0007_issue_customer_status")]

    # TrigramExtension does nothing on a database other than PostgreSQL.
    operations = [TrigramExtension(), migrations.RunPython(create, drop, elidable=False)]
