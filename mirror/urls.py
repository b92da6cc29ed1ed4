from django.urls import path

from . import receiver, views

urlpatterns = [
    path("webhooks/payments", receiver.receive_webhook, name="mirror-receive-webhook"),
    path("inbox/", views.list_inbox_events, name="mirror-list-inbox-events"),
    path("inbox/export.csv", views.export_inbox_events, name="mirror-export-inbox-events"),
    path("inbox/<int:pk>/replay", views.replay_inbox_event, name="mirror-replay-inbox-event"),
]
