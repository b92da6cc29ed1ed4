"""The demo seeds live rules approved by a second person, a watch list, and patterns made
through the sandbox that trip them: `make run` opens on real alerts."""

import pytest
from django.core.management import call_command

from monitoring.models import Alert, MonitoringRule, RuleStatus, WatchList
from sandbox.demo.keys import DEMO_API_KEY

pytestmark = pytest.mark.slow


def test_the_demo_opens_on_a_structuring_series_a_sanctioned_wallet_and_a_sanctioned_payee(
    db, settings, in_process, django_capture_on_commit_callbacks
):
    settings.DEBUG = True
    settings.PAYMENTS_API_KEY = DEMO_API_KEY
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    settings.PAYMENTS_API_IN_PROCESS = True
    with open("/dev/null", "w") as quiet, django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", server="http://testserver", stdout=quiet)
    rules = list(MonitoringRule.objects.exclude(status=RuleStatus.WAITING).select_related("live_version__approved_by"))
    assert len(rules) == 4 and all(r.status == RuleStatus.LIVE for r in rules)
    # And one waits in the four-eyes list, for an admin to approve.
    waiting = MonitoringRule.objects.get(status=RuleStatus.WAITING)
    assert waiting.current_version.approval.status == "pending"
    assert waiting.current_version.approval.maker.username == "demo-rule-author"
    assert all(r.live_version.approved_by.username == "demo-admin" for r in rules)
    assert WatchList.objects.get().entry_count == 3
    sentences = list(Alert.objects.values_list("sentence", flat=True))
    assert any(s.startswith("3 transfers of 9,900\u20139,990 USD") for s in sentences), sentences
    assert any("0x5a9c0f1d0000000000000000000000000000dead" in s for s in sentences), sentences
    assert any("Northwind Maritime Holdings Limited" in s for s in sentences), sentences
    with open("/dev/null", "w") as quiet:
        call_command("seed_monitoring", stdout=quiet)
    assert MonitoringRule.objects.count() == 5
