"""Production settings: `check --deploy` is clean, and a missing SECRET_KEY stops the process."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "k3y-for-the-deploy-check-" + "x7Qp2vL9" * 6,
    "ALLOWED_HOSTS": "backoffice.example.com",
    "PAYMENTS_API_BASE_URL": "https://api.payments.example.com",
    "PAYMENTS_API_KEY": "pk_live_for_the_deploy_check",
    "PAYMENTS_WEBHOOK_SECRET": "whsec_dGVzdHNlY3JldGZvcnRoZWRlcGxveWNoZWNr",
}


def manage(*args, env):
    base = {k: v for k, v in os.environ.items() if k not in PRODUCTION and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr


def test_check_deploy_warns_about_a_mounted_sandbox():
    env = {k: v for k, v in PRODUCTION.items() if k != "PAYMENTS_API_BASE_URL"}
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    assert "backoffice.W001" in result.stderr


@pytest.mark.parametrize("name", ["PAYMENTS_API_KEY", "PAYMENTS_WEBHOOK_SECRET"])
def test_check_deploy_warns_about_a_missing_secret(name, tmp_path):
    env = {k: v for k, v in PRODUCTION.items() if k != name}
    # A database of its own: a developer's may hold a secret stored by register_webhook.
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    assert f"{name} is not set" in result.stderr


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is not set. With DEBUG off the back-office refuses to start" in result.stderr


def test_production_cookies_are_secure():
    code = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0, s.SANDBOX_MOUNTED)"
    )
    result = manage("shell", "-c", code, env=PRODUCTION)
    assert result.stdout.splitlines()[-1].split() == ["True", "True", "True", "False"], result.stderr


@pytest.mark.parametrize(
    ("environ", "threads"),
    [
        ({"PAYMENTS_API_BASE_URL": "https://api.example.com/v0"}, 1),  # the provider is elsewhere
        ({}, 4),  # the sandbox mounted in this server: its pages call it
        ({"PAYMENTS_API_BASE_URL": "http://127.0.0.1:8123/sandbox", "GUNICORN_BIND": "127.0.0.1:8123"}, 4),
        ({"PAYMENTS_API_BASE_URL": "https://api.example.com/v0", "GUNICORN_THREADS": "3"}, 3),
    ],
)
def test_gunicorn_threads_only_where_the_server_calls_itself(monkeypatch, environ, threads):
    from django.conf import settings

    for name in ("PAYMENTS_API_BASE_URL", "GUNICORN_BIND", "GUNICORN_THREADS", "WEB_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    conf = runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))
    assert conf["threads"] == threads
    assert (conf["worker_class"], conf["keepalive"]) == ("gthread", 5)
    assert conf["workers"] >= 6


def test_the_sandbox_is_absent_when_a_provider_is_named():
    """With PAYMENTS_API_BASE_URL naming a provider, nothing of the sandbox is installed,
    routed, migrated or scheduled."""
    script = (
        "from django.apps import apps; from django.conf import settings; from django.urls import resolve, Resolver404;"
        "from django.db.migrations.loader import MigrationLoader;"
        "labels = {a.label for a in apps.get_app_configs()};"
        "routed = True\n"
        "try: resolve('/sandbox/customers')\n"
        "except Resolver404: routed = False\n"
        "migrated = {app for app, _ in MigrationLoader(None, ignore_no_migrations=True).disk_migrations};"
        "print(sorted(labels & {'sandbox', 'rest_framework', 'drf_spectacular'}), routed, 'sandbox' in migrated,"
        " [n for n in settings.CELERY_BEAT_SCHEDULE if n.startswith('sandbox')])"
    )
    named = manage("shell", "-c", script, env={"PAYMENTS_API_BASE_URL": "https://api.payments.example.com"})
    assert named.returncode == 0, named.stderr
    assert named.stdout.strip().splitlines()[-1] == "[] False False []"
    mounted = manage("shell", "-c", script, env={})
    assert mounted.returncode == 0, mounted.stderr
    assert (
        mounted.stdout.strip().splitlines()[-1].startswith("['drf_spectacular', 'rest_framework', 'sandbox'] True True")
    )


def test_production_settings_of_operations():
    """The broker's Redis is the shared cache; rotation fallbacks and JSON logs come from the environment."""
    env = {
        **PRODUCTION,
        "CELERY_BROKER_URL": "redis://redis.example.com:6379/0",
        "SECRET_KEY_FALLBACKS": "old-key-one,old-key-two",
        "LOG_FORMAT": "json",
    }
    script = (
        "from django.conf import settings as s; "
        "print(s.CACHES['default']['BACKEND'], s.CACHES['default']['LOCATION']); "
        "print(s.SECRET_KEY_FALLBACKS); print(s.LOGGING['formatters']['main']['()'].__name__)"
    )
    result = manage("shell", "-c", script, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    cache, fallbacks, formatter = result.stdout.strip().splitlines()[-3:]
    assert cache == "backoffice.cache.SharedCache redis://redis.example.com:6379/0"
    assert fallbacks == "['old-key-one', 'old-key-two']"
    assert formatter == "ProcessorFormatter"


def test_the_parallel_workers_setting_joins_the_options_of_database_url():
    script = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS']['options'])"
    url = "postgres://postgres@db.example.com:5432/backoffice?options=-c%20statement_timeout%3D5000"
    result = manage("shell", "-c", script, env={"DATABASE_URL": url, "DATABASE_PARALLEL_WORKERS": "2"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "-c statement_timeout=5000 -c max_parallel_workers_per_gather=2"


@pytest.mark.parametrize(
    ("environ", "bind"),
    [
        ({}, "127.0.0.1:8000"),
        ({"PORT": "5000"}, "0.0.0.0:5000"),  # a platform that runs the Procfile as it is
        ({"PORT": "5000", "GUNICORN_BIND": "127.0.0.1:9000"}, "127.0.0.1:9000"),
    ],
)
def test_gunicorn_binds_gunicorn_bind_else_port(monkeypatch, environ, bind):
    from django.conf import settings

    for name in ("PORT", "GUNICORN_BIND", "LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))["bind"] == bind


def test_a_missing_prometheus_directory_is_made_not_a_crash(tmp_path):
    missing = tmp_path / "gone" / "prometheus"
    result = manage("check", env={"PROMETHEUS_MULTIPROC_DIR": str(missing)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert missing.is_dir()


@pytest.mark.django_db
def test_check_deploy_takes_a_secret_stored_by_register_webhook(settings):
    from backoffice.checks import check_payments_api
    from tests.factories import WebhookSecretFactory

    settings.PAYMENTS_WEBHOOK_SECRET = ""
    assert any("PAYMENTS_WEBHOOK_SECRET" in w.msg for w in check_payments_api(None))
    WebhookSecretFactory()
    assert not any("PAYMENTS_WEBHOOK_SECRET" in w.msg for w in check_payments_api(None))


def test_production_templates_are_compiled_once_by_the_cached_loader():
    code = (
        "from django.template import engines;"
        "[outer] = engines['django'].engine.template_loaders;"
        "inner = getattr(outer, 'loaders', [outer]);"  # django-template-partials wraps the loaders
        "print(*[type(loader).__module__ for loader in inner])"
    )
    result = manage("shell", "-c", code, env=PRODUCTION)
    assert result.stdout.splitlines()[-1].split() == ["django.template.loaders.cached"], result.stderr
