from django.db import migrations


class Migration(migrations.Migration):
    """StaffPreference now lives in the staff app (staff/0001): its table stays where it is."""

    dependencies = [("core", "0008_write_claims")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="StaffPreference")]),
    ]
