"""The staff page: admins add members, change their roles, deactivate them, reset their
second factor and lift their lockouts; every change is audited, the last admin stays."""

import re

import pytest
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from core.access import roles_of
from tests.conftest import authenticated_now

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a long new password for staff"


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    authenticated_now(client, admin_user)
    return client


def _link(html: str) -> str:
    return re.search(r'value="(http://testserver/accounts/password/reset/key/[^"]+)"', html).group(1)


def _totp(user):
    return Authenticator.objects.create(user=user, type=Authenticator.Type.TOTP, data={"secret": "x"})


def test_the_list_shows_each_member_with_roles_status_factor_and_lockout(
    admin_client, make_staff, django_assert_num_queries
):
    gone = make_staff("auditor", username="gone-auditor")
    gone.is_active = False
    gone.save()
    _totp(make_staff("operations"))
    url = reverse("staff-list-staff")
    admin_client.get(url)  # the session's first touch and the upstream banner's cache
    with django_assert_num_queries(5):  # session, user, permissions, members, their groups
        html = admin_client.get(url).content.decode()
    assert "gone-auditor" in html and "deactivated" in html
    row = html.split("operations-user")[1].split("</tr>")[0]
    assert "operations" in row and "enrolled" in row and "not enrolled" not in row
    # More members, the same statements.
    for n in range(5):
        make_staff("compliance", username=f"more-{n}")
    with django_assert_num_queries(5):
        admin_client.get(url)


def test_add_a_member_shows_a_one_time_link_that_sets_the_password(admin_client, mailoutbox):
    response = admin_client.post(
        reverse("staff-create-staff"), {"username": "new-ops", "email": "new-ops@example.com", "roles": ["operations"]}
    )
    assert response.status_code == 200
    member = get_user_model().objects.get(username="new-ops")
    assert roles_of(member) == ["operations"]
    assert not member.has_usable_password()
    event = AuditEvent.objects.get(action="staff.add")
    assert event.target_id == str(member.pk) and event.details == {"roles": ["operations"]}
    assert mailoutbox == []  # no e-mail backend configured
    link = _link(response.content.decode())

    newcomer = Client()
    form = newcomer.get(link, follow=True)
    assert form.status_code == 200
    done = newcomer.post(form.redirect_chain[-1][0], {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert newcomer.get(reverse("home")).status_code == 200
    member.refresh_from_db()
    assert member.check_password(NEW_PASSWORD)
    # Once used, the link is dead.
    again = Client().get(link, follow=True)
    assert 'name="password1"' not in again.content.decode()


def test_the_link_is_emailed_where_an_email_backend_is_configured(admin_client, settings, mailoutbox):
    settings.STAFF_EMAIL_LINKS = True
    response = admin_client.post(
        reverse("staff-create-staff"), {"username": "mailed", "email": "mailed@example.com", "roles": []}
    )
    link = _link(response.content.decode())
    assert [message.to for message in mailoutbox] == [["mailed@example.com"]]
    assert link in mailoutbox[0].body
    assert "e-mailed to mailed@example.com" in response.content.decode()


def test_a_taken_username_is_refused_and_the_form_keeps_what_was_typed(admin_client, make_staff):
    make_staff("auditor", username="taken")
    response = admin_client.post(
        reverse("staff-create-staff"), {"username": "Taken", "email": "t@example.com", "roles": ["admin"]}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "A staff member has this username already." in html
    assert 'value="Taken"' in html and 'value="t@example.com"' in html
    assert re.search(r'value="admin"[^>]*checked', html)
    assert not AuditEvent.objects.filter(action="staff.add").exists()


def test_change_roles_is_audited(admin_client, make_staff):
    member = make_staff("auditor", username="someone")
    url = reverse("staff-change-staff-roles", kwargs={"pk": member.pk})
    assert 'value="auditor"' in admin_client.get(url).content.decode()
    response = admin_client.post(url, {"roles": ["compliance", "operations"]})
    assert response.status_code == 302
    assert roles_of(member) == ["compliance", "operations"]
    event = AuditEvent.objects.get(action="staff.change_roles")
    assert event.details == {"before": ["auditor"], "after": ["compliance", "operations"]}


def test_an_admin_makes_a_reviewer_a_compliance_lead(admin_client, make_staff, django_user_model):
    member = make_staff("compliance", username="future-lead")
    url = reverse("staff-change-staff-roles", kwargs={"pk": member.pk})
    form = admin_client.get(url).content.decode()
    assert 'value="compliance_lead"' in form and "Compliance lead" in form
    assert not member.has_perm("core.work_escalations")

    assert admin_client.post(url, {"roles": ["compliance_lead"]}).status_code == 302

    member = django_user_model.objects.get(pk=member.pk)  # no permission cache carried over
    assert member.has_perm("core.work_escalations") and member.has_perm("core.change_customers")
    event = AuditEvent.objects.get(action="staff.change_roles")
    assert event.details == {"before": ["compliance"], "after": ["compliance_lead"]}
    # The staff pages name the role in words, its code on hover.
    page = admin_client.get(reverse("staff-view-staff", kwargs={"pk": member.pk})).content.decode()
    assert '<span title="compliance_lead">Compliance lead</span>' in page


def test_the_last_admin_cannot_lose_the_role_nor_be_deactivated(admin_client, admin_user):
    roles = admin_client.post(reverse("staff-change-staff-roles", kwargs={"pk": admin_user.pk}), {"roles": ["auditor"]})
    assert roles.status_code == 409
    assert "This is the last active admin" in roles.content.decode()
    assert roles_of(admin_user) == ["admin"]
    deactivate = admin_client.post(reverse("staff-deactivate-staff", kwargs={"pk": admin_user.pk}))
    assert deactivate.status_code == 409
    assert "This is the last active admin" in deactivate.content.decode()
    admin_user.refresh_from_db()
    assert admin_user.is_active
    assert not AuditEvent.objects.filter(action__in=["staff.change_roles", "staff.deactivate"]).exists()


def test_an_admin_demoted_while_their_request_was_on_its_way_changes_nothing(admin_user, make_staff):
    from staff.services import NoLongerAllowed, change_roles

    bea = make_staff("admin", username="bea")  # her request has passed its role check
    ops = make_staff("operations", username="ops")
    assert bea.has_perm("core.manage_staff")
    assert change_roles(actor=admin_user, member=bea, roles=["auditor"]) is True
    with pytest.raises(NoLongerAllowed):
        change_roles(actor=bea, member=ops, roles=["admin"])
    assert roles_of(ops) == ["operations"]
    # The same change sent twice is made once, with one event.
    assert change_roles(actor=admin_user, member=bea, roles=["auditor"]) is False
    assert AuditEvent.objects.filter(action="staff.change_roles").count() == 1


def test_with_a_second_admin_one_may_step_down(admin_client, admin_user, make_staff):
    make_staff("admin", username="other-admin")
    response = admin_client.post(reverse("staff-change-staff-roles", kwargs={"pk": admin_user.pk}), {"roles": []})
    assert response.status_code == 302
    assert roles_of(admin_user) == []


def test_deactivate_asks_first_and_ends_the_members_sessions_at_once(admin_client, make_staff):
    member = make_staff("operations", username="leaving")
    theirs = Client()
    theirs.force_login(member)
    assert theirs.get(reverse("home")).status_code == 200
    url = reverse("staff-deactivate-staff", kwargs={"pk": member.pk})
    confirm = admin_client.get(url)
    assert "every session of theirs ends now" in confirm.content.decode()
    assert admin_client.post(url).status_code == 302
    member.refresh_from_db()
    assert not member.is_active
    assert theirs.get(reverse("home")).status_code == 302
    assert AuditEvent.objects.get(action="staff.deactivate").details == {"sessions": 1}
    # And back.
    assert admin_client.post(reverse("staff-reactivate-staff", kwargs={"pk": member.pk})).status_code == 302
    member.refresh_from_db()
    assert member.is_active
    assert AuditEvent.objects.filter(action="staff.reactivate", target_id=str(member.pk)).count() == 1


def test_reset_second_factor_removes_every_authenticator(admin_client, make_staff):
    member = make_staff("compliance")
    _totp(member)
    Authenticator.objects.create(user=member, type=Authenticator.Type.RECOVERY_CODES, data={})
    view = admin_client.get(reverse("staff-view-staff", kwargs={"pk": member.pk})).content.decode()
    assert "Reset the second factor" in view
    assert admin_client.post(reverse("staff-reset-staff-mfa", kwargs={"pk": member.pk})).status_code == 302
    assert not Authenticator.objects.filter(user=member).exists()
    assert AuditEvent.objects.get(action="staff.reset_mfa").details == {"removed": 2, "sessions": 0}


def test_lift_a_lockout(admin_client, make_staff):
    member = make_staff("operations")
    theirs = Client()
    for _ in range(5):
        theirs.post(reverse("account_login"), {"login": member.username, "password": "wrong"})
    assert theirs.post(reverse("account_login"), {"login": member.username, "password": PASSWORD}).status_code == 429
    view = admin_client.get(reverse("staff-view-staff", kwargs={"pk": member.pk})).content.decode()
    assert "wrong passwords: locked until" in view
    assert admin_client.post(reverse("staff-unlock-staff", kwargs={"pk": member.pk})).status_code == 302
    assert AuditEvent.objects.get(action="staff.lift_lockout").details == {"lifted": 1, "secrets": []}
    assert theirs.post(reverse("account_login"), {"login": member.username, "password": PASSWORD}).status_code == 302


def test_a_new_link_for_a_member_who_lost_theirs(admin_client, make_staff):
    member = make_staff("auditor")
    url = reverse("staff-create-staff-password-link", kwargs={"pk": member.pk})
    assert "Their current password stops working" in admin_client.get(url).content.decode()
    response = admin_client.post(url)
    assert _link(response.content.decode())
    assert AuditEvent.objects.filter(action="staff.password_link", target_id=str(member.pk)).count() == 1


def test_admins_see_the_staff_page_in_the_navigation(client_as):
    assert ">Staff</a>" in client_as("admin").get(reverse("home")).content.decode()


def test_others_do_not(client_as):
    assert ">Staff</a>" not in client_as("auditor").get(reverse("home")).content.decode()


def test_create_staff_command_adds_the_first_admin_with_a_link(db, capsys):
    call_command("create_staff", "first-admin", "--role", "admin", "--site", "https://bo.example.com")
    out = capsys.readouterr().out
    member = get_user_model().objects.get(username="first-admin")
    assert roles_of(member) == ["admin"]
    assert not member.has_usable_password()
    assert re.search(r"https://bo\.example\.com/accounts/password/reset/key/\S+", out)
    assert AuditEvent.objects.get(action="staff.add").actor is None


def test_create_staff_command_refuses_a_taken_name(db, make_staff):
    from django.core.management.base import CommandError

    make_staff("auditor", username="taken")
    with pytest.raises(CommandError, match="has this username already"):
        call_command("create_staff", "Taken", "--role", "admin")
    with pytest.raises(CommandError, match="mixes Cyrillic and Latin"):
        call_command("create_staff", "t\u0430ken", "--role", "admin")  # a Cyrillic "a"
