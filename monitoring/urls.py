"""Monitoring's addresses, under /monitoring/."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.list_alerts, name="monitoring-list-alerts"),
    path("alerts/export.csv", views.export_alerts, name="monitoring-export-alerts"),
    path("alerts/<int:pk>/", views.view_alert, name="monitoring-view-alert"),
    path("alerts/<int:pk>/decide", views.decide_alert, name="monitoring-decide-alert"),
    path(
        "alerts/<int:pk>/accounts/<int:account_pk>/hold", views.hold_alert_account, name="monitoring-hold-alert-account"
    ),
    path("rules/", views.list_rules, name="monitoring-list-rules"),
    path("rules/new", views.create_rule, name="monitoring-create-rule"),
    path("rules/<int:pk>/", views.view_rule, name="monitoring-view-rule"),
    path("rules/<int:pk>/edit", views.edit_rule, name="monitoring-edit-rule"),
    path("rules/<int:pk>/submit", views.submit_rule, name="monitoring-submit-rule"),
    path("rules/<int:pk>/withdraw", views.withdraw_rule, name="monitoring-withdraw-rule"),
    path("rules/<int:pk>/approve", views.approve_rule, name="monitoring-approve-rule"),
    path("rules/<int:pk>/pause", views.pause_rule, name="monitoring-pause-rule"),
    path("rules/<int:pk>/resume", views.resume_rule, name="monitoring-resume-rule"),
    path("rules/<int:pk>/backtest", views.backtest_rule, name="monitoring-backtest-rule"),
    path("backtests/<int:pk>/", views.view_backtest, name="monitoring-view-backtest"),
    path("lists/", views.list_watchlists, name="monitoring-list-watchlists"),
    path("lists/import", views.import_watchlist, name="monitoring-import-watchlist"),
    path("lists/<int:pk>/", views.view_watchlist, name="monitoring-view-watchlist"),
    path("lists/<int:pk>/import", views.reimport_watchlist, name="monitoring-reimport-watchlist"),
]
