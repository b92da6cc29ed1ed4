"""JSON log lines with LOG_FORMAT=json, the request id from a view into a Celery task and its
upstream calls, and refusals (403) as one line."""

import io
import json
import logging
import logging.config

import pytest
from celery import signals
from django.urls import reverse

from backoffice.celery import app
from backoffice.observability import logging_config
from backoffice.tasks import heartbeat
from core.middleware import current_request_id, set_request_id


@pytest.fixture
def json_lines():
    """The root logger writing as LOG_FORMAT=json configures it; yields a function that
    returns the lines written so far, parsed."""
    config = logging_config(fmt="json", level="INFO")
    stream = io.StringIO()
    config["handlers"]["console"]["stream"] = stream
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    logging.config.dictConfig(config)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        from django.conf import settings

        logging.config.dictConfig(settings.LOGGING)
        root.handlers[:], root.level = saved


def test_a_line_is_one_json_object_with_level_logger_time_and_request_id(json_lines):
    token = set_request_id("req-0123456789")
    try:
        logging.getLogger("mirror.inbox").warning("Webhook event %s failed", "evt_1")
    finally:
        token.var.reset(token)
    (line,) = json_lines()
    assert line["event"] == "Webhook event evt_1 failed"
    assert line["level"] == "warning"
    assert line["logger"] == "mirror.inbox"
    assert line["request_id"] == "req-0123456789"
    assert line["time"].endswith("Z")


def test_an_exception_stays_inside_its_json_line(json_lines):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("x").exception("It failed")
    (line,) = json_lines()
    assert "ValueError: boom" in line["exception"]


def test_the_request_id_of_a_view_reaches_the_task_it_queues(settings):
    """Publish as a view does with a broker (the in-memory one: no worker needed), then run
    the task as a worker does with that message's headers."""
    published = []

    def record(headers=None, **kwargs):
        published.append(dict(headers))

    signals.after_task_publish.connect(record, weak=False)
    app.conf.task_always_eager = False  # the autouse _eager_celery fixture restores it
    token = set_request_id("view-req-12345678")
    try:
        with app.connection_for_write("memory://") as conn:
            heartbeat.apply_async(connection=conn)
    finally:
        token.var.reset(token)
        signals.after_task_publish.disconnect(record)
    assert published[-1]["request_id"] == "view-req-12345678"

    probe_ids = []

    @app.task(name="tests.request_id_probe")
    def probe():
        probe_ids.append(current_request_id())

    probe.apply(headers=published[-1])
    assert probe_ids == ["view-req-12345678"]
    assert current_request_id() == "-"  # restored after the task
    # A task no request queued (beat's) logs under its own id.
    probe.apply(task_id="beat-task-1234567")
    assert probe_ids[-1] == "beat-task-1234567"


def test_an_eager_task_keeps_the_request_id_of_the_request(client, db):
    """Without a broker a view's task runs in the request: same id in its lines."""
    ids = []

    @app.task(name="tests.eager_probe")
    def probe():
        ids.append(current_request_id())

    token = set_request_id("eager-req-1234567")
    try:
        probe.delay()
    finally:
        token.var.reset(token)
    assert ids == ["eager-req-1234567"]


def test_a_refusal_is_one_line_without_a_traceback(client, make_staff, json_lines):
    client.force_login(make_staff("auditor"))
    response = client.get(reverse("payments-create-automation-rule"), HTTP_X_REQUEST_ID="refused-1234567")
    assert response.status_code == 403
    refusals = [line for line in json_lines() if line["logger"] == "django.request"]
    assert len(refusals) == 1
    assert refusals[0]["event"].startswith("Forbidden")
    assert refusals[0]["request_id"] == "refused-1234567"
    assert "exception" not in refusals[0]


def test_plain_lines_by_default(settings):
    assert settings.LOGGING["formatters"]["main"] == {"format": logging_config()["formatters"]["main"]["format"]}
    assert "%(request_id)s" in settings.LOGGING["formatters"]["main"]["format"]


def test_one_access_line_per_request_with_its_fields(client, make_staff, db, json_lines):
    user = make_staff("auditor")
    client.force_login(user)
    client.get(reverse("home") + "?q=ada@example.com", HTTP_X_REQUEST_ID="access-12345678")
    (line,) = [line for line in json_lines() if line["logger"] == "backoffice.access"]
    assert line["method"] == "GET" and line["path"] == "/" and line["status"] == 200
    assert line["user_id"] == user.pk
    assert line["client"] == "127.0.0.1"
    assert isinstance(line["duration_ms"], float)
    assert line["request_id"] == "access-12345678"
    assert "ada@example.com" not in json.dumps(line)  # no query string


def test_an_answer_of_4xx_or_5xx_is_logged_under_its_request_id(client, db, json_lines):
    """Django logs these after the middleware returned; the request on the record has the id."""
    client.post(reverse("healthz"), HTTP_X_REQUEST_ID="refused-post-1234")  # 405
    client.post(
        reverse("mirror-receive-webhook"), "{}", content_type="application/json", HTTP_X_REQUEST_ID="unsigned-12345678"
    )
    lines = {line["event"].split(":")[0]: line for line in json_lines() if line["logger"] == "django.request"}
    assert lines["Method Not Allowed (POST)"]["request_id"] == "refused-post-1234"
    assert lines["Unauthorized"]["request_id"] == "unsigned-12345678"


def test_a_probe_that_is_not_ready_is_an_answer_not_an_error(client, db, json_lines):
    assert client.get(reverse("readyz")).status_code == 503  # no sync ran yet
    lines = json_lines()
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines
    (access,) = [line for line in lines if line["logger"] == "backoffice.access"]
    assert access["status"] == 503


def test_a_disallowed_host_is_one_warning_without_a_traceback(client, db, settings, json_lines):
    settings.ALLOWED_HOSTS = ["backoffice.example.com"]
    assert client.get("/accounts/login/", HTTP_HOST="scanner.example.net").status_code == 400
    (line,) = [line for line in json_lines() if line["logger"] == "django.security.DisallowedHost"]
    assert line["level"] == "warning"
    assert "exception" not in line
