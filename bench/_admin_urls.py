"""The project's URLs plus Django admin, for bench/pages.py's comparison with the changelist."""

from django.contrib import admin
from django.urls import path

from backoffice.urls import handler403, handler404, handler500  # noqa: F401
from backoffice.urls import urlpatterns as project

urlpatterns = [path("admin/", admin.site.urls), *project]
