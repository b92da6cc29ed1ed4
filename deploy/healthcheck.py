"""The container health check of each process: `python deploy/healthcheck.py web|worker|beat`.

- web: GET /healthz on this container's gunicorn (GUNICORN_BIND's port), with a Host of
  ALLOWED_HOSTS and the load balancer's X-Forwarded-Proto, as a real request arrives.
- worker, beat: their heartbeat in the shared cache is fresh (backoffice/health.py): the
  worker runs beat's heartbeat task, beat sends it. Neither serves HTTP.

Exit status 0 when healthy, 1 when not (with the reason on stderr).
"""

import os
import sys
import urllib.error
import urllib.request
from pathlib import Path


def web() -> str | None:
    hosts = [h.strip().lstrip(".") for h in os.environ.get("ALLOWED_HOSTS", "").split(",")]
    host = next((h for h in hosts if h and h != "*"), "localhost")
    port = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").rsplit(":", 1)[-1]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/healthz", headers={"Host": host, "X-Forwarded-Proto": "https"}
    )
    try:
        with urllib.request.urlopen(request, timeout=4) as response:  # noqa: S310 (a fixed http URL)
            return None if response.status == 200 else f"/healthz answered {response.status}"
    except urllib.error.HTTPError as exc:
        return f"/healthz answered {exc.code}: {exc.read()[:300]!r}"
    except OSError as exc:
        return f"/healthz did not answer: {exc}"


def heartbeat(process: str) -> str | None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
    import django

    django.setup()
    from django.conf import settings

    from backoffice.health import heartbeat_age

    age = heartbeat_age(process)
    if age is None:
        return f"no {process} heartbeat in the cache yet"
    if age > settings.HEARTBEAT_STALE_SECONDS:
        return f"the {process} heartbeat is {age:.0f} s old (stale after {settings.HEARTBEAT_STALE_SECONDS} s)"
    return None


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "web"
    if kind not in ("web", "worker", "beat"):
        sys.exit("usage: python deploy/healthcheck.py web|worker|beat")
    problem = web() if kind == "web" else heartbeat(kind)
    if problem:
        print(f"unhealthy {kind}: {problem}", file=sys.stderr)
    sys.exit(1 if problem else 0)
