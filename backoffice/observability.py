"""Logs, error reports and the request id across processes.

- `logging_config()`: Django's LOGGING. Plain lines by default; one JSON object a line with
  LOG_FORMAT=json (structlog's formatter over the standard library's logging, so every
  library's lines come out the same way), each with the request id.
- `init_sentry()`: error reports to Sentry when SENTRY_DSN is set, with the Django and
  Celery integrations, no personal data sent and what is left masked by `scrub_event`.
- Celery signals (connected in backoffice/celery.py): the request id of the request that
  queued a task travels in the message and is the task's while it runs (a task that no
  request queued, beat's, takes its own task id), so its log lines and its calls to the
  Payments API carry it; task runtimes and failures go to the metrics.
"""

import logging
import re
import time
from typing import Any

import structlog

from core.middleware import ACCESS_FIELDS, TASK_FAILURES, TASK_SECONDS, current_request_id, set_request_id

PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def _request_id(logger, method_name, event_dict):
    record = event_dict.get("_record")
    event_dict["request_id"] = getattr(record, "request_id", None) or current_request_id()
    return event_dict


def logging_config(*, fmt: str = "plain", level: str = "INFO") -> dict:
    json_lines = fmt == "json"
    if json_lines:
        formatter: dict[str, Any] = {
            "()": structlog.stdlib.ProcessorFormatter,
            "foreign_pre_chain": [
                structlog.processors.TimeStamper(fmt="iso", utc=True, key="time"),
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                _request_id,
                # The access line's fields as fields of their own (core.middleware.AccessLogMiddleware).
                structlog.stdlib.ExtraAdder(allow=ACCESS_FIELDS),
            ],
            "processors": [
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(),
            ],
        }
    else:
        formatter = {"format": PLAIN_FORMAT}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {"()": "core.middleware.RequestIdLogFilter"},
            "refusals": {"()": "backoffice.observability.RefusalFilter"},
            "expected": {"()": "backoffice.observability.ExpectedConditionFilter"},
        },
        "formatters": {"main": formatter},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "main",
                "filters": ["request_id", "refusals"],
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django": {"level": level},  # Django's own default is INFO whatever the root's
            "django.db.backends": {"level": "INFO"},
            "axes": {"level": "WARNING"},
            # A request for a host not in ALLOWED_HOSTS (a scanner, a probe by IP): a warning.
            "django.security.DisallowedHost": {"filters": ["expected"]},
            # runserver's request lines: the same handler, so they are JSON too when asked;
            # with LOG_LEVEL=WARNING (make run) only its 4xx and 5xx.
            "django.server": {"handlers": ["console"], "level": level, "propagate": False},
        },
    }


class RefusalFilter(logging.Filter):
    """A refusal (403, 404 of a PermissionDenied/Http404) is one line, not a traceback: it
    is the access rules working, not an error."""

    def filter(self, record):
        status = getattr(record, "status_code", None)
        if record.name == "django.request" and status is not None and status < 500 and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True


class ExpectedConditionFilter(logging.Filter):
    """On a logger whose ERRORs are routine conditions rather than faults (Django's
    DisallowedHost): one WARNING line, without a traceback, and so no error report either
    (Sentry's logging integration reads the record after logger filters)."""

    def filter(self, record):
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True


# Sentry ------------------------------------------------------------------------------

MASK = "[masked]"
# Keys whose values are personal data or secrets, wherever they appear in an event.
_SENSITIVE_KEY = re.compile(
    r"pass|secret|token|key|auth|cookie|session|csrf|signature|email|phone|birth|national|"
    r"first_?name|last_?name|legal|address|iban|account_?number|document|image",
    re.IGNORECASE,
)
# Values that look like an API key or a bearer token, an e-mail address or a national id.
_SENSITIVE_VALUE = re.compile(
    r"(Bearer\s+\S+|sbx_\w+|whsec_\w+|[\w.+-]+@[\w-]+\.[\w.-]+|\b\d{3}-\d{2}-\d{4}\b)", re.IGNORECASE
)


def _mask(value: Any, key: str = "") -> Any:
    if key and _SENSITIVE_KEY.search(key):
        return MASK
    if isinstance(value, dict):
        return {k: _mask(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(item) for item in value]
    if isinstance(value, str):
        return _SENSITIVE_VALUE.sub(MASK, value)
    return value


def scrub_event(event: dict, hint: dict | None = None) -> dict:
    """Sentry's before_send: no request body, cookies or user beyond an id, and every value
    under a sensitive key, or that looks like a key, an address or a national id, masked."""
    request = event.get("request")
    if isinstance(request, dict):
        request.pop("data", None)
        request.pop("cookies", None)
    user = event.get("user")
    if isinstance(user, dict):
        event["user"] = {"id": user["id"]} if "id" in user else {}
    for name in ("request", "extra", "contexts", "breadcrumbs", "exception", "logentry", "message", "tags"):
        if name in event:
            event[name] = _mask(event[name])
    return event


def init_sentry(*, dsn: str, environment: str, release: str | None, traces_sample_rate: float) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        # A frame's local variables hold what no masking can name: a connection string with its
        # password (psycopg's conninfo), a session key passed as a query parameter.
        include_local_variables=False,
        max_request_body_size="never",
        before_send=scrub_event,
        traces_sample_rate=traces_sample_rate,
    )


# Celery ------------------------------------------------------------------------------

REQUEST_ID_HEADER = "request_id"


def carry_request_id(headers=None, **kwargs):
    """before_task_publish: the request id of the queuing request goes with the message."""
    request_id = current_request_id()
    if headers is not None and request_id != "-":
        headers.setdefault(REQUEST_ID_HEADER, request_id)


def task_started(task=None, task_id=None, **kwargs):
    """task_prerun: the task runs under the request id that queued it (an eager task keeps
    the one of the request it runs in), else under its own id."""
    request = task.request
    # A worker makes the message's headers attributes of the request; apply(headers=...) does not.
    carried = getattr(request, REQUEST_ID_HEADER, None) or (getattr(request, "headers", None) or {}).get(
        REQUEST_ID_HEADER
    )
    current = current_request_id()
    request_id = carried or (current if current != "-" else task_id or "-")
    request._observability = (set_request_id(request_id), time.perf_counter())


def task_finished(task=None, **kwargs):
    """task_postrun: the runtime to the metrics; the request id of before is restored."""
    started = getattr(task.request, "_observability", None)
    if started is None:
        return
    token, began = started
    TASK_SECONDS.labels(task.name).observe(time.perf_counter() - began)
    token.var.reset(token)
    task.request._observability = None


def task_failed(sender=None, **kwargs):
    TASK_FAILURES.labels(getattr(sender, "name", "unknown")).inc()


def serve_worker_metrics(**kwargs):
    """worker_ready: a Celery worker serves its metrics (task runtimes and failures, its
    upstream calls) on WORKER_METRICS_PORT, a port for the scraper only, never published."""
    import os

    from prometheus_client import start_http_server

    from core.middleware import registry

    port = os.environ.get("WORKER_METRICS_PORT")
    if port:
        start_http_server(int(port), addr=os.environ.get("WORKER_METRICS_ADDR", "0.0.0.0"), registry=registry())  # noqa: S104
