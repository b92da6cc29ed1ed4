# Numbered after the migrations this app had when it held the models now in core and mirror:
# a database made then records backoffice 0001-0006 as applied, and this one must still run.
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="DailyFigure",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("figure", models.CharField(max_length=32)),
                ("day", models.DateField()),
                ("key", models.CharField(blank=True, max_length=200)),
                ("count", models.BigIntegerField(default=0)),
                ("amount", models.DecimalField(blank=True, decimal_places=18, max_digits=38, null=True)),
                ("extra", models.JSONField(blank=True, default=dict)),
                ("computed_at", models.DateTimeField()),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("figure", "day", "key"), name="dailyfigure_unique")],
            },
        ),
        migrations.CreateModel(
            name="Snapshot",
            fields=[
                ("name", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("data", models.JSONField(default=dict)),
                ("computed_at", models.DateTimeField()),
            ],
        ),
    ]
