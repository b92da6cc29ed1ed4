"""The notifications' addresses, under /notifications/."""

from django.urls import path

from .views import (
    bell,
    change_destination,
    list_destinations,
    list_notifications,
    open_notification,
    preferences,
    read_all,
    retry_delivery,
    test_destination,
)

urlpatterns = [
    path("", list_notifications, name="notifications-list-notifications"),
    # A poll, as every live URL: its path ends in /live.
    path("live", bell, name="notifications-bell"),
    path("read-all", read_all, name="notifications-read-all"),
    path("<int:pk>/open", open_notification, name="notifications-open-notification"),
    path("preferences", preferences, name="notifications-preferences"),
    path("destinations/", list_destinations, name="notifications-list-destinations"),
    path("destinations/<int:pk>/", change_destination, name="notifications-change-destination"),
    path("destinations/<int:pk>/test", test_destination, name="notifications-test-destination"),
    path("deliveries/<int:pk>/retry", retry_delivery, name="notifications-retry-delivery"),
]
