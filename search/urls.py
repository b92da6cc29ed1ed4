"""The search box's address, under /search/."""

from django.urls import path

from .views import search_records

urlpatterns = [path("", search_records, name="search")]
