from django.conf import settings
from django.core.checks import Warning, register


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
    for name in ("PAYMENTS_API_KEY", "PAYMENTS_WEBHOOK_SECRET"):
        if not getattr(settings, name):
            problems.append(
                Warning(f"{name} is not set.", hint=f"Set {name} in the environment.", id="backoffice.W002")
            )
    return problems
