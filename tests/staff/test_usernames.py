"""Usernames are normalised (NFKC, case-folded) wherever they are made, a member logs in with
any case, and a username that mixes scripts or looks like a member's is refused."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from staff.usernames import normalized, skeleton, validate_new
from tests.conftest import authenticated_now

PASSWORD = "correct horse battery"
CYRILLIC_E = "\u0435"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [("Demo-Admin", "demo-admin"), ("\uff24\uff45\uff4d\uff4f-admin", "demo-admin"), ("Stra\u00dfe", "strasse")],
)
def test_usernames_are_normalised(typed, kept):
    assert normalized(typed) == kept


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("demo-admin", f"d{CYRILLIC_E}mo-admin"),
        ("demo-admin", "dem0-admin"),
        ("demo-admin", "demo-adrnin"),
        ("ops-l", "ops-1"),
    ],
)
def test_look_alikes_share_a_skeleton(one, other):
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(("one", "other"), [("ops-i", "ops-l"), ("anna", "anne"), ("bill", "bell")])
def test_different_names_keep_their_skeletons(one, other):
    assert skeleton(one) != skeleton(other)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "message"),
    [
        (f"d{CYRILLIC_E}mo-admin", "mixes Cyrillic and Latin"),
        ("dem0-admin", "looks like demo-admin's"),
        ("DEMO-ADMIN", "has this username already"),
        ("\uff44\uff45\uff4d\uff4f-admin", "has this username already"),
        ("demo admin", "Enter a valid username"),
    ],
)
def test_a_new_username_is_refused_when_it_passes_for_a_members(make_staff, typed, message):
    make_staff("admin", username="demo-admin")
    with pytest.raises(ValidationError, match=message):
        validate_new(typed)


@pytest.mark.django_db
def test_one_script_whatever_it_is_passes(make_staff):
    make_staff("admin", username="demo-admin")
    assert validate_new("M\u00fcller") == "m\u00fcller"
    assert validate_new("\u0430\u043d\u043d\u0430") == "\u0430\u043d\u043d\u0430"  # Cyrillic "anna", no member reads so
    # A renamed member does not clash with themselves.
    member = get_user_model().objects.get(username="demo-admin")
    assert validate_new("Demo-Admin", exclude_pk=member.pk) == "demo-admin"


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    authenticated_now(client, admin_user)
    return client


def test_the_staff_page_keeps_the_normal_form_and_refuses_look_alikes(admin_client, make_staff):
    make_staff("operations", username="demo-admin")
    added = admin_client.post(reverse("staff-create-staff"), {"username": "New-Ops", "roles": ["operations"]})
    assert added.status_code == 200
    assert get_user_model().objects.filter(username="new-ops").exists()
    refused = admin_client.post(reverse("staff-create-staff"), {"username": f"d{CYRILLIC_E}mo-admin", "roles": []})
    assert "this username mixes Cyrillic and Latin" in refused.content.decode()
    assert not get_user_model().objects.filter(username=f"d{CYRILLIC_E}mo-admin").exists()


def test_a_member_logs_in_in_any_case(make_staff):
    make_staff("operations", username="demo-ops")
    answer = Client().post(reverse("account_login"), {"login": "Demo-OPS", "password": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == reverse("home")


def test_changing_the_case_is_no_way_round_a_lockout(make_staff):
    make_staff("operations", username="demo-ops")
    guesser = Client()
    for typed in ("demo-ops", "Demo-Ops", "DEMO-OPS", "dEMO-ops", "Demo-ops"):
        guesser.post(reverse("account_login"), {"login": typed, "password": "wrong"})
    assert guesser.post(reverse("account_login"), {"login": "demo-ops", "password": PASSWORD}).status_code == 429


@pytest.mark.django_db
def test_the_migration_normalises_what_it_can_and_keeps_what_would_clash(django_user_model):
    migration = importlib.import_module("core.migrations.0007_normalised_usernames")
    for name in ("Ops-Lead", "bob", "Bob", "plain"):
        django_user_model.objects.create_user(username=name, password=PASSWORD)

    migration.normalise(apps, None)

    assert sorted(django_user_model.objects.values_list("username", flat=True)) == ["Bob", "bob", "ops-lead", "plain"]
    # Both of the kept pair still log in: the exact spelling, or the normal one.
    assert Client().post(reverse("account_login"), {"login": "Bob", "password": PASSWORD}).status_code == 302
    assert Client().post(reverse("account_login"), {"login": "OPS-LEAD", "password": PASSWORD}).status_code == 302
