"""seed_demo gives each demo staff member a few notifications of the kinds their role receives,
some of them read, once however often it runs."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from core.access import Role
from notifications.kinds import KINDS
from notifications.models import Notification

pytestmark = pytest.mark.django_db


def test_each_demo_member_has_notifications_of_several_kinds_some_read(settings, client):
    settings.DEBUG = True
    settings.SANDBOX_MOUNTED = False
    with open("/dev/null", "w") as quiet:
        call_command("seed_demo", stdout=quiet)
        call_command("seed_demo", stdout=quiet)  # again: nothing more
    for role in Role:
        told = list(Notification.objects.filter(recipient__username=f"demo-{role.value}"))
        assert len(told) >= 2, role
        assert all(n.kind in KINDS and n.link.startswith("/") for n in told)
        assert any(n.read_at for n in told) and any(n.read_at is None for n in told), role
    assert Notification.objects.filter(recipient__username="demo-admin").values("kind").distinct().count() >= 3
    assert Notification.objects.count() == sum(
        Notification.objects.filter(recipient__username=f"demo-{r.value}").count() for r in Role
    )

    client.force_login(Notification.objects.filter(recipient__username="demo-operations").first().recipient)
    page = client.get(reverse("notifications-list-notifications")).content.decode()
    assert "A transfer of 12,500.00 USD has been processing for 5 hours." in page
    unread = Notification.objects.filter(recipient__username="demo-operations", read_at__isnull=True).count()
    assert f'id="bell-count" class="bell-count">{unread}<' in page
