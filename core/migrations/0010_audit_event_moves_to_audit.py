from django.db import migrations


class Migration(migrations.Migration):
    """AuditEvent now lives in the audit app (audit/0001): its table stays where it is."""

    dependencies = [("core", "0009_staff_preference_moves_to_staff")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="AuditEvent")]),
    ]
