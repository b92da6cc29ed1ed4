from django.urls import include, path

# Each module under payments/views/ owns its routes.
urlpatterns = [
    path("", include("payments.views.accounts")),
    path("", include("payments.views.rules")),
    path("", include("payments.views.rates")),
    path("", include("payments.views.quotes")),
    path("", include("payments.views.open_quotes")),
    path("", include("payments.views.pickers")),
    path("", include("payments.views.transactions")),
    path("", include("payments.views.approvals")),
]
