"""Headroom's one settings module, read from the environment only.

Every variable is listed in ``docker/.env.example`` and in the README's
configuration table. Bad values stop the process at start-up (``webapp.env``).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from webapp.env import (
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_secret,
    env_size,
    env_str,
)
from webapp.ops.logs import formatter_config

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("HEADROOM_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_secret("SECRET_KEY", "insecure-development-key-change-me" if DEBUG else None)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "webapp.accounts",  # before admin: its sign-in and password templates win
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "webapp.core",
    "webapp.timeseries",
    "webapp.api",
    "webapp.dashboard",
    "webapp.sharing",
    "webapp.ops",
    "webapp.notify",
    "ninja",  # its static files: /api/v1/docs serves Swagger UI from here, not a CDN
    "axes",  # sign-in lockouts (webapp/accounts)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "webapp.api.gzip_request.GzipRequestMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "webapp.core.security.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into the lockout page
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webapp.core.security.csp_nonce",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/headroom"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int(
    "DATABASE_CONNECT_TIMEOUT", 5, minimum=1
)
# Our queries are short index range scans; PostgreSQL's JIT adds 200-800 ms to them.
DATABASES["default"]["OPTIONS"].setdefault("options", "-c jit=off")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "headroom@localhost")
# SMTP, read by django.core.mail.backends.smtp.EmailBackend.
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_secret("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured(
        "EMAIL_USE_TLS and EMAIL_USE_SSL are exclusive: STARTTLS (usually port 587) or SSL (usually 465)"
    )
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)

# --- Abuse limits (webapp/api/ratelimit.py) -----------------------------------
# Every per-address limit uses ratelimit.client_address: REMOTE_ADDR, or, when a
# reverse proxy sets this header (e.g. X-Forwarded-For), the address the proxies
# recorded. Never set it without such a proxy: clients could then pick their address.
TRUSTED_PROXY_HEADER = env_str("HEADROOM_TRUSTED_PROXY_HEADER", "").strip()
TRUSTED_PROXY_COUNT = env_int("HEADROOM_TRUSTED_PROXY_COUNT", 1, minimum=1)
# Unknown share-link tokens one address may try per minute; valid links always open.
SHARE_MISSES_PER_MINUTE = env_int("HEADROOM_SHARE_MISSES_PER_MINUTE", 20, minimum=0)
# Password-reset mails per hour, per client address and per e-mail address asked for.
PASSWORD_RESET_PER_ADDRESS = env_int("HEADROOM_PASSWORD_RESETS_PER_ADDRESS", 5, minimum=0)
PASSWORD_RESET_PER_ACCOUNT = env_int("HEADROOM_PASSWORD_RESETS_PER_ACCOUNT", 3, minimum=0)
# Sign-in lockouts (django-axes, counted in the database): this many failures for
# one user name from one address lock that pair out for the cool-off; 0 turns it off.
AXES_FAILURE_LIMIT = env_int("HEADROOM_LOGIN_FAILURE_LIMIT", 5, minimum=0)
AXES_ENABLED = AXES_FAILURE_LIMIT > 0
AXES_COOLOFF_TIME = timedelta(minutes=env_int("HEADROOM_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
# The pair, not the address alone: colleagues behind one NAT, or everyone behind a
# proxy without HEADROOM_TRUSTED_PROXY_HEADER, do not lock each other out.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "webapp.api.ratelimit.client_address"
AXES_RESET_ON_SUCCESS = True
# A locked-out attempt does not restart the cool-off, so the page's "try again in" holds.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
# Our scripts, styles and the vendored Chart.js builds live in frontend/ (issue 24).
# Each tree is served under its own prefix, so frontend/'s package.json,
# vendor.py and README are neither served nor collected.
FRONTEND_DIR = BASE_DIR / "frontend"
STATICFILES_DIRS = [(name, FRONTEND_DIR / name) for name in ("headroom", "sharing", "vendor")]
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

# --- Raw upload store -------------------------------------------------------
# Raw bytes are written before anything else and kept, so any upload can be
# re-parsed after a parser fix. Filesystem by default; S3-compatible storage
# (MinIO, AWS) when HEADROOM_RAW_STORAGE=s3.
RAW_STORAGE = env_choice("HEADROOM_RAW_STORAGE", "filesystem", ("filesystem", "s3"))
RAW_DIR = Path(env_str("HEADROOM_RAW_DIR", str(VAR_DIR / "raw")))
if RAW_STORAGE == "s3":
    STORAGES["raw"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("HEADROOM_S3_BUCKET", "headroom-raw"),
            "endpoint_url": env_str("HEADROOM_S3_ENDPOINT_URL", "") or None,
            "access_key": env_secret("HEADROOM_S3_ACCESS_KEY", ""),
            "secret_key": env_secret("HEADROOM_S3_SECRET_KEY", ""),
            "region_name": env_str("HEADROOM_S3_REGION", "") or None,
            "file_overwrite": False,
        },
    }
else:
    STORAGES["raw"] = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(RAW_DIR), "file_permissions_mode": 0o640},
    }

# --- Limits ------------------------------------------------------------------
MAX_UPLOAD_SIZE = env_size("HEADROOM_MAX_UPLOAD_SIZE", 1024**3)
MAX_DECOMPRESSED_SIZE = env_size("HEADROOM_MAX_DECOMPRESSED_SIZE", 4 * 1024**3)
# A gzip body may inflate to at most this many times the compressed bytes read so
# far (past 1 MiB); real files gzip 4-32x (docs/limits.md). 0 = no ratio cap.
MAX_GZIP_RATIO = env_int("HEADROOM_MAX_GZIP_RATIO", 100, minimum=0)
MAX_COLUMNS = env_int("HEADROOM_MAX_COLUMNS", 20_000, minimum=1)
MAX_LINE_BYTES = env_size("HEADROOM_MAX_LINE_BYTES", 16 * 1024**2)
MAX_BATCH_ITEMS = env_int("HEADROOM_MAX_BATCH_ITEMS", 100_000, minimum=1)
# Requests one agent token may make per minute (fixed window, counted in the
# broker's Redis; 0 = no limit). Without Redis as broker there is no limit.
TOKEN_RATE_PER_MINUTE = env_int("HEADROOM_TOKEN_RATE_PER_MINUTE", 600, minimum=0)
# Django buffers request bodies above this to a temporary file, never in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024**2
DATA_UPLOAD_MAX_MEMORY_SIZE = env_size("HEADROOM_MAX_JSON_BODY", 32 * 1024**2)
FILE_UPLOAD_TEMP_DIR = env_str("HEADROOM_UPLOAD_TMP_DIR", "") or None

# --- Time-series storage (see webapp/timeseries/backend.py) -------------------
TIMESCALE = env_choice("HEADROOM_TIMESCALE", "auto", ("auto", "on", "off"))
TIMESCALE_CHUNK_INTERVAL_DAYS = env_int("HEADROOM_CHUNK_INTERVAL_DAYS", 7, minimum=1)
TIMESCALE_COMPRESS_AFTER_DAYS = env_int("HEADROOM_COMPRESS_AFTER_DAYS", 30, minimum=0)
# Raw counter samples expire this many days after their upload was stored (workers/retention.py);
# results and raw bytes are kept. 0 keeps samples forever. Both modes.
TIMESCALE_RETENTION_DAYS = env_int("HEADROOM_RETENTION_DAYS", 0, minimum=0)

# --- Celery (the app file workers/celery.py stays tiny) -----------------------
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _folder = str(VAR_DIR / "broker")
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": _folder,
        "data_folder_out": _folder,
        "processed_folder": str(VAR_DIR / "broker-processed"),
        "control_folder": str(VAR_DIR / "broker-control"),
        "store_processed": False,
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# The API must answer fast when the broker is down: the upload stays
# 'received' and the sweeper queues it later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Prefork whose idle pool processes hold no lock a SIGKILL could leave taken (workers/prefork.py);
# it matters where Celery runs no event loop: the filesystem broker of `make run`.
CELERY_WORKER_POOL = "workers.prefork:TaskPool"
CELERY_TASK_SOFT_TIME_LIMIT = env_int("HEADROOM_TASK_SOFT_TIME_LIMIT", 1800, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("HEADROOM_TASK_TIME_LIMIT", 1900, minimum=1)
CELERY_TASK_DEFAULT_QUEUE = "ingest"
CELERY_TASK_QUEUES = (Queue("ingest"), Queue("maintenance"))
CELERY_TASK_ROUTES = {
    "workers.tasks.ingest_upload": {"queue": "ingest"},
    "workers.tasks.refresh_rollups": {"queue": "maintenance"},
    "workers.tasks.sweep_uploads": {"queue": "maintenance"},
    "workers.tasks.expire_raw_samples": {"queue": "maintenance"},
    "webapp.notify.tasks.recompute_campaign": {"queue": "maintenance"},
    "webapp.notify.tasks.deliver": {"queue": "maintenance"},
}
CELERY_TASK_ALWAYS_EAGER = False
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULE = {
    "refresh-rollups": {"task": "workers.tasks.refresh_rollups", "schedule": 60.0},
    "sweep-uploads": {"task": "workers.tasks.sweep_uploads", "schedule": 60.0},
    "expire-raw-samples": {"task": "workers.tasks.expire_raw_samples", "schedule": 3600.0},
}
WORKER_HEARTBEAT_SECONDS = env_int("HEADROOM_WORKER_HEARTBEAT_SECONDS", 10, minimum=1)
WORKER_STALE_SECONDS = env_int("HEADROOM_WORKER_STALE_SECONDS", 60, minimum=1)
INGEST_MAX_RETRIES = env_int("HEADROOM_INGEST_MAX_RETRIES", 8, minimum=0)
# The sweeper queues an upload still 'received' after this long (broker outage).
SWEEP_AFTER_SECONDS = env_int("HEADROOM_SWEEP_AFTER_SECONDS", 30, minimum=0)
# ... and sends an upload still 'queued' after this long again (its message may be lost).
REQUEUE_AFTER_SECONDS = env_int("HEADROOM_REQUEUE_AFTER_SECONDS", 600, minimum=1)

# --- Notifications (webapp/notify, docs/notifications.md) ----------------------
# Links in webhooks and e-mails start with this (e.g. https://headroom.example.com); empty: paths only.
PUBLIC_URL = env_str("HEADROOM_PUBLIC_URL", "").strip().rstrip("/")
# Seconds between an upload being stored and its campaign's answers being recomputed:
# uploads stored meanwhile ride along (one recomputation, at most one notification).
NOTIFY_DELAY_SECONDS = env_int("HEADROOM_NOTIFY_DELAY_SECONDS", 30, minimum=0)
# Seconds before each retry of a failed webhook or e-mail; attempts = retries + 1.
_delays = env_list("HEADROOM_WEBHOOK_RETRY_DELAYS", ["30", "120", "600", "3600"])
if not all(d.isdigit() for d in _delays):
    raise ImproperlyConfigured(
        f"HEADROOM_WEBHOOK_RETRY_DELAYS={','.join(_delays)!r}: expected seconds, e.g. 30,120,600,3600"
    )
WEBHOOK_RETRY_DELAYS = [int(d) for d in _delays]
WEBHOOK_TIMEOUT = env_int("HEADROOM_WEBHOOK_TIMEOUT", 5, minimum=1)
# Webhooks to loopback, private, link-local and other non-global addresses are refused
# (a project owner must not reach the server's own network through us). Tests turn it on.
WEBHOOK_ALLOW_PRIVATE = env_bool("HEADROOM_WEBHOOK_ALLOW_PRIVATE", False)

# --- Cache (share-link and API rate limits) ----------------------------------
CACHE_TABLE = "headroom_cache"
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CELERY_BROKER_URL,
            # A dead Redis must not hold up a page: the limits fail open (webapp/api/ratelimit.py).
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
        if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
        # Not per-process memory: every gunicorn worker must count the same limits
        # (share-link guesses, reset mails). The table comes with the migrations.
        else {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": CACHE_TABLE}
    )
}

# --- Logging -----------------------------------------------------------------
LOG_LEVEL = env_choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error")).upper()
# json: one JSON object per line (webapp/ops/logs.py) for web, worker and beat.
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("text", "json"))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"default": formatter_config(LOG_FORMAT)},
    # Share-link tokens in request paths ("Not Found: /s/hs_...") are cut to their hint.
    "filters": {"share_tokens": {"()": "webapp.ops.redact.ShareTokenFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "default", "filters": ["share_tokens"]}
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Metrics (webapp/ops/metrics.py) ------------------------------------------
# /metrics answers only a request bearing this token; empty disables the endpoint (404).
METRICS_TOKEN = env_secret("HEADROOM_METRICS_TOKEN", "")

# --- Production hardening -----------------------------------------------------
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("HEADROOM_BEHIND_TLS_PROXY", False) else None
)
SESSION_COOKIE_SECURE = env_bool("HEADROOM_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Secure by default in production; `make run` (plain http on a laptop) turns these off.
SECURE_SSL_REDIRECT = env_bool("HEADROOM_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]  # probes speak plain http inside the network
SECURE_HSTS_SECONDS = env_int("HEADROOM_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HEADROOM_HSTS_INCLUDE_SUBDOMAINS", False)
CSP_ENABLED = env_bool("HEADROOM_CSP", not DEBUG)
# Preloading HSTS is a commitment an operator makes for the whole domain, not a default.
SILENCED_SYSTEM_CHECKS = ["security.W021", "security.W005"]
