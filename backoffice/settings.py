"""Settings of the back-office, read from the environment with embedded defaults.

With nothing set the project runs on one machine: DEBUG on, SQLite, Celery eager and
the sandbox mounted at /sandbox/ as the upstream Payments API. Production sets
DATABASE_URL, CELERY_BROKER_URL, PAYMENTS_API_BASE_URL, PAYMENTS_API_KEY,
PAYMENTS_WEBHOOK_SECRET, SECRET_KEY, ALLOWED_HOSTS and DEBUG=0.
"""

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off the back-office refuses to start "
            "without it: set SECRET_KEY to a long random string (at least 50 characters)."
        )
    SECRET_KEY = "dev-only-secret-key-never-used-when-debug-is-off-0123456789abcdef"  # noqa: S105

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The upstream Payments API. Without PAYMENTS_API_BASE_URL the sandbox mounted at
# /sandbox/ of this same server is the upstream.
SANDBOX_MOUNTED = env.bool("SANDBOX_MOUNTED", default="PAYMENTS_API_BASE_URL" not in env)

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.admin",
    "django_htmx",
    "django_filters",
    "template_partials",
    "csp",
    "axes",
    "backoffice",
    "core",
    "customers",
    "payments",
    "mirror",
]
if SANDBOX_MOUNTED:
    # The emulator of the Payments API, its tables and its DRF views: only where it is the
    # upstream. With a real provider none of it is installed, migrated or routed.
    INSTALLED_APPS += ["rest_framework", "drf_spectacular", "sandbox"]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.RefuseNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.IdleSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = env.str("ROOT_URLCONF", default="backoffice.urls")
WSGI_APPLICATION = "backoffice.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "mirror.context_processors.upstream_status",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One machine, several threads (the server's and the periodic ticker's): readers beside a
    # writer (WAL), writers queue (IMMEDIATE) instead of failing on a lock upgrade.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # Tests get a file too, not the shared-cache memory database: there a second thread (the
    # live server's, a webhook's) fails at once with "table is locked" instead of waiting.
    DATABASES["default"].setdefault("TEST", {}).setdefault(
        "NAME", str(Path(tempfile.gettempdir()) / f"backoffice-test-{os.getpid()}.sqlite3")
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "core.auth.RoleBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Failed logins: 5 failures for one user from one address lock that pair out for 15 minutes.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

# Staff sessions end after 8 hours without a request.
SESSION_COOKIE_AGE = 8 * 60 * 60
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_SAMESITE = "Lax"

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    # TLS ends at the load balancer, which sets this header.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:", "blob:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "frame-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    },
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Requests of the Payments API may carry documents: up to 100 MB.
DATA_UPLOAD_MAX_MEMORY_SIZE = 100 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# The upstream Payments API: PAYMENTS_API_BASE_URL, or the sandbox mounted above.
PAYMENTS_API_BASE_URL = env.str("PAYMENTS_API_BASE_URL", default="http://127.0.0.1:8000/sandbox")
# The mounted sandbox's well-known demo key (sandbox_seed makes it): not a secret, and never
# the default once a real upstream is configured.
SANDBOX_DEMO_API_KEY = "sbx_demo0000000_embedded-sandbox-key-not-secret"
PAYMENTS_API_KEY = env.str("PAYMENTS_API_KEY", default=SANDBOX_DEMO_API_KEY if SANDBOX_MOUNTED else "")
PAYMENTS_API_TIMEOUT = env.float("PAYMENTS_API_TIMEOUT", default=10.0)
PAYMENTS_WEBHOOK_SECRET = env.str("PAYMENTS_WEBHOOK_SECRET", default="")
# Requests to the upstream through WSGI into this process (the mounted sandbox): tests and
# set-up commands that run before the server is listening.
PAYMENTS_API_IN_PROCESS = env.bool("PAYMENTS_API_IN_PROCESS", default=False)

# Celery: eager in-process when no broker is configured.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# Eager tasks never reach a broker; naming an in-memory one keeps kombu from looking for one.
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 15 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 14 * 60
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
SYNC_INTERVAL_SECONDS = env.int("SYNC_INTERVAL_SECONDS", default=15 * 60)
TRANSACTION_REFRESH_SECONDS = env.int("TRANSACTION_REFRESH_SECONDS", default=60)
STUCK_PROCESSING_HOURS = env.int("STUCK_PROCESSING_HOURS", default=4)
STUCK_CREATED_MINUTES = env.int("STUCK_CREATED_MINUTES", default=30)
CELERY_BEAT_SCHEDULE = {
    "sync-mirror": {"task": "mirror.tasks.sync_mirror", "schedule": SYNC_INTERVAL_SECONDS},
    "refresh-transactions": {"task": "mirror.tasks.refresh_transactions", "schedule": TRANSACTION_REFRESH_SECONDS},
    "sweep-webhook-inbox": {"task": "mirror.tasks.sweep_webhook_inbox", "schedule": 60},
    "refresh-home-figures": {"task": "backoffice.tasks.refresh_home_figures", "schedule": 60},
}
if SANDBOX_MOUNTED:
    # The sandbox's own clock work: reviews, expiry and processing, rules, webhook retries.
    CELERY_BEAT_SCHEDULE.update(
        {
            "sandbox-complete-reviews": {"task": "sandbox.complete_due_reviews", "schedule": 5},
            "sandbox-advance-transactions": {"task": "sandbox.tasks.advance_due_transactions", "schedule": 5},
            "sandbox-fire-automation-rules": {"task": "sandbox.tasks.fire_due_automation_rules", "schedule": 15},
            "sandbox-deliver-webhooks": {"task": "sandbox.tasks.deliver_due_webhooks", "schedule": 5},
        }
    )
# Without a broker, `runserver` runs the schedule above in a thread (backoffice/ticker.py).
EAGER_BEAT = env.bool("EAGER_BEAT", default=DEBUG)
# Compliance case work: hours a case may wait on us, and when a CREATED customer needs a person.
CUSTOMERS_REVIEW_SLA_HOURS = env.int("CUSTOMERS_REVIEW_SLA_HOURS", default=24)
CUSTOMERS_CREATED_STALE_MINUTES = env.int("CUSTOMERS_CREATED_STALE_MINUTES", default=60)
# Figures of the admin's home page that other code may provide: the dotted path of a function
# of no arguments that returns a count, or None where the figure does not apply yet (shown as
# "not configured", or left out). The defaults are in backoffice/home_figures.py.
HOME_STAFF_WITHOUT_MFA = "backoffice.home_figures.staff_without_mfa"
HOME_APPROVALS_WAITING = "backoffice.home_figures.approvals_waiting"

if SANDBOX_MOUNTED:
    REST_FRAMEWORK = {
        "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "UNAUTHENTICATED_USER": None,
    }

    SPECTACULAR_SETTINGS = {
        # The sandbox's documents carry their own settings; its system check reads these.
        "ENUM_NAME_OVERRIDES": {"EventKindEnum": "sandbox.models.EVENT_KINDS"},
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.middleware.RequestIdLogFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["request_id"]},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "axes": {"level": "WARNING"},
    },
}
CSRF_FAILURE_VIEW = "core.views.csrf_failure"
