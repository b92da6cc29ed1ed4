"""Notifications for the demo's staff members (seed_demo): a few of each kind their role
receives, some already read, so that the bell, the list and the digest show something on a
first visit. Each has a demo dedupe key: seeding again adds none."""

import datetime as dt

from django.urls import reverse
from django.utils import timezone

from core.access import Role

from . import kinds, services
from .models import Notification

# Per role: (kind, sentence, URL name and query, hours ago, read).
DEMO = {
    Role.COMPLIANCE: [
        (kinds.CASE_ASSIGNED, "demo-compliance-lead assigned you the case of Ada Lovelace.", "customers-list-customers", "?assignee=me", 1, False),
        (kinds.CASE_PAST_SLA, "The case of Northwind Maritime Holdings Limited is past its SLA of 24 hours.", "customers-list-customers", "?sla=breached", 3, False),
        (kinds.MONITORING_ALERT, "3 transfers of 9,900\u20139,990 USD within a day: a structuring pattern.", "customers-list-customers", "", 20, True),
    ],
    Role.COMPLIANCE_LEAD: [
        (kinds.CASE_ESCALATED, "demo-compliance escalated the case of Helix Analytics GmbH: the director's ID does not match.", "customers-list-escalations", "", 2, False),
        (kinds.CASE_PAST_SLA, "The case of Grace Hopper is past its SLA of 24 hours.", "customers-list-customers", "?sla=breached", 6, False),
        (kinds.CASE_ASSIGNED, "demo-admin assigned you the case of Nikola Tesla.", "customers-list-customers", "?assignee=me", 30, True),
    ],
    Role.OPERATIONS: [
        (kinds.TRANSFER_STUCK, "A transfer of 12,500.00 USD has been processing for 5 hours.", "payments-list-stuck-transactions", "?rule=processing-long", 1, False),
        (kinds.APPROVAL_WAITING, "demo-admin asks for approval: execute 25,000.00 USD to USDC on Base.", "payments-list-approval-requests", "", 4, False),
        (kinds.TRANSFER_STUCK, "A transfer of 980.00 EUR awaited its funds past its expiry.", "payments-list-stuck-transactions", "?rule=awaiting-expired", 26, True),
    ],
    Role.ADMIN: [
        (kinds.SYNC_STALE, "The transactions sync has not succeeded for 2 hours.", "mirror-list-inbox-events", "", 1, False),
        (kinds.APPROVAL_WAITING, "demo-operations asks for approval: execute 18,000.00 USD to USDC on Base.", "payments-list-approval-requests", "", 3, False),
        (kinds.INBOX_BACKLOG, "214 webhook events wait in the inbox.", "mirror-list-inbox-events", "?state=received", 10, True),
        (kinds.BREAKER_OPEN, "Calls to the Payments API were paused after failures; they resumed a minute later.", "mirror-list-inbox-events", "", 28, True),
    ],
    Role.AUDITOR: [
        (kinds.APPROVAL_WAITING, "demo-operations asks for approval: execute 40,000.00 USD to USDC on Base.", "payments-list-approval-requests", "", 2, False),
        (kinds.APPROVAL_WAITING, "demo-admin asks for approval: a new payout account for Helix Analytics GmbH.", "payments-list-approval-requests", "", 50, True),
    ],
}  # fmt: skip


def seed_demo_notifications(members: dict[str, object]) -> int:
    """The demo notifications of `members` ({role: member}); how many were made."""
    now = timezone.now()
    made = 0
    for role, member in members.items():
        for index, (kind, sentence, url_name, query, hours_ago, read) in enumerate(DEMO.get(role, [])):
            at = now - dt.timedelta(hours=hours_ago)
            notification, created = Notification.objects.get_or_create(
                recipient=member,
                dedupe_key=f"demo:{role}:{index}",
                defaults={
                    "kind": kind.code,
                    "sentence": sentence,
                    "link": reverse(url_name) + query,
                    "read_at": at + dt.timedelta(minutes=20) if read else None,
                },
            )
            if created:
                # Made now, told as of then (created_at is set on insert).
                Notification.objects.filter(pk=notification.pk).update(created_at=at)
                made += 1
        services.remembered_unread_ids(member.pk)  # the bell's count, for the first page
    return made
