"""/healthz, /readyz and /metrics answer a probe by IP over plain HTTP with the production
settings (SSL redirect on, ALLOWED_HOSTS naming the public host only), as a load balancer,
Kubernetes or Prometheus' service discovery asks; pages keep the host check and the redirect."""

import logging

import pytest

pytestmark = pytest.mark.django_db

TOKEN = "probe-metrics-token-0123456789"
BY_IP = {"HTTP_HOST": "10.0.3.7:8000"}


@pytest.fixture(autouse=True)
def production(settings):
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["backoffice.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.METRICS_TOKEN = TOKEN


def test_healthz_by_ip_over_plain_http_is_200(client, caplog):
    with caplog.at_level(logging.INFO):
        response = client.get("/healthz", **BY_IP)
    assert response.status_code == 200
    assert response.json()["database"] == "ok"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_readyz_by_ip_answers_json_not_a_redirect(client):
    response = client.get("/readyz", **BY_IP)
    assert response.status_code == 503  # no sync ran yet: it says so, in JSON
    assert response.json()["checks"]["sync"]["customers"]["status"] == "missing"


def test_the_documented_prometheus_job_scrapes_by_ip(client):
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", **BY_IP)
    assert response.status_code == 200
    assert b"backoffice_request_seconds" in response.content
    assert client.get("/metrics", **BY_IP).status_code == 401


def test_the_probes_count_in_the_request_metrics_by_name(client):
    client.get("/healthz", **BY_IP)
    text = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", **BY_IP).content.decode()
    assert 'view="healthz"' in text


def test_pages_keep_the_host_check_and_the_ssl_redirect(client):
    assert client.get("/accounts/login/", **BY_IP).status_code == 400
    assert client.get("/healthz/", **BY_IP).status_code == 400  # only the exact paths
    redirect = client.get("/accounts/login/", HTTP_HOST="backoffice.example.com")
    assert redirect.status_code == 301
    assert redirect["Location"] == "https://backoffice.example.com/accounts/login/"
    served = client.get("/accounts/login/", HTTP_HOST="backoffice.example.com", HTTP_X_FORWARDED_PROTO="https")
    assert served.status_code == 200


def test_the_cache_probe_answers_inside_a_running_event_loop(db, recwarn):
    """An asynchronous check from a thread that runs a loop (an ASGI server) is still run."""
    import asyncio
    import concurrent.futures

    from backoffice import health

    async def probe():
        return health.cache_status()

    # In a thread of its own: this one may already run a loop (a browser test's, earlier).
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        inside_a_loop = pool.submit(lambda: asyncio.run(probe())).result()
    assert inside_a_loop == health.cache_status() == "ok"
    assert not [w for w in recwarn if "never awaited" in str(w.message)]
