from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self):
        from core import labels

        from . import signals

        signals.connect()
        labels.register(
            labels.ACTION,
            {
                "notification.read": "Opened a notification",
                "notification.read_all": "Marked all notifications read",
                "notification.preferences": "Chose how to hear of notifications",
                "notification.destination_add": "Added a team destination",
                "notification.destination_change": "Changed a team destination",
                "notification.destination_test": "Sent a test message to a team destination",
                "notification.delivery_retry": "Sent a failed delivery again",
            },
        )
