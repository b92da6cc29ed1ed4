from unittest import mock

from django.urls import reverse

from tests.backoffice.outages import database_down


def test_healthz_reports_database_and_broker(client, db, settings):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"] in {"eager", "ok"}
    assert body["upstream"] == "closed"


def test_healthz_reports_an_open_circuit_to_the_upstream(client, db):
    from upstream.client import get_client

    breaker = get_client().breaker
    breaker.open()
    try:
        assert client.get(reverse("healthz")).json()["upstream"] == "open"
    finally:
        breaker.close()


def test_healthz_is_503_when_the_database_is_down(client, db):
    with database_down():
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["database"] == "unavailable"


def test_broker_reported_unavailable_when_it_does_not_answer(settings):
    from backoffice.celery import app
    from backoffice.health import broker_status

    settings.CELERY_TASK_ALWAYS_EAGER = False
    with mock.patch.object(app, "connection_for_write", side_effect=OSError("refused")):
        assert broker_status() == "unavailable"


def test_responses_carry_a_request_id(client, db):
    response = client.get(reverse("healthz"))
    assert len(response["X-Request-ID"]) == 32
    response = client.get(reverse("healthz"), HTTP_X_REQUEST_ID="abc-12345678")
    assert response["X-Request-ID"] == "abc-12345678"
    response = client.get(reverse("healthz"), HTTP_X_REQUEST_ID="<script>")
    assert response["X-Request-ID"] != "<script>"


def test_pages_carry_security_headers(client, db):
    response = client.get(reverse("account_login"))
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
