from django.db import migrations


class Migration(migrations.Migration):
    """WriteClaim now lives in the upstream app (upstream/0001): its table stays where it is."""

    dependencies = [("core", "0010_audit_event_moves_to_audit")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="WriteClaim")]),
    ]
