"""gunicorn's settings for the back-office; gunicorn reads this file from the directory it
starts in, so `gunicorn backoffice.wsgi` needs nothing more (flags on the command line win).

- Processes, one request at a time each (one thread), six per core: a request spends much
  of its time waiting on PostgreSQL or the Payments API, and a waiting process costs memory,
  not processor. Threads in one process measured slower under load: a thread that comes back
  from a query waits for the interpreter lock behind the busy ones. A page that waits on a
  slow Payments API holds its process for at most the client's timeout, and the circuit
  breaker stops the waiting once the API is seen failing.
- Except when this server is its own Payments API (no PAYMENTS_API_BASE_URL, the sandbox
  mounted as in backoffice/settings.py's one-machine default, or one naming this server):
  a page that calls the API needs the same server to answer that call meanwhile, which a
  single-threaded process busy with the page cannot do. Such a server runs 4 threads a process.
- Keep-alive of 5 s: a client sending many requests (the provider's webhooks, the load
  balancer) reuses its connection instead of a TCP handshake and an accept per request.

The measurements behind each choice are in docs/benchmarks.md ("Load", fifth series).
WEB_CONCURRENCY sets the number of processes, GUNICORN_THREADS the threads of each; GUNICORN_BIND
(or PORT) the address. With LOG_FORMAT=json gunicorn's own lines are JSON too.
"""

import os
from urllib.parse import urlsplit

# GUNICORN_BIND, else the PORT a platform that runs Procfiles gives (on every interface, as it
# expects), else loopback for a run by hand.
bind = os.environ.get("GUNICORN_BIND") or (
    f"0.0.0.0:{os.environ['PORT']}" if os.environ.get("PORT") else "127.0.0.1:8000"
)
workers = int(os.environ.get("WEB_CONCURRENCY", 6 * (os.cpu_count() or 1)))
worker_class = "gthread"
api = os.environ.get("PAYMENTS_API_BASE_URL")
calls_itself = api is None or urlsplit(api).netloc == bind
threads = int(os.environ.get("GUNICORN_THREADS", 4 if calls_itself else 1))
keepalive = 5
timeout = 30


if os.environ.get("LOG_FORMAT") == "json":
    # gunicorn's own lines (its start, workers booting and exiting) as JSON like the application's.
    from backoffice.observability import logging_config

    logconfig_dict = logging_config(fmt="json", level=os.environ.get("LOG_LEVEL", "INFO"))
    logconfig_dict["loggers"]["gunicorn.error"] = {"handlers": ["console"], "propagate": False}
    # The application writes the access line (backoffice.access, with the request id and user):
    # gunicorn's own, which a logging configuration switches on, would double it.
    logconfig_dict["loggers"]["gunicorn.access"] = {"handlers": ["console"], "level": "WARNING", "propagate": False}

# Imported here, in the master as it starts: child_exit runs in the master's SIGCHLD handler,
# and an import there can be interrupted by the next worker's exit, which then finds the
# module half imported (an ImportError when several workers stop at once).
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    from prometheus_client import multiprocess
else:
    multiprocess = None


def child_exit(server, worker):
    """A worker that exits leaves its live gauges out of Prometheus's shared figures."""
    if multiprocess is not None:
        multiprocess.mark_process_dead(worker.pid)
