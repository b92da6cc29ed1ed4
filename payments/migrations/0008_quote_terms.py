"""A quote's terms in typed columns, filled from the body it was asked with; the execute's
correlation id moves out of that body into a column of its own (None: not fixed yet)."""

from decimal import Decimal, InvalidOperation

from django.db import migrations, models

MONEY = {"max_digits": 38, "decimal_places": 18}
TERMS = [
    "source_account_id",
    "source_payment_method",
    "source_currency",
    "destination_account_id",
    "destination_payment_method",
    "destination_currency",
    "developer_fee",
    "guaranteed",
    "correlation_id",
]


def _decimal(value) -> Decimal | None:
    try:
        return Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None


def fill_terms(apps, schema_editor):
    """Read each stored body once. Written out here (not imported from payments.terms) so that
    later changes of the app cannot change a migration."""
    Quote = apps.get_model("payments", "Quote")
    batch = []
    for quote in Quote.objects.only("id", "request").iterator(chunk_size=2000):
        body = dict(quote.request) if isinstance(quote.request, dict) else {}
        source = body.get("source") if isinstance(body.get("source"), dict) else {}
        destination = body.get("destination") if isinstance(body.get("destination"), dict) else {}
        fee = body.get("developerFee") if isinstance(body.get("developerFee"), dict) else {}
        quote.source_account_id = str(source.get("sourcePaymentAccountId") or "")
        quote.source_payment_method = str(source.get("sourcePaymentMethod") or "")
        quote.source_currency = str(source.get("sourceCurrency") or "")
        quote.destination_account_id = str(destination.get("destinationPaymentAccountId") or "")
        quote.destination_payment_method = str(destination.get("destinationPaymentMethod") or "")
        quote.destination_currency = str(destination.get("destinationCurrency") or "")
        quote.developer_fee = _decimal(fee.get("developerFeeAmount"))
        quote.guaranteed = bool(body.get("guaranteeQuote"))
        # The execute's id, never part of POST /quotes: the body keeps what was sent.
        correlation_id = body.pop("correlationId", None)
        quote.correlation_id = None if correlation_id is None else str(correlation_id)
        quote.request = body
        batch.append(quote)
        if len(batch) >= 500:
            Quote.objects.bulk_update(batch, [*TERMS, "request"])
            batch = []
    Quote.objects.bulk_update(batch, [*TERMS, "request"])


def restore_correlation_ids(apps, schema_editor):
    """Back to the body holding the execute's correlation id once fixed."""
    Quote = apps.get_model("payments", "Quote")
    for quote in Quote.objects.filter(correlation_id__isnull=False).only("id", "request", "correlation_id"):
        quote.request = {**quote.request, "correlationId": quote.correlation_id}
        quote.save(update_fields=["request"])


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0007_stuck_version_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="quote",
            name="source_account_id",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="source_payment_method",
            field=models.CharField(default="", max_length=40),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="source_currency",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="destination_account_id",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="destination_payment_method",
            field=models.CharField(default="", max_length=40),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="destination_currency",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="quote",
            name="developer_fee",
            field=models.DecimalField(blank=True, null=True, **MONEY),
        ),
        migrations.AddField(
            model_name="quote",
            name="guaranteed",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="quote",
            name="correlation_id",
            field=models.CharField(blank=True, max_length=200, null=True),
        ),
        migrations.RunPython(fill_terms, restore_correlation_ids, elidable=False),
    ]
