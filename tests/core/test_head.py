"""HEAD is answered wherever GET is, with GET's status and headers and no body: every staff
page of the role matrix, the public pages and the probes. Django's test client drops a HEAD
answer's body itself, so the body is checked at the WSGI application too (through gunicorn:
tests/integration/test_probes_gunicorn.py)."""

import pytest
from django.core.wsgi import get_wsgi_application
from django.test import RequestFactory
from django.urls import reverse

from tests.matrix import MATRIX


@pytest.fixture
def static_files(settings):
    """WhiteNoise serves the static files from the apps' folders (as with DEBUG on, runserver)."""
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True


READABLE = sorted(name for name, access in MATRIX.items() if access.method == "get" or access.form)


@pytest.mark.parametrize("name", READABLE)
def test_every_staff_page_answers_head_as_get(client_as, name):
    access = MATRIX[name]
    client = client_as(sorted(role for role in access.roles if role)[0])
    url = reverse(name, kwargs=access.kwargs() if access.kwargs else None)

    got = client.get(url, **access.headers)
    head = client.head(url, **access.headers)

    assert head.status_code == got.status_code != 405, (name, head.status_code)
    assert head["Content-Type"] == got["Content-Type"]


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/accounts/login/", "/static/css/app.css"])
def test_public_pages_and_probes_answer_head(client, db, static_files, path):
    got = client.get(path)
    head = client.head(path)
    assert head.status_code == got.status_code != 405
    assert (b"".join(head.streaming_content) if head.streaming else head.content) == b""


def test_a_post_only_url_still_refuses_head(client, db):
    assert client.head(reverse("mirror-receive-webhook")).status_code == 405


def _call(environ) -> tuple[str, dict, bytes]:
    started = {}

    def start_response(status, headers, exc_info=None):
        started.update(status=status, headers=dict(headers))

    body = get_wsgi_application()(environ, start_response)
    try:
        return started["status"], started["headers"], b"".join(body)
    finally:
        body.close()


@pytest.mark.parametrize("path", ["/healthz", "/accounts/login/", "/static/css/app.css"])
def test_the_wsgi_application_sends_no_body_for_head(in_process, db, static_files, path):
    factory = RequestFactory()
    status, headers, body = _call(factory.head(path).environ)
    got_status, got_headers, got_body = _call(factory.get(path).environ)

    assert status == got_status and status.startswith("200")
    assert body == b"" and got_body
    assert headers.get("Content-Length") == got_headers.get("Content-Length")
