"""The queue's "waiting on us" clock, kept on the customer; open cases get it from their history."""

import datetime as dt

from django.db import migrations, models
from django.utils import timezone

OPEN = {"CREATED", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION", "REJECTED"}
WAITING_ON_CUSTOMER = {"NEEDS_ADDITIONAL_INFORMATION"}


def backfill(apps, schema_editor):
    """The same walk as timeline.case_clock, once, for the open cases that have a history.

    Written out here (not imported) so that later changes of the app cannot change a migration.
    Cases without history keep no clock: the queue then counts their time in the current state.
    """
    Customer = apps.get_model("customers", "Customer")
    Change = apps.get_model("customers", "CustomerStatusChange")
    now = timezone.now()
    batch = []
    for customer in Customer.objects.filter(status__in=OPEN).only("id", "status").iterator(chunk_size=2000):
        changes = Change.objects.filter(customer_id=customer.id).order_by("-recorded_at", "-id")[:200]
        if not changes:
            continue
        on_us, end = dt.timedelta(), now
        for change in changes:
            if change.new_status not in OPEN:
                break
            if change.new_status not in WAITING_ON_CUSTOMER:
                on_us += max(end - change.recorded_at, dt.timedelta())
            end = change.recorded_at
        customer.waiting_on_us_seconds = int(on_us.total_seconds())
        customer.waiting_on_us_since = now if customer.status not in WAITING_ON_CUSTOMER else None
        batch.append(customer)
        if len(batch) >= 500:
            Customer.objects.bulk_update(batch, ["waiting_on_us_seconds", "waiting_on_us_since"])
            batch = []
    Customer.objects.bulk_update(batch, ["waiting_on_us_seconds", "waiting_on_us_since"])


class Migration(migrations.Migration):
    dependencies = [
        ("customers", "0002_casework"),
    ]

    operations = [
        migrations.AddField(
            model_name="customer",
            name="waiting_on_us_seconds",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="customer",
            name="waiting_on_us_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
