from django.urls import path

from . import receiver, views

urlpatterns = [
    path("webhooks/payments", receiver.receive_webhook, name="mirror-receive-webhook"),
    path("inbox/", views.list_webhook_events, name="mirror-list-webhook-events"),
    path("inbox/<int:pk>/replay", views.replay_webhook_event, name="mirror-replay-webhook-event"),
]
