"""The sandbox's routes: {base_url} is the mount point (/sandbox/ by default)."""

from django.urls import include, path, re_path

from .views import index, unknown_route

urlpatterns = [
    path("", index, name="sandbox-index"),
    # Each resource module under sandbox/views/ owns its routes.
    path("", include("sandbox.views.customers")),
    path("", include("sandbox.views.accounts")),
    path("", include("sandbox.views.rates")),
    path("", include("sandbox.views.quotes")),
    path("", include("sandbox.views.transactions")),
    path("", include("sandbox.views.rules")),
    path("", include("sandbox.views.webhooks")),
    path("", include("sandbox.views.openapi")),
    path("", include("sandbox.views.hosted_forms")),
    path("", include("sandbox.views.deposits")),
    path("test-helpers/", include("sandbox.views.test_helpers")),
    # [\s\S]: a path with a newline in it is an unknown route too, not Django's HTML 404.
    re_path(r"^[\s\S]*$", unknown_route, name="sandbox-unknown"),
]
