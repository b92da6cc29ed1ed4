"""The staff pages of admins, and each member's own time zone."""

from django.urls import path

from . import views

urlpatterns = [
    path("staff/", views.list_staff, name="staff-list-staff"),
    path("staff/new", views.create_staff, name="staff-create-staff"),
    path("staff/<int:pk>/", views.view_staff, name="staff-view-staff"),
    path("staff/<int:pk>/roles", views.change_staff_roles, name="staff-change-staff-roles"),
    path("staff/<int:pk>/deactivate", views.confirm_view("deactivate"), name="staff-deactivate-staff"),
    path("staff/<int:pk>/reactivate", views.confirm_view("reactivate"), name="staff-reactivate-staff"),
    path("staff/<int:pk>/reset-mfa", views.confirm_view("reset-mfa"), name="staff-reset-staff-mfa"),
    path("staff/<int:pk>/unlock", views.confirm_view("unlock"), name="staff-unlock-staff"),
    path("staff/<int:pk>/password-link", views.create_password_link, name="staff-create-staff-password-link"),
    path("settings/time-zone", views.set_time_zone, name="staff-set-time-zone"),
]
