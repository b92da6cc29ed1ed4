"""Monitoring's addresses, under /monitoring/."""

from django.urls import path

from .views import alerts, lists, rules

urlpatterns = [
    path("", alerts.list_alerts, name="monitoring-list-alerts"),
    path("alerts/export.csv", alerts.export_alerts, name="monitoring-export-alerts"),
    path("alerts/<int:pk>/", alerts.view_alert, name="monitoring-view-alert"),
    path("alerts/<int:pk>/decide", alerts.decide_alert, name="monitoring-decide-alert"),
    path(
        "alerts/<int:pk>/accounts/<int:account_pk>/hold",
        alerts.hold_alert_account,
        name="monitoring-hold-alert-account",
    ),
    path("rules/", rules.list_rules, name="monitoring-list-rules"),
    path("rules/new", rules.create_rule, name="monitoring-create-rule"),
    path("rules/<int:pk>/", rules.view_rule, name="monitoring-view-rule"),
    path("rules/<int:pk>/edit", rules.edit_rule, name="monitoring-edit-rule"),
    path("rules/<int:pk>/submit", rules.submit_rule, name="monitoring-submit-rule"),
    path("rules/<int:pk>/withdraw", rules.withdraw_rule, name="monitoring-withdraw-rule"),
    path("rules/<int:pk>/approve", rules.approve_rule, name="monitoring-approve-rule"),
    path("rules/<int:pk>/pause", rules.pause_rule, name="monitoring-pause-rule"),
    path("rules/<int:pk>/resume", rules.resume_rule, name="monitoring-resume-rule"),
    path("rules/<int:pk>/backtest", rules.backtest_rule, name="monitoring-backtest-rule"),
    path("backtests/<int:pk>/", rules.view_backtest, name="monitoring-view-backtest"),
    path("lists/", lists.list_watchlists, name="monitoring-list-watchlists"),
    path("lists/import", lists.import_watchlist, name="monitoring-import-watchlist"),
    path("lists/<int:pk>/", lists.view_watchlist, name="monitoring-view-watchlist"),
    path("lists/<int:pk>/import", lists.reimport_watchlist, name="monitoring-reimport-watchlist"),
]
