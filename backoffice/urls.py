from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views, webhooks
from .forms import LoginForm

urlpatterns = [
    path("", views.home, name="home"),
    path(
        "login/",
        auth_views.LoginView.as_view(authentication_form=LoginForm, redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("audit/", views.list_audit_events, name="backoffice-list-audit-events"),
    path("customers/", include("customers.urls")),
    path("payments/", include("payments.urls")),
    path("healthz", views.healthz, name="healthz"),
    path("webhooks/payments", webhooks.receive_webhook, name="backoffice-receive-webhook"),
    path("inbox/", views.list_webhook_events, name="backoffice-list-webhook-events"),
    path("inbox/<int:pk>/replay", views.replay_webhook_event, name="backoffice-replay-webhook-event"),
]

if settings.SANDBOX_MOUNTED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

handler403 = "backoffice.views.permission_denied"
handler404 = "backoffice.views.page_not_found"
handler500 = "backoffice.views.server_error"
