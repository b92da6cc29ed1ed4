"""Extended statistics on the customer columns the queue filters on together.

Organization, type and status are correlated (one organization may hold most customers,
and only individuals or only businesses); without these statistics PostgreSQL multiplies
the columns' selectivities as if independent and misjudges a rare combination as common,
then walks the keyset index looking for it. PostgreSQL only (SQLite has no such thing).
"""

from django.db import migrations

from core.migration_ops import extended_statistics


class Migration(migrations.Migration):
    dependencies = [("customers", "0005_case_decisions")]

    operations = [
        extended_statistics(
            "customer_org_type_status_stats", "customers_customer", "organization_id, customer_type, status"
        )
    ]
