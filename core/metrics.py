"""Prometheus metrics that every layer records: requests, upstream calls, the circuit breaker.

The figures read from the database at scrape time (inbox, syncs, heartbeats) and the
`/metrics` view are the project's (backoffice/metrics.py). docs/operations.md says what each
metric means and what to do about it.

Several processes (gunicorn's, Celery's prefork children) share one view of these when
PROMETHEUS_MULTIPROC_DIR names a directory they all write to; without it each process
counts alone.
"""

import os
import re
import time

import pybreaker
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess


def _shared_directory() -> None:
    """PROMETHEUS_MULTIPROC_DIR exported but missing (a shell that kept the variable, a fresh
    container whose tmpfs is empty) would make every process that imports this module fail,
    `manage.py` commands included: the directory is made as deploy/run makes it."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise RuntimeError(f"PROMETHEUS_MULTIPROC_DIR={directory} cannot be made: {exc}") from exc


_shared_directory()

REQUEST_SECONDS = Histogram(
    "backoffice_request_seconds",
    "Time to answer a request, by view (URL name), method and status class.",
    ["view", "method", "status"],
)
UPSTREAM_CALLS = Counter(
    "backoffice_upstream_calls_total",
    "Tries of Payments API calls, by operation and outcome (ok, 4xx, 5xx, timeout, unreachable, circuit_open).",
    ["operation", "outcome"],
)
UPSTREAM_SECONDS = Histogram(
    "backoffice_upstream_call_seconds",
    "Duration of one try of a Payments API call, by operation.",
    ["operation"],
)
BREAKER_STATE = Gauge(
    "backoffice_upstream_circuit_state",
    "The circuit breaker before the Payments API: 0 closed, 1 half-open, 2 open (the worst of the processes).",
    multiprocess_mode="max",
)
TASK_SECONDS = Histogram("backoffice_task_seconds", "Runtime of Celery tasks, by task.", ["task"])
TASK_FAILURES = Counter("backoffice_task_failures_total", "Celery tasks that raised, by task.", ["task"])

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_BREAKER_VALUES = {pybreaker.STATE_CLOSED: 0, pybreaker.STATE_HALF_OPEN: 1, pybreaker.STATE_OPEN: 2}
# A path segment with a digit or an underscore is an id: "/customer/cus_8f2" -> "/customer/{id}".
_ID_SEGMENT = re.compile(r"/[^/]*[0-9_][^/]*")


def operation(method: str, path: str) -> str:
    """The label of a call: its method and path with ids replaced, so labels stay few."""
    return f"{method} {_ID_SEGMENT.sub('/{id}', path)}"


def observe_upstream(method: str, path: str, outcome: str, seconds: float) -> None:
    """The Payments API client's observer (upstream/client.py wires it)."""
    name = operation(method, path)
    UPSTREAM_CALLS.labels(name, outcome).inc()
    if outcome != "circuit_open":
        UPSTREAM_SECONDS.labels(name).observe(seconds)


class BreakerStateListener(pybreaker.CircuitBreakerListener):
    """Keeps backoffice_upstream_circuit_state equal to the breaker's state."""

    def state_change(self, cb, old_state, new_state):
        BREAKER_STATE.set(_BREAKER_VALUES.get(new_state.name, 0))


class RequestMetricsMiddleware:
    """Request latency by view: the URL's name (never the path, which holds ids)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name if match else None) or "unresolved"
        method = request.method if request.method in _METHODS else "other"
        REQUEST_SECONDS.labels(view, method, f"{response.status_code // 100}xx").observe(time.perf_counter() - started)
        return response


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's figures when PROMETHEUS_MULTIPROC_DIR is set
    (gunicorn's workers, Celery's children), else this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        combined = CollectorRegistry()
        multiprocess.MultiProcessCollector(combined)
        return combined
    return REGISTRY
