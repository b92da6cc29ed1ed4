"""Each verification issue carries its customer's status, and the issue index leads with the
code and that status: the queue's issue filter reads one index range for a code and status
(customers.selectors.with_issue) instead of probing every customer of the status. Statistics
on (code, customer_status) tell PostgreSQL which pairs are rare (issues belong to customers
needing information or rejected; a missing document under review is an empty range)."""

from django.db import migrations, models

from core.migration_ops import extended_statistics


def fill_status(apps, schema_editor):
    VerificationIssue = apps.get_model("customers", "VerificationIssue")
    Customer = apps.get_model("customers", "Customer")
    VerificationIssue.objects.update(
        customer_status=models.Subquery(Customer.objects.filter(pk=models.OuterRef("customer_id")).values("status")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [("customers", "0006_sweep_indexes")]

    operations = [
        migrations.AddField(
            model_name="verificationissue",
            name="customer_status",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
        migrations.RunPython(fill_status, migrations.RunPython.noop, elidable=False),
        migrations.RemoveIndex(model_name="verificationissue", name="issue_code"),
        migrations.AddIndex(
            model_name="verificationissue",
            index=models.Index(fields=["code", "customer_status", "customer"], name="issue_code"),
        ),
        extended_statistics("issue_code_status_stats", "customers_verificationissue", "code, customer_status"),
    ]
