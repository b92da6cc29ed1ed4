"""The project's URLs plus views that fail, for the 500 and 503 pages."""

from django.db import OperationalError
from django.urls import path

from backoffice.urls import handler403, handler404, handler500  # noqa: F401 - the project's error views
from backoffice.urls import urlpatterns as project_urls
from upstream.client import get_client


def fail(request):
    client = get_client()  # a local the technical 500 page would show: its repr holds no key
    raise RuntimeError(f"this view fails on purpose ({client!r})")


def database_down(request):
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')


urlpatterns = [path("fail/", fail), path("database-down/", database_down), *project_urls]
