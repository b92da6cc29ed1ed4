from django.urls import path

from . import views

urlpatterns = [
    path("", views.list_audit_events, name="core-list-audit-events"),
    path("export.csv", views.export_audit_events, name="core-export-audit-events"),
]
