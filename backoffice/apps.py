from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    name = "backoffice"
    verbose_name = "Back-office"

    def ready(self):
        from . import checks  # noqa: F401
        from .ticker import start_if_wanted

        start_if_wanted()
