from django.apps import AppConfig


class MirrorConfig(AppConfig):
    name = "mirror"
    verbose_name = "Mirror: syncs, webhooks and the inbox"

    def ready(self):
        from core import labels

        from .models import EVENT_LABELS, WebhookEvent

        labels.register(labels.EVENT, EVENT_LABELS)
        labels.register(labels.INBOX_STATE, dict(WebhookEvent.State.choices))
        labels.register(labels.ACTION, {"webhook_event.replay": "Replayed a webhook event"})
