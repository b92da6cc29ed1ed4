"""Monitoring's URLs in the role matrix (see tests/access.py): compliance and auditors read,
compliance decides alerts, admins manage rules and watch lists and ask for holds of a true
match's payment accounts."""

import uuid

from monitoring.models import Alert, Backtest, RuleKind, WatchList
from monitoring.services import rule_create
from tests.access import Access
from tests.factories import PaymentAccountFactory, StaffUserFactory

VIEWERS = frozenset({"compliance", "compliance_lead", "admin", "auditor"})
DECIDERS = frozenset({"compliance", "compliance_lead", "admin"})
MANAGERS = frozenset({"admin"})


def _alert():
    return {
        "pk": Alert.objects.create(kind="monitoring", dedupe_key=f"matrix:{uuid.uuid4()}", sentence="A test alert.").pk
    }


def _true_match_account():
    """A screening true match naming a payee's account: an admin asks for its hold."""
    account = PaymentAccountFactory()
    alert = Alert.objects.create(
        kind="screening",
        dedupe_key=f"matrix:{uuid.uuid4()}",
        sentence="A listed payee.",
        account_ids=[account.account_id],
        decision="true_match",
        status="decided",
    )
    return {"pk": alert.pk, "account_pk": account.pk}


def _rule():
    rule = rule_create(user=StaffUserFactory(), name="Large", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "1"})
    return {"pk": rule.pk}


def _backtest():
    rule = rule_create(user=StaffUserFactory(), name="Large", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "1"})
    return {"pk": Backtest.objects.create(version=rule.current_version).pk}


def _list():
    return {"pk": WatchList.objects.create(name=f"Matrix list {uuid.uuid4()}", format=WatchList.Format.OFAC_SDN).pk}


ACCESS = {
    "monitoring-list-alerts": Access(VIEWERS),
    "monitoring-export-alerts": Access(VIEWERS),
    "monitoring-view-alert": Access(VIEWERS, kwargs=_alert),
    "monitoring-decide-alert": Access(
        DECIDERS, method="post", kwargs=_alert, data=lambda: {"decision": "false_positive", "reason": "A test."}
    ),
    "monitoring-hold-alert-account": Access(
        MANAGERS, method="post", kwargs=_true_match_account, data=lambda: {"reason": "On the list."}
    ),
    "monitoring-list-rules": Access(VIEWERS),
    "monitoring-create-rule": Access(
        MANAGERS, method="post", form=True, data=lambda: {"kind": "large_transfer", "name": "Big", "min_usd": "1"}
    ),
    "monitoring-view-rule": Access(VIEWERS, kwargs=_rule),
    "monitoring-edit-rule": Access(
        MANAGERS, method="post", form=True, kwargs=_rule, data=lambda: {"name": "Bigger", "min_usd": "2"}
    ),
    "monitoring-submit-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-withdraw-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-approve-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-pause-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-resume-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-backtest-rule": Access(MANAGERS, method="post", kwargs=_rule),
    "monitoring-view-backtest": Access(VIEWERS, kwargs=_backtest),
    "monitoring-list-watchlists": Access(VIEWERS),
    "monitoring-import-watchlist": Access(MANAGERS, method="post", allowed=400),
    "monitoring-view-watchlist": Access(VIEWERS, kwargs=_list),
    "monitoring-reimport-watchlist": Access(MANAGERS, method="post", kwargs=_list, allowed=400),
}
