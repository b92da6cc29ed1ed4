from django.conf import settings
from django.urls import include, path

from core.views import moved

from . import metrics, views

urlpatterns = [
    path("", views.home, name="home"),
    # Login, second factor, SSO and re-authentication (django-allauth); the old addresses move.
    path("accounts/", include("allauth.urls")),
    moved("login/", "account_login"),
    moved("logout/", "account_logout"),
    path("", include("staff.urls")),
    path("audit/", include("audit.urls")),
    path("customers/", include("customers.urls")),
    path("payments/", include("payments.urls")),
    path("monitoring/", include("monitoring.urls")),
    path("search/", include("search.urls")),
    path("notifications/", include("notifications.urls")),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("", include("mirror.urls")),
]

if settings.SANDBOX_MOUNTED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
