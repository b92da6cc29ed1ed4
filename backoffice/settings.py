"""Settings of the back-office, read from the environment with embedded defaults.

With nothing set the project runs on one machine: DEBUG on, SQLite, Celery eager and
the sandbox mounted at /sandbox/ as the upstream Payments API. Production sets
DATABASE_URL, CELERY_BROKER_URL, PAYMENTS_API_BASE_URL, PAYMENTS_API_KEY,
PAYMENTS_WEBHOOK_SECRET, SECRET_KEY, ALLOWED_HOSTS and DEBUG=0.

Read top to bottom, by concern: paths and environment; apps, middleware and templates;
database; cache; Celery; staff login (auth, allauth, axes, e-mail); security; logs, Sentry,
metrics and readiness; the product's own settings (the Payments API, the mirror, case work,
four-eyes). Every setting is defined once, with its default; the README's settings table and
deploy/env.example list the environment variables.
"""

import ipaddress
import os
import tempfile
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from backoffice.observability import init_sentry, logging_config

# ---- Paths and environment -------------------------------------------------------------------
BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)

# The upstream Payments API. Without PAYMENTS_API_BASE_URL the sandbox mounted at
# /sandbox/ of this same server is the upstream.
SANDBOX_MOUNTED = env.bool("SANDBOX_MOUNTED", default="PAYMENTS_API_BASE_URL" not in env)

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

# ---- Apps, middleware, URLs and templates -----------------------------------------------------
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
    # Staff login: password, second factor, OpenID Connect SSO (staff/accounts.py adapts them).
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "backoffice",
    "core",
    "audit",
    "upstream",
    "staff",
    "customers",
    "payments",
    "mirror",
    "monitoring",
    "search",
    "notifications",
]
if SANDBOX_MOUNTED:
    # The emulator of the Payments API, its tables and its DRF views: only where it is the
    # upstream. With a real provider none of it is installed, migrated or routed.
    INSTALLED_APPS += ["rest_framework", "drf_spectacular", "sandbox"]

MIDDLEWARE = [
    "core.middleware.HeadMiddleware",
    "core.middleware.RequestMetricsMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.AccessLogMiddleware",
    # /healthz, /readyz, /metrics: answered before the host check and the SSL redirect.
    "backoffice.probes.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.RefuseNulMiddleware",
    # The unchanged answer of an open live page, before the session is read (core/live.py).
    "core.live.LivePollMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.IdleSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Sessions opened while the role backend lived in core stay logged in (staff.auth).
    "staff.auth.MovedBackendMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "staff.timezones.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Staff without a second factor are sent to enrol before any other page (staff.mfa).
    "staff.mfa.SecondFactorRequiredMiddleware",
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
                "staff.accounts.login_options",
                "search.navigation.navigation",
            ],
        },
    },
]
# Selects are written in Python, not through an include per option (core/forms.py).
FORM_RENDERER = "core.forms.FormRenderer"

CSRF_FAILURE_VIEW = "core.views.csrf_failure"

# ---- Database ---------------------------------------------------------------------------------
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
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Page queries read a page of rows. A parallel plan's workers take milliseconds to start,
    # many more on a busy machine, and the planner picks one for a small read only when an
    # estimate is a little off (docs/benchmarks.md, "No slow corner"). Reports that
    # want workers can raise it (DATABASE_PARALLEL_WORKERS) or SET it in their own transaction.
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _parallel = f"-c max_parallel_workers_per_gather={env.int('DATABASE_PARALLEL_WORKERS', default=0)}"
    _options["options"] = f"{_options.get('options', '')} {_parallel}".strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---- Cache ------------------------------------------------------------------------------------
# Celery's broker below; its Redis is the cache too unless CACHE_URL names another.
_BROKER = env.str("CELERY_BROKER_URL", default="")
# One cache for every process: CACHE_URL, else the broker's Redis, else each process its own.
CACHES = {
    "default": env.cache(
        "CACHE_URL", default=_BROKER if _BROKER.startswith(("redis://", "rediss://")) else "locmemcache://"
    )
}
CACHES["default"].setdefault("KEY_PREFIX", "backoffice")
# Nothing a page, a login or a webhook needs lives only in this cache: with Redis away a read
# misses and a write is dropped within a second, instead of a 500, and /healthz and /readyz say
# the cache is unavailable (backoffice/cache.py, docs/operations.md "Redis").
REDIS_CACHE_OPTIONS = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1}
if CACHES["default"]["BACKEND"] == "django_redis.cache.RedisCache":
    CACHES["default"]["BACKEND"] = "backoffice.cache.SharedCache"
    CACHES["default"].setdefault("OPTIONS", {}).update(REDIS_CACHE_OPTIONS)
# What one process keeps for itself (the webhook signing secrets): never on the network.
CACHES["local"] = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "local"}

# ---- Celery -----------------------------------------------------------------------------------
# Celery: eager in-process when no broker is configured.
CELERY_TASK_ALWAYS_EAGER = not _BROKER
# Eager tasks never reach a broker; naming an in-memory one keeps kombu from looking for one.
CELERY_BROKER_URL = _BROKER or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 15 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 14 * 60
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The periodic work: full sync, refresh of open transactions, the heartbeat /readyz reads.
SYNC_INTERVAL_SECONDS = env.int("SYNC_INTERVAL_SECONDS", default=15 * 60)
TRANSACTION_REFRESH_SECONDS = env.int("TRANSACTION_REFRESH_SECONDS", default=60)
HEARTBEAT_SECONDS = env.int("HEARTBEAT_SECONDS", default=30)
CELERY_BEAT_SCHEDULE = {
    "sync-mirror": {"task": "mirror.tasks.sync_mirror", "schedule": SYNC_INTERVAL_SECONDS},
    "refresh-transactions": {"task": "mirror.tasks.refresh_transactions", "schedule": TRANSACTION_REFRESH_SECONDS},
    "sweep-webhook-inbox": {"task": "mirror.tasks.sweep_webhook_inbox", "schedule": 60},
    "expire-approval-requests": {"task": "payments.tasks.expire_approval_requests", "schedule": 300},
    "refresh-home-figures": {"task": "backoffice.tasks.refresh_home_figures", "schedule": 60},
    "heartbeat": {"task": "backoffice.heartbeat", "schedule": HEARTBEAT_SECONDS},
    "prune-write-claims": {"task": "upstream.tasks.prune_write_claims", "schedule": 86400},
    # The transactions the mirror changed, through the live monitoring rules.
    "evaluate-due-transactions": {
        "task": "monitoring.tasks.evaluate_due_transactions",
        "schedule": env.int("MONITORING_EVALUATE_SECONDS", default=5),
    },
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

# ---- Staff login: auth, django-allauth, django-axes, e-mail ------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "staff.auth.RoleBackend",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "account_login"

# The client's address (lockouts, rate limits, audit) is REMOTE_ADDR unless proxies in front
# are trusted (staff/client_ip.py): TRUSTED_PROXIES is their number ("1" behind one load
# balancer) or their addresses and networks ("10.0.0.0/8,192.0.2.7"). Unset: none trusted.
_proxies = env.str("TRUSTED_PROXIES", default="").strip()
TRUSTED_PROXY_COUNT = int(_proxies) if _proxies.isdigit() else 0
TRUSTED_PROXY_NETWORKS = (
    []
    if _proxies.isdigit()
    else [str(ipaddress.ip_network(n.strip(), strict=False)) for n in _proxies.split(",") if n.strip()]
)

# Failed logins: 5 failures for one user from one address lock that pair out for 15 minutes.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "staff.client_ip.client_ip"
AXES_USERNAME_CALLABLE = "staff.usernames.axes_username"
# The one lockout page, with the time the pair may try again (staff/lockouts.py).
AXES_LOCKOUT_CALLABLE = "staff.lockouts.axes_lockout"

# Staff sessions end after STAFF_IDLE_MINUTES without a request.
STAFF_IDLE_MINUTES = env.int("STAFF_IDLE_MINUTES", default=30)
SESSION_COOKIE_AGE = STAFF_IDLE_MINUTES * 60
# A live page's poll re-reads its session at most this often (core/live.py).
LIVE_SESSION_RECHECK_SECONDS = env.int("LIVE_SESSION_RECHECK_SECONDS", default=30)
# The login, second-factor and re-authentication pages are allauth's, in the back-office's
# templates (templates/allauth/, templates/account/, templates/mfa/); staff.accounts adapts them.
ACCOUNT_ADAPTER = "staff.accounts.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "staff.sso.SocialAccountAdapter"
MFA_ADAPTER = "staff.accounts.MFAAdapter"
ACCOUNT_FORMS = {"login": "staff.forms.LoginForm", "user_token": "staff.guarded_forms.UserTokenForm"}
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_SESSION_REMEMBER = False
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
ACCOUNT_PREVENT_ENUMERATION = True
# Guessing limits (staff/lockouts.py). Passwords are django-axes' (above). "login_failed" counts
# second-factor codes, recovery codes and passkeys per member ("key") and per address ("ip"):
# 5 in 15 minutes, 10 in a day. "set_password_link" is the same for the keys of set-password links.
ACCOUNT_RATE_LIMITS = {
    "login_failed": "5/15m/key,10/1d/key,20/15m/ip",
    "set_password_link": "5/15m/key,10/1d/key,20/15m/ip",
}
MFA_FORMS = {
    "authenticate": "staff.guarded_forms.AuthenticateForm",
    "reauthenticate": "staff.guarded_forms.ReauthenticateForm",
    "authenticate_webauthn": "staff.guarded_forms.AuthenticateWebAuthnForm",
    "reauthenticate_webauthn": "staff.guarded_forms.ReauthenticateWebAuthnForm",
    "login_webauthn": "staff.guarded_forms.LoginWebAuthnForm",
}
# Moving money, approving and staff changes ask for the password or the second factor again
# when the last check is older than this (core.access.recent_auth_required).
STAFF_REAUTH_MINUTES = env.int("STAFF_REAUTH_MINUTES", default=10)
ACCOUNT_REAUTHENTICATION_TIMEOUT = STAFF_REAUTH_MINUTES * 60
STAFF_MFA_REQUIRED = env.bool("STAFF_MFA_REQUIRED", default=not DEBUG)
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_TOTP_ISSUER = "Payments back-office"
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG
# Staff e-mail addresses are typed by an admin and never used to log in: nothing to verify.
MFA_ALLOW_UNVERIFIED_EMAIL = True
# The set-password link of a new staff member is e-mailed only when EMAIL_URL names a backend
# (smtp://user:password@host:587, ...); it is always shown once to the admin who added them.
STAFF_EMAIL_LINKS = "EMAIL_URL" in env
_EMAIL = env.email_url("EMAIL_URL", default="smtp://localhost:25")
EMAIL_BACKEND = _EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = _EMAIL["EMAIL_HOST"]
EMAIL_PORT = _EMAIL["EMAIL_PORT"]
EMAIL_HOST_USER = _EMAIL["EMAIL_HOST_USER"] or ""
EMAIL_HOST_PASSWORD = _EMAIL["EMAIL_HOST_PASSWORD"] or ""
EMAIL_USE_TLS = _EMAIL.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _EMAIL.get("EMAIL_USE_SSL", False)
EMAIL_FILE_PATH = _EMAIL["EMAIL_FILE_PATH"]
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="backoffice@localhost")
# Single sign-on: an OpenID Connect identity provider, on when OIDC_ISSUER is set.
OIDC_ISSUER = env.str("OIDC_ISSUER", default="")
OIDC_CLIENT_ID = env.str("OIDC_CLIENT_ID", default="")
OIDC_CLIENT_SECRET = env.str("OIDC_CLIENT_SECRET", default="")
OIDC_NAME = env.str("OIDC_NAME", default="single sign-on")
# A claim of the ID token listing the person's IdP groups; when set, each login makes their
# roles the roles these groups map to (OIDC_GROUP_ROLES "idp-group=role,...", else same names).
OIDC_GROUPS_CLAIM = env.str("OIDC_GROUPS_CLAIM", default="")
OIDC_GROUP_ROLES = env.dict("OIDC_GROUP_ROLES", default={})
# With SSO on, OIDC_PASSWORD_LOGIN=0 leaves single sign-on as the only way in.
OIDC_PASSWORD_LOGIN = env.bool("OIDC_PASSWORD_LOGIN", default=True)
SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"OAUTH_PKCE_ENABLED": True, "APPS": []}}
if OIDC_ISSUER:
    SOCIALACCOUNT_PROVIDERS["openid_connect"]["APPS"].append(
        {
            "provider_id": "sso",
            "name": OIDC_NAME,
            "client_id": OIDC_CLIENT_ID,
            "secret": OIDC_CLIENT_SECRET,
            "settings": {"server_url": OIDC_ISSUER, "token_auth_method": "client_secret_post"},
        }
    )
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_LOGIN_ON_GET = False

# ---- Security -----------------------------------------------------------------------------------
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off the back-office refuses to start "
            "without it: set SECRET_KEY to a long random string (at least 50 characters)."
        )
    SECRET_KEY = "dev-only-secret-key-never-used-when-debug-is-off-0123456789abcdef"  # noqa: S105

# Rotation without logging everyone out: the old key here while sessions signed with it
# lapse (docs/operations.md).
SECRET_KEY_FALLBACKS = env.list("SECRET_KEY_FALLBACKS", default=[])

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

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

# ---- Logs, Sentry, metrics and readiness (docs/operations.md) -----------------------------------
# Logs: plain lines, or one JSON object a line with LOG_FORMAT=json; both carry the request id.
LOGGING = logging_config(fmt=env.str("LOG_FORMAT", default="plain"), level=env.str("LOG_LEVEL", default="INFO"))
if CELERY_TASK_ALWAYS_EAGER:
    # Eager tasks still open a producer on the in-memory broker, which warns of no hostname.
    LOGGING["loggers"]["kombu.connection"] = {"level": "ERROR"}
# Errors to Sentry when SENTRY_DSN is set; no personal data (backoffice/observability.py).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    init_sentry(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="production" if not DEBUG else "development"),
        release=env.str("SENTRY_RELEASE", default="") or None,
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
    )
# Prometheus metrics at /metrics for a scraper that sends "Authorization: Bearer METRICS_TOKEN";
# without METRICS_TOKEN /metrics does not exist (404).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Readiness (/readyz): worker and beat are stale past HEARTBEAT_STALE_SECONDS (beat queues a
# heartbeat every HEARTBEAT_SECONDS, above), each sync kind past SYNC_STALE_SECONDS.
HEARTBEAT_STALE_SECONDS = env.int("HEARTBEAT_STALE_SECONDS", default=4 * HEARTBEAT_SECONDS)
SYNC_STALE_SECONDS = env.int("SYNC_STALE_SECONDS", default=2 * SYNC_INTERVAL_SECONDS + 300)

# ---- The product: the Payments API, the mirror, case work, four-eyes ----------------------------
# The upstream Payments API: PAYMENTS_API_BASE_URL, or the sandbox mounted above.
PAYMENTS_API_BASE_URL = env.str("PAYMENTS_API_BASE_URL", default="http://127.0.0.1:8000/sandbox")
# The mounted sandbox's well-known demo key (sandbox_seed makes it): not a secret, and never
# the default once a real upstream is configured.
SANDBOX_DEMO_API_KEY = "sbx_demo0000000_embedded-sandbox-key-not-secret"
PAYMENTS_API_KEY = env.str("PAYMENTS_API_KEY", default=SANDBOX_DEMO_API_KEY if SANDBOX_MOUNTED else "")
PAYMENTS_API_TIMEOUT = env.float("PAYMENTS_API_TIMEOUT", default=10.0)
# Retries of a failed call that is safe to repeat, and the circuit breaker: after this many
# failed calls in a row, calls pause for the reset time (the client's own defaults).
PAYMENTS_API_MAX_RETRIES = env.int("PAYMENTS_API_MAX_RETRIES", default=2)
PAYMENTS_API_BREAKER_FAILURES = env.int("PAYMENTS_API_BREAKER_FAILURES", default=5)
PAYMENTS_API_BREAKER_RESET_SECONDS = env.float("PAYMENTS_API_BREAKER_RESET_SECONDS", default=30.0)
PAYMENTS_WEBHOOK_SECRET = env.str("PAYMENTS_WEBHOOK_SECRET", default="")
# Requests to the upstream through WSGI into this process (the mounted sandbox): tests and
# set-up commands that run before the server is listening.
PAYMENTS_API_IN_PROCESS = env.bool("PAYMENTS_API_IN_PROCESS", default=False)
# The same for management commands when the mounted sandbox's address has no server (manage.py).
PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED = env.bool("PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED", default=False)

# Transactions that count as stuck: PROCESSING past these hours, CREATED past these minutes.
STUCK_PROCESSING_HOURS = env.int("STUCK_PROCESSING_HOURS", default=4)
STUCK_CREATED_MINUTES = env.int("STUCK_CREATED_MINUTES", default=30)
# Compliance case work: hours a case may wait on us, and when a CREATED customer needs a person.
CUSTOMERS_REVIEW_SLA_HOURS = env.int("CUSTOMERS_REVIEW_SLA_HOURS", default=24)
CUSTOMERS_CREATED_STALE_MINUTES = env.int("CUSTOMERS_CREATED_STALE_MINUTES", default=60)
# Four-eyes on money: executes at or above this USD value, and every automation rule create or
# change, wait for a second staff member; requests lapse after the TTL; an approved execute whose
# quote expired is re-quoted and runs only if the destination amount moved at most this much.
APPROVAL_THRESHOLD_USD = Decimal(env.str("APPROVAL_THRESHOLD_USD", default="10000"))
APPROVAL_TTL_HOURS = env.int("APPROVAL_TTL_HOURS", default=24)
APPROVAL_PRICE_TOLERANCE_BPS = env.int("APPROVAL_PRICE_TOLERANCE_BPS", default=50)
# Notifications (docs/operations.md, "Notifications"): the periodic check's period and limits,
# when a transfer counts as stuck, a sync as stale and the inbox as backlogged, the tries of a
# delivery, the hour (UTC) of the daily digest, and the address links in e-mails start with.
NOTIFY_CHECK_SECONDS = env.int("NOTIFY_CHECK_SECONDS", default=300)
NOTIFY_STUCK_AFTER_MINUTES = env.int("NOTIFY_STUCK_AFTER_MINUTES", default=120)
NOTIFY_SYNC_AFTER_MINUTES = env.int("NOTIFY_SYNC_AFTER_MINUTES", default=60)
NOTIFY_INBOX_BACKLOG = env.int("NOTIFY_INBOX_BACKLOG", default=1000)
NOTIFY_LOOKBACK_HOURS = env.int("NOTIFY_LOOKBACK_HOURS", default=24)
NOTIFY_BATCH = env.int("NOTIFY_BATCH", default=200)
NOTIFY_DELIVERY_ATTEMPTS = env.int("NOTIFY_DELIVERY_ATTEMPTS", default=5)
NOTIFY_DIGEST_HOUR = env.int("NOTIFY_DIGEST_HOUR", default=7)
NOTIFY_SITE_URL = env.str("NOTIFY_SITE_URL", default="http://127.0.0.1:8000" if DEBUG else "")
CELERY_BEAT_SCHEDULE["notify-conditions"] = {
    "task": "notifications.tasks.check_conditions",
    "schedule": NOTIFY_CHECK_SECONDS,
}
# Hourly; the digests go out in the run of NOTIFY_DIGEST_HOUR, once a day.
CELERY_BEAT_SCHEDULE["notify-digests"] = {"task": "notifications.tasks.send_digests", "schedule": 3600}


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
