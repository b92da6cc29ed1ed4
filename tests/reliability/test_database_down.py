"""A database that does not answer (a restart) is a 503 with Retry-After, not a 500: browsers show
"back in a moment" and the provider's webhook deliveries are retried (docs/reliability.md)."""

import pytest
from django.test import Client


@pytest.mark.django_db
def test_a_refused_database_connection_is_a_503_to_retry(settings, make_staff):
    settings.ROOT_URLCONF = "tests.security.urls_failing"
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(make_staff("operations"))

    down = client.get("/database-down/")
    failed = client.get("/fail/")

    assert down.status_code == 503
    assert down["Retry-After"] == "5"
    page = down.content.decode()
    assert "Back in a moment" in page and "5432" not in page
    assert failed.status_code == 500 and "Something went wrong" in failed.content.decode()
