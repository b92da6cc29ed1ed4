"""The project's URLs plus one view that fails, for the 500 page (test_secrets.py)."""

from django.urls import path

from backoffice.urls import handler403, handler404, handler500  # noqa: F401 - the project's error views
from backoffice.urls import urlpatterns as project_urls
from core.upstream import get_client


def fail(request):
    client = get_client()  # a local the technical 500 page would show: its repr holds no key
    raise RuntimeError(f"this view fails on purpose ({client!r})")


urlpatterns = [path("fail/", fail), *project_urls]
