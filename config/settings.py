"""Chartroom settings: one module, driven by the environment.

With nothing set, Chartroom runs self-contained: SQLite and media under var/,
Celery tasks run eagerly in-process, DEBUG on and a generated secret key kept in
var/. DATABASE_URL and CELERY_BROKER_URL switch to PostgreSQL and a real broker.
"""

from __future__ import annotations

import os
import secrets
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.env import envbool, envint, envlist
from config.pooler import pooled_database
from config.security import weak_secret_key_reason
from config.storage_settings import public_media_origins, storage_mode, storages_from_env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CHARTROOM_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

TESTING = "pytest" in sys.modules or os.environ.get("CHARTROOM_TESTING") == "1"
DEBUG = envbool("DJANGO_DEBUG", True)

# Arrow's allocator for every process: Arrow reads this once, when pyarrow is first imported
# (pandas imports it too), so it is set here, before any of them. Arrow's default (mimalloc)
# keeps the memory it freed and sets itself up on first use; the system allocator hands it
# back. A responses Parquet export of 1.12 M rows peaked 17 MiB lower with it. A pool passed
# in code does not help: the Parquet writer's column buffers come from the default pool
# whatever pool the writer is given. An operator's own setting wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY", "").strip()
    if key:
        return key
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_DEBUG=0 needs SECRET_KEY set to a long random string.")
    # A development key is generated once and kept, so sessions survive restarts.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("DJANGO_DEBUG=0 needs ALLOWED_HOSTS (comma-separated host names).")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# HTTPS, HSTS, the login throttle and the Content-Security-Policy: see "security" below.

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "studies",
    "annotation",
    "demo",
]

MIDDLEWARE = [
    "core.middleware.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # APPEND_SLASH that keeps a POST a POST (core/slash.py).
    "core.slash.SlashCommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.middleware.PrivateResponsesMiddleware",
    "core.lazy_messages.LazyMessageMiddleware",
    "core.middleware.ServiceErrorMiddleware",
    # A GET of a button's address (after signing in again) goes to the button's page.
    "core.button_addresses.ButtonAddressMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "core.context_processors.navigation",
            ],
        },
    }
]

# --- database ---------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    if DATABASE_URL.startswith("sqlite:"):
        # The embedded SQLite database has settings a URL cannot carry (locking, WAL).
        raise ImproperlyConfigured(
            "DATABASE_URL does not take sqlite:// URLs. For SQLite leave DATABASE_URL unset: "
            "the database is chartroom.sqlite3 in CHARTROOM_VAR_DIR (default: var/ in the "
            "checkout), so set CHARTROOM_VAR_DIR to put it elsewhere."
        )
    if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
        raise ImproperlyConfigured("DATABASE_URL must be a postgres:// URL (psycopg 3).")
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=envint("DB_CONN_MAX_AGE", 60))
    }
    # No CONN_HEALTH_CHECKS: it costs a "SELECT 1" round trip at the start of every
    # request (12% of a worker's time under participant load). A connection that died
    # (PostgreSQL restarted) fails the one request that uses it; Django marks it on that
    # error and closes it at the end of the request, so the next request reconnects.
    # The participant page retries a failed answer with its idempotency key, so nothing
    # is lost or stored twice (core/tests/test_db_reconnect.py).
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "chartroom.sqlite3",
            "OPTIONS": {
                # Writers queue instead of failing with "database is locked" under a
                # few concurrent users of the demo server.
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "core.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast tests only

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
# The languages participants and annotators can be shown; the platform's own strings are
# translated in locale/ (README, "Adding a language"). English is the source text.
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request without it
# Files browsers ask for at the site's root (favicon.ico), served by WhiteNoise like static files.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
PRIVATE_MEDIA_ROOT = Path(os.environ.get("PRIVATE_MEDIA_ROOT", VAR_DIR / "private"))
# --- file storage (several machines: config/storage_settings.py) ----------------------------
# Public chart images ("default") and private files ("private": uploads, exports, job results)
# in MEDIA_ROOT and PRIVATE_MEDIA_ROOT, or with CHARTROOM_STORAGE=s3 in two S3-compatible
# buckets that every node shares.
CHARTROOM_STORAGE = storage_mode()
STORAGES = {
    **storages_from_env(),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
# --- end of file storage ----------------------------------------------------------------------

# Bodies larger than this are refused before a view sees them; file uploads have
# their own, larger limit checked by the upload validators.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("DATA_UPLOAD_MAX_MEMORY_SIZE", 2 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
CHARTROOM_MAX_UPLOAD_BYTES = envint("CHARTROOM_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
CHARTROOM_MAX_IMAGE_BYTES = envint("CHARTROOM_MAX_IMAGE_BYTES", 10 * 1024 * 1024)
CHARTROOM_MAX_IMAGE_PIXELS = envint("CHARTROOM_MAX_IMAGE_PIXELS", 40_000_000)
# Caption uploads (file and images together) larger than this are imported by a background
# job instead of in the request, which a web worker's timeout would cut short.
CHARTROOM_CAPTIONS_INLINE_BYTES = envint("CHARTROOM_CAPTIONS_INLINE_BYTES", 5 * 1024 * 1024)

# --- cache ------------------------------------------------------------------------------------
# Computed reports (e.g. the model analyses) are cached under a digest of their inputs. With
# several web processes a shared Redis cache computes each once; without CACHE_URL each
# process keeps its own in memory.
CACHE_URL = os.environ.get("CACHE_URL", "").strip()
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://")):
    raise ImproperlyConfigured("CACHE_URL must be a redis:// URL.")
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "chartroom-test" if TESTING else "chartroom",
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip()
if CELERY_BROKER_URL and not CELERY_BROKER_URL.startswith(("redis://", "rediss://", "amqp://")):
    raise ImproperlyConfigured("CELERY_BROKER_URL must be a redis:// or amqp:// URL.")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A worker process that dies mid-job gives its message back (see the visibility timeout below).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "chartroom")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- background jobs: time limits, heartbeats, the sweep ------------------------------------
# A running job writes a heartbeat to its row every CHARTROOM_JOB_STALE_SECONDS / 5 (a thread
# beside the work, so a long quiet step counts as alive). A job whose heartbeat is older than
# the stale limit lost its worker: the sweep, run every CHARTROOM_JOB_SWEEP_SECONDS (Celery
# beat, or a thread of each web process without a broker), re-queues it when its kind is safe
# to repeat and fails it with "the worker stopped; run it again" otherwise.
CHARTROOM_JOB_STALE_SECONDS = envint("CHARTROOM_JOB_STALE_SECONDS", 5 * 60)
CHARTROOM_JOB_SWEEP_SECONDS = envint("CHARTROOM_JOB_SWEEP_SECONDS", 60)
# The longest a job may run: Celery raises in it after this (the job fails with a message)
# and kills its process a minute later.
CHARTROOM_JOB_TIME_LIMIT = envint("CHARTROOM_JOB_TIME_LIMIT", 2 * 60 * 60)
# Redis hands a message that was taken but not acknowledged to another worker after this
# long. Jobs acknowledge at the end (acks_late), so it must outlast the longest job, or a
# healthy long job's message would be delivered twice; dead workers are the sweep's
# business, not the broker's, so nothing is gained by making it short. By default a message
# comes back only after its job's hard time limit and a stale limit more, when the sweep has
# already ended the job and the redelivered message finds nothing to do.
CELERY_VISIBILITY_TIMEOUT = envint(
    "CELERY_VISIBILITY_TIMEOUT", CHARTROOM_JOB_TIME_LIMIT + 60 + CHARTROOM_JOB_STALE_SECONDS
)
if CHARTROOM_JOB_STALE_SECONDS < 2 or CHARTROOM_JOB_SWEEP_SECONDS < 1:
    raise ImproperlyConfigured(
        "CHARTROOM_JOB_STALE_SECONDS must be at least 2 and CHARTROOM_JOB_SWEEP_SECONDS at least 1."
    )
if CELERY_VISIBILITY_TIMEOUT <= CHARTROOM_JOB_TIME_LIMIT + 60:
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT ({CELERY_VISIBILITY_TIMEOUT} s) must be longer than "
        f"CHARTROOM_JOB_TIME_LIMIT ({CHARTROOM_JOB_TIME_LIMIT} s) plus a minute, or the broker "
        "gives a running job's message to a second worker; raise it or lower the time limit."
    )
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
CELERY_TASK_SOFT_TIME_LIMIT = CHARTROOM_JOB_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = CHARTROOM_JOB_TIME_LIMIT + 60
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-jobs": {
        "task": "core.sweep_stale_jobs",
        "schedule": float(CHARTROOM_JOB_SWEEP_SECONDS),
        # Sweeps that wait in the queue while no worker runs are dropped: one is enough.
        "options": {"expires": float(CHARTROOM_JOB_SWEEP_SECONDS)},
    }
}
# Where jobs run: "celery" (the broker's workers; in-process and at once without a broker, as
# the tests use) or "local" (threads of the web process, so a request never waits for a job).
CHARTROOM_JOB_RUNNER = os.environ.get(
    "CHARTROOM_JOB_RUNNER", "celery" if CELERY_BROKER_URL or TESTING else "local"
).strip()
if CHARTROOM_JOB_RUNNER not in ("celery", "local"):
    raise ImproperlyConfigured("CHARTROOM_JOB_RUNNER must be celery or local.")
CHARTROOM_LOCAL_JOB_THREADS = envint("CHARTROOM_LOCAL_JOB_THREADS", 1)

# --- REST API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # DRF's own, but for JSON nested too deeply to parse (a 400, not a 500).
    "DEFAULT_PARSER_CLASSES": [
        "core.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Chartroom API",
    "DESCRIPTION": (
        "Chart studies, caption annotation and their statistics. Authenticate with "
        "`Authorization: Token <key>` (create keys on the API tokens page) or a browser session."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api.schema.add_standard_error_responses",
        # Operations grouped by resource (studies, results, projects ...) with descriptions.
        "core.api.schema_tags.tag_operations_by_resource",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "client_errors": {"()": "core.log_filters.ClientErrorsWithoutTraceback"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["client_errors"]},
        # Django's own: errors e-mailed to ADMINS (when set) without DEBUG.
        "mail_admins": {
            "level": "ERROR",
            "filters": ["require_debug_false"],
            "class": "django.utils.log.AdminEmailHandler",
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # Django's own console handler (DEBUG only) would print every django.* line a second
    # time beside the root's; its records reach the root's handler instead.
    "loggers": {
        "django": {"handlers": ["mail_admins"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    },
}

# --- security ---------------------------------------------------------------------------------
# Everything that hardens a deployment, in one place. DJANGO_DEBUG=0 turns on HTTPS-only
# cookies, the SSL redirect and HSTS; each has a switch for set-ups that need another value.
if not DEBUG and (reason := weak_secret_key_reason(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"DJANGO_DEBUG=0 refuses this SECRET_KEY: {reason}. Generate one with "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
    )
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Behind a proxy that terminates TLS, Django sees plain HTTP: name the header the proxy
# sets (SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto) so it knows the request was https.
# Only set it when such a proxy is in front and overwrites the header: a client could
# otherwise claim https itself. It also makes the login throttle read the client's
# address from X-Forwarded-For (core.security.client_ip).
_proxy_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip()
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https") if _proxy_header else None
)
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
    # Preloading is a request to browser vendors that only the domain's owner can make;
    # the deploy check's reminder about it is not a fault of this configuration.
    SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Content-Security-Policy (django-csp) on every response: scripts and styles only from this
# site's static files (no inline <script>, on*= handlers or style= attributes in templates;
# a template that truly needs an inline script uses {{ request.csp_nonce }}). Images may be
# data: URLs (previews drawn in the browser). Forms may post to https: addresses only
# because a finished participant's redirect to the completion URL follows a form post.
INSTALLED_APPS += ["csp"]
MIDDLEWARE += ["core.csp.CachedPolicyCSPMiddleware", "core.middleware.CspAdjustMiddleware"]
# With DEBUG on, visitors get the project's 404 and 500 pages; staff, or everyone with
# CHARTROOM_DEBUG_PAGES=1, get Django's debug pages (core/debug_pages.py). Listed after
# CommonMiddleware (APPEND_SLASH) and AuthenticationMiddleware (who is staff).
CHARTROOM_DEBUG_PAGES = envbool("CHARTROOM_DEBUG_PAGES", False)
MIDDLEWARE += ["core.debug_pages.DebugErrorPagesMiddleware"]
DEFAULT_EXCEPTION_REPORTER = "core.debug_reporter.StaffOnlyExceptionReporter"
# A stale form or a missing cookie, said in words a person can act on (core/views.py).
CSRF_FAILURE_VIEW = "core.views.csrf_failure"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "media-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF, "https:"],
    }
}

# Login throttle (django-axes): failed sign-ins are counted per account and per address
# in the database (shared by every web process); at the limit that account, or that
# address, is locked out for the cool-off time. `manage.py axes_reset` (or axes_reset_username
# NAME / axes_reset_ip ADDRESS) and the admin's "Access attempts" page lift a lock early.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last, as axes requires
AUTHENTICATION_BACKENDS = [
    "core.auth_backends.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("CHARTROOM_LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=envint("CHARTROOM_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one reaching the limit locks
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_LOCKOUT_CALLABLE = "core.views.locked_out"  # the same template, in the reader's language
AXES_CLIENT_IP_CALLABLE = "core.security.client_ip"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the lock ends when it said it would
AXES_VERBOSE = False
# Annotator sign-up is not a failed login, so axes does not see it: each address may
# create this many accounts per hour (core.security.rate_limit_hit, in the cache).
CHARTROOM_SIGNUP_LIMIT = envint("CHARTROOM_SIGNUP_LIMIT", 20)
CHARTROOM_SIGNUP_WINDOW_SECONDS = envint("CHARTROOM_SIGNUP_WINDOW_SECONDS", 3600)
# Consents and declines accepted from one address into one study per window (a whole class
# behind one address fits); more answer 429 with a message (core.security.arrivals_throttled).
CHARTROOM_ARRIVALS_LIMIT = envint("CHARTROOM_ARRIVALS_LIMIT", 300)
CHARTROOM_ARRIVALS_WINDOW_SECONDS = envint("CHARTROOM_ARRIVALS_WINDOW_SECONDS", 3600)

# --- several machines (README "Running on several machines") ---------------------------------
# Many web and worker nodes share PostgreSQL, Redis and two buckets; nothing that one request
# leaves behind may stay on one node's disk or in one process's memory.
# A connection pooler: DATABASE_URL then points at PgBouncer (config/pooler.py says why each
# setting).
DB_POOLER = os.environ.get("DB_POOLER", "").strip()
if DB_POOLER:
    if not DATABASE_URL:
        raise ImproperlyConfigured("DB_POOLER needs DATABASE_URL (the pooler's address).")
    DATABASES["default"] = pooled_database(DATABASES["default"], DB_POOLER)
# Chart images come from the bucket's origin when it is not this site.
CONTENT_SECURITY_POLICY["DIRECTIVES"]["img-src"] += public_media_origins()
if CHARTROOM_STORAGE == "s3" and not os.environ.get("SECRET_KEY", "").strip():
    # The generated key is per var/ folder, so per node: a session or CSRF token signed by
    # one node would be refused by the next.
    raise ImproperlyConfigured(
        "CHARTROOM_STORAGE=s3 (several nodes) needs SECRET_KEY set, the same on every node."
    )
# --- end of several machines ------------------------------------------------------------------
