from django.urls import path

from . import views

urlpatterns = [
    path("", views.list_audit_events, name="audit-list-events"),
    path("export.csv", views.export_audit_events, name="audit-export-events"),
]
