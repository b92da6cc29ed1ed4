"""The "due soon" SLA filter from an index: an expression index on where a case's SLA counts
from (customers.selectors.SLA_START_SQL, written out here so that a later change of the app
cannot change this migration). PostgreSQL only; elsewhere the filter reads the open cases."""

from django.db import migrations

INDEX = "customer_sla_start"
SLA_START_SQL = (
    "CASE WHEN waiting_on_us_seconds IS NULL THEN (status_since AT TIME ZONE 'UTC') "
    "ELSE (waiting_on_us_since AT TIME ZONE 'UTC') - make_interval(secs => waiting_on_us_seconds) END"
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON customers_customer (({SLA_START_SQL}))")
        # The planner's estimate of a window of it comes from the expression's own statistics.
        schema_editor.execute("ANALYZE customers_customer")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("customers", "0009_open_alert_counts")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
