from django.conf import settings
from django.core.checks import Warning, register
from django.db import DatabaseError


def _stored_webhook_secret() -> bool:
    """Whether register_webhook stored a signing secret (the receiver tries those too). A
    database that cannot say (not migrated yet, away) counts as none: the warning stays."""
    from mirror.models import WebhookSecret

    try:
        return WebhookSecret.objects.exists()
    except DatabaseError:
        return False


@register(deploy=True)
def check_payments_api(app_configs, **kwargs):
    """In production the back-office needs a real upstream and its secrets."""
    problems = []
    if settings.SANDBOX_MOUNTED:
        problems.append(
            Warning(
                "The sandbox is mounted as the upstream Payments API.",
                hint="Set PAYMENTS_API_BASE_URL to the provider's address.",
                id="backoffice.W001",
            )
        )
    if not settings.PAYMENTS_API_KEY:
        problems.append(
            Warning(
                "PAYMENTS_API_KEY is not set.", hint="Set PAYMENTS_API_KEY in the environment.", id="backoffice.W002"
            )
        )
    if not settings.PAYMENTS_WEBHOOK_SECRET and not _stored_webhook_secret():
        problems.append(
            Warning(
                "PAYMENTS_WEBHOOK_SECRET is not set.",
                hint="Set PAYMENTS_WEBHOOK_SECRET in the environment, or register the endpoint with "
                "`manage.py register_webhook`, which stores its secret.",
                id="backoffice.W002",
            )
        )
    return problems
