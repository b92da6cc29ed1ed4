from django.apps import AppConfig


class UpstreamConfig(AppConfig):
    name = "upstream"
    verbose_name = "The Payments API adapter"

    def ready(self):
        from core import labels

        from .api_errors import ERROR_CODE_MESSAGES

        labels.register(labels.ERROR, ERROR_CODE_MESSAGES)
