"""python manage.py sandbox_keys create: one key on stdout, nothing else, and it works."""

import io
import re
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from sandbox.auth import find_key
from sandbox.models import ApiKey

from .conftest import SandboxClient, assert_error, customer_body


def create(*args) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("sandbox_keys", "create", *args, stdout=out, stderr=err)
    assert err.getvalue() == ""
    return out.getvalue()


@pytest.mark.django_db
def test_create_prints_one_key_and_nothing_else():
    output = create()

    assert output.endswith("\n")
    assert output.count("\n") == 1
    key = find_key(output.strip())
    assert key is not None
    assert (key.tier, key.read_only) == ("standard", False)
    assert ApiKey.objects.count() == 1


@pytest.mark.django_db
def test_create_with_options():
    organization = uuid.uuid4()

    key = find_key(create("--organization", str(organization), "--tier", "builder", "--read-only").strip())

    assert (key.organization_id, key.tier, key.read_only) == (organization, "builder", True)


@pytest.mark.django_db
def test_each_key_is_new_with_its_own_organization_by_default():
    first, second = find_key(create().strip()), find_key(create().strip())

    assert first.pk != second.pk
    assert first.organization_id != second.organization_id


@pytest.mark.django_db
def test_the_printed_key_authenticates():
    client = SandboxClient(create().strip())

    assert client.post("/customers", customer_body()).status_code == 201


@pytest.mark.django_db
def test_a_read_only_key_reads_but_cannot_write():
    client = SandboxClient(create("--read-only").strip())

    assert client.get("/customers").status_code == 200
    assert_error(client.post("/customers", customer_body()), 403, "FORBIDDEN")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("create", "--organization", "acme"), "argument --organization: must be a UUID, not 'acme'"),
        (("create", "--tier", "gold"), "argument --tier: invalid choice: 'gold'"),
        ((), "the following arguments are required: action"),
    ],
)
def test_bad_arguments_are_refused(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("sandbox_keys", *args)

    assert ApiKey.objects.count() == 0
