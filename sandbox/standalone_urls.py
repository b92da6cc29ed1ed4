"""The sandbox on its own, without the back-office:

    ROOT_URLCONF=sandbox.standalone_urls python manage.py runserver 127.0.0.1:8001

The same routes as the embedded mount, at /sandbox/ (so {base_url} is
http://127.0.0.1:8001/sandbox), plus the static files. Nothing of the back-office is routed:
no staff login, no admin, no webhook receiver. See docs/sandbox.md.
"""

from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path
from django.views.generic import RedirectView

from .errors import error_response

urlpatterns = [
    # The bare address leads to the sandbox's index (service name, version, openapi.json).
    path("", RedirectView.as_view(url="/sandbox/", permanent=False)),
    path("sandbox/", include("sandbox.urls")),
]
# DEBUG only (an empty list otherwise); WhiteNoise serves STATIC_ROOT in production, and
# `whitenoise.runserver_nostatic` leaves runserver's own static handling off.
urlpatterns += staticfiles_urlpatterns()


# The project's 403/404/500 templates are the back-office's (they link to its pages, which are
# not routed here): answer in the spec's error body instead, as the sandbox does under /sandbox/.


def bad_request(request, exception=None):
    return error_response(400, "BAD_REQUEST", "Bad request")


def permission_denied(request, exception=None):
    return error_response(403, "FORBIDDEN", "Forbidden")


def page_not_found(request, exception=None):
    return error_response(404, "NOT_FOUND", f"No operation at {request.method} {request.path}")


def server_error(request):
    return error_response(500, "INTERNAL_SERVER_ERROR", "Internal server error")


handler400 = bad_request
handler403 = permission_denied
handler404 = page_not_found
handler500 = server_error
