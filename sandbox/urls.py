"""The sandbox's routes: {base_url} is the mount point (/sandbox/ by default)."""

from django.urls import include, path, re_path

from .views import (
    accounts,
    customers,
    deposits,
    hosted_forms,
    openapi,
    quotes,
    rates,
    rules,
    test_helpers,
    transactions,
    webhooks,
)
from .views.index import index, unknown_route

urlpatterns = [
    path("", index, name="sandbox-index"),
    # Each resource module under sandbox/views/ owns its routes.
    path("", include(customers)),
    path("", include(accounts)),
    path("", include(rates)),
    path("", include(quotes)),
    path("", include(transactions)),
    path("", include(rules)),
    path("", include(webhooks)),
    path("", include(openapi)),
    path("", include(hosted_forms)),
    path("", include(deposits)),
    path("test-helpers/", include(test_helpers)),
    # [\s\S]: a path with a newline in it is an unknown route too, not Django's HTML 404.
    re_path(r"^[\s\S]*$", unknown_route, name="sandbox-unknown"),
]
