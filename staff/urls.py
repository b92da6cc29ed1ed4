"""The staff pages of admins, and each member's own time zone."""

from django.urls import path

from . import views

urlpatterns = [
    path("staff/", views.list_staff, name="core-list-staff"),
    path("staff/new", views.create_staff, name="core-create-staff"),
    path("staff/<int:pk>/", views.view_staff, name="core-view-staff"),
    path("staff/<int:pk>/roles", views.change_staff_roles, name="core-change-staff-roles"),
    path("staff/<int:pk>/deactivate", views.confirm_view("deactivate"), name="core-deactivate-staff"),
    path("staff/<int:pk>/reactivate", views.confirm_view("reactivate"), name="core-reactivate-staff"),
    path("staff/<int:pk>/reset-mfa", views.confirm_view("reset-mfa"), name="core-reset-staff-mfa"),
    path("staff/<int:pk>/unlock", views.confirm_view("unlock"), name="core-unlock-staff"),
    path("staff/<int:pk>/password-link", views.create_password_link, name="core-create-staff-password-link"),
    path("settings/time-zone", views.set_time_zone, name="core-set-time-zone"),
]
