"""The customers' open alert counts (customers/0009) filled from the alerts raised before them;
monitoring.services.refresh_open_alerts keeps them from then on."""

from django.db import migrations

FILL = """
UPDATE customers_customer AS c
SET open_monitoring_alerts = counts.monitoring, open_screening_alerts = counts.screening
FROM (
    SELECT customer_id,
           COUNT(*) FILTER (WHERE kind = 'monitoring') AS monitoring,
           COUNT(*) FILTER (WHERE kind = 'screening') AS screening
    FROM monitoring_alert
    WHERE status = 'open' AND customer_id IS NOT NULL
    GROUP BY customer_id
) AS counts
WHERE c.id = counts.customer_id
"""


def fill(apps, schema_editor):
    Alert = apps.get_model("monitoring", "Alert")
    Customer = apps.get_model("customers", "Customer")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FILL)
        return
    for customer_id in Alert.objects.filter(status="open").values_list("customer_id", flat=True).distinct():
        if customer_id is not None:
            open_alerts = Alert.objects.filter(customer_id=customer_id, status="open")
            Customer.objects.filter(pk=customer_id).update(
                open_monitoring_alerts=open_alerts.filter(kind="monitoring").count(),
                open_screening_alerts=open_alerts.filter(kind="screening").count(),
            )


class Migration(migrations.Migration):
    dependencies = [("monitoring", "0001_initial"), ("customers", "0009_open_alert_counts")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
