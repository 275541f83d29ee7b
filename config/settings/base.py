"""Settings shared by every environment.

Values that differ between machines come from environment variables (read with
django-environ); `local.py`, `production.py` and `test.py` adjust the rest.
"""
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# --- Core
# SECRET_KEY has no default anywhere: production takes DJANGO_SECRET_KEY, the
# embedded default generates one per checkout (local.py), tests set their own.
DEBUG: bool = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS: list[str] = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Applications
INSTALLED_APPS = [
    # django.contrib.admin, its site recording every change in the staff audit log (staff/admin_site.py).
    "staff.apps.StaffAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "compressor",
    "csp",
    "axes",
    # What every app stands on (infra/), then the domain from the bottom up (config/tests/test_layout.py checks that
    # imports run this way).
    "infra",
    "surveys",
    "respondents",
    "accounts",
    "publishing",
    "rosters",
    "exports",
    "monitoring",
    "results",
    "demo",
    # The screens.
    "taking",
    "staff",
]

MIDDLEWARE = [
    "infra.request_guard.RequestGuardMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, with the header built once per process (infra/csp.py).
    "infra.csp.CSPMiddleware",
    # Gives up a staff sign-in's claims on the login limits and sets the device cookie of a successful one.
    "staff.sign_in_limits.StaffSignInMiddleware",
    # Innermost but axes: a database or Redis away for a moment is answered 503, not 500.
    "infra.faults.RetryableFaultMiddleware",
    # Last, as django-axes asks: turns a refused staff sign-in into its lockout answer.
    "axes.middleware.AxesMiddleware",
]

TEMPLATES = [
    # Django templates first: render() tries the engines in this order, and a miss in Jinja2 (every page but the
    # fragment) cost a TemplateDoesNotExist and a look in every app's jinja2/ folder each time (docs/performance.md).
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Every template lives in its app's templates/ folder (APP_DIRS).
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "taking.context_processors.switch_languages",
            ],
        },
    },
    {
        # The survey page fragment only (taking/jinja2/): the hottest template.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"environment": "infra.jinja2.environment", "autoescape": True},
    },
]

# --- Database
# The embedded default is SQLite; production points DATABASE_URL at pgbouncer.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}

# --- Cache
# django-cache-machine stores the survey-definition models in the default cache.
CACHES = {
    "default": env.cache("CACHE_URL", default="locmemcache://survey-definitions"),
    # Login-limit counters (staff/sign_in_limits.py, respondents/login_limits.py): apart from the definition
    # cache, which clearing definitions empties.
    "ratelimit": env.cache("RATELIMIT_CACHE_URL", default="locmemcache://login-limits"),
}
CACHE_PREFIX: str = env("CACHE_PREFIX", default="survey-dj52")
# Empty results (a page with no choice questions) are cached too, so a warm page
# never falls through to the database; creates flush the whole model's queries
# because cache-machine otherwise invalidates only through FK parents.
CACHE_EMPTY_QUERYSETS = True
CACHE_INVALIDATE_ON_CREATE = "whole-model"
# count() results cannot be invalidated: never cache them.
CACHE_COUNT_TIMEOUT = -1

# --- Replica routing (used when a replica is configured; see infra/db_router.py)
MASTER_DATABASE = "default"
MASTER_PINNING_KEY = "master_pinned"
MASTER_PINNING_SECONDS: int = env.int("MASTER_PINNING_SECONDS", default=5)
REPLICA_MAX_LAG_SECONDS: float = env.float("REPLICA_MAX_LAG_SECONDS", default=10)
REPLICA_CHECK_SECONDS: float = env.float("REPLICA_CHECK_SECONDS", default=5)
# Survey definitions do not change while people take a survey: inside the
# survey-taking views they are read from a replica even by a pinned client.
FORCED_READ_MODELS = ["surveys.Survey", "surveys.Page", "surveys.Question", "surveys.Choice"]

# --- Sessions
# Only the respondent's id lives in the session; see docs/architecture.md. The
# session is kept on the server (here the database behind the cache; Redis in
# production), never in a signed cookie, so logging out or timing out ends it.
SESSION_ENGINE: str = env("DJANGO_SESSION_ENGINE", default="django.contrib.sessions.backends.cached_db")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# School computers are shared: the session ends when the browser closes, and
# after this long without a request (taking/respondent_session.py), with a
# warning SESSION_IDLE_WARNING_SECONDS before and a "keep me signed in" button.
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_IDLE_TIMEOUT_SECONDS: int = env.int("SESSION_IDLE_TIMEOUT_SECONDS", default=60 * 60)
SESSION_IDLE_WARNING_SECONDS: int = env.int("SESSION_IDLE_WARNING_SECONDS", default=5 * 60)
# How long the store keeps a session; every request within it renews it.
SESSION_COOKIE_AGE = SESSION_IDLE_TIMEOUT_SECONDS

# --- Security
CSRF_FAILURE_VIEW = "taking.views.csrf_failure"
X_FRAME_OPTIONS = "DENY"
# No inline script or style anywhere (the survey's and the admin's pages load
# theirs from files), so an injected <script> cannot run. django-csp's format
# is the one Django 6's SECURE_CSP takes.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    },
}

# --- Auth (staff only; respondents log in with an access code)
LOGIN_URL = "staff:login"
LOGIN_REDIRECT_URL = "staff:home"
# The login limits' backends first: they refuse a paused or slowed sign-in before the password is hashed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "staff.sign_in_limits.StaffSignInDelayBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Staff passwords and email (docs/operations.md, "Email and single sign-on")
# Local passwords: signing in with a user name and password, the password reset by email, and the "set your
# password" email a new account gets. Off (STAFF_LOCAL_PASSWORDS=0) where the agency's identity provider is the only
# way in: then nobody signs in with a password, /admin/ included.
STAFF_LOCAL_PASSWORDS: bool = env.bool("STAFF_LOCAL_PASSWORDS", default=True)
if not STAFF_LOCAL_PASSWORDS:
    AUTHENTICATION_BACKENDS = [path for path in AUTHENTICATION_BACKENDS
                               if path != "django.contrib.auth.backends.ModelBackend"]
# The agency's SMTP relay as a URL (django-environ: smtp://host:25, smtp+tls://user:password@host:587,
# smtp+ssl://...); unset, messages are printed on the console (the embedded default: the link shows in runserver's
# output).
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL: str = env("DEFAULT_FROM_EMAIL", default="survey-office@localhost")
# Where staff reach the site: every link in a staff email, and where the identity provider sends someone back after
# signing out, name it; never a request's Host. The embedded default's is `make demo`'s (which sets its own port);
# production.py requires it. staff/checks.py refuses one that is not an absolute http(s) address.
STAFF_SITE_URL: str = env("STAFF_SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
# How long a "set your password" link works (Django's PASSWORD_RESET_TIMEOUT, seconds): a week, so that an account
# made on a Friday can still be set up after the weekend; a link works once.
PASSWORD_RESET_TIMEOUT: int = env.int("PASSWORD_RESET_TIMEOUT", default=7 * 24 * 60 * 60)
# How long a reset link works (seconds; at most PASSWORD_RESET_TIMEOUT): an hour, since whoever asked is waiting
# for it; a link in a mailbox read later by someone else opens nothing.
PASSWORD_RESET_LINK_SECONDS: int = env.int("PASSWORD_RESET_LINK_SECONDS", default=60 * 60)
# Reset requests: per client address, and per address asked about (django-ratelimit's rates).
PASSWORD_RESET_RATE_PER_CLIENT: str = env("PASSWORD_RESET_RATE_PER_CLIENT", default="20/h")
PASSWORD_RESET_RATE_PER_EMAIL: str = env("PASSWORD_RESET_RATE_PER_EMAIL", default="3/h")
# An account linked to single sign-on gets no password from an emailed link (a reset, or a set-your-password link):
# it signs in with the provider, whose own rules (a second factor, leaving the agency) a local password would
# bypass. 1 lets such accounts keep a local password by email too.
PASSWORD_RESET_SIGN_ON_ACCOUNTS: bool = env.bool("PASSWORD_RESET_SIGN_ON_ACCOUNTS", default=False)
# "Send the invitation again" (the staff list): at most this many set-your-password emails per account.
STAFF_INVITATION_RATE_PER_ACCOUNT: str = env("STAFF_INVITATION_RATE_PER_ACCOUNT", default="3/h")

# --- Single sign-on (OpenID Connect: staff/single_sign_on.py, accounts/sign_on.py)
# On when the agency's provider has given a client id. The endpoints are those of the provider's discovery
# document (ISSUER/.well-known/openid-configuration).
OIDC_RP_CLIENT_ID: str = env("OIDC_RP_CLIENT_ID", default="")
SINGLE_SIGN_ON = bool(OIDC_RP_CLIENT_ID)
OIDC_PROVIDER_NAME: str = env("OIDC_PROVIDER_NAME", default="your agency's sign-in")
OIDC_RP_CLIENT_SECRET: str = env("OIDC_RP_CLIENT_SECRET", default="")
OIDC_OP_AUTHORIZATION_ENDPOINT: str = env("OIDC_OP_AUTHORIZATION_ENDPOINT", default="")
OIDC_OP_TOKEN_ENDPOINT: str = env("OIDC_OP_TOKEN_ENDPOINT", default="")
OIDC_OP_USER_ENDPOINT: str = env("OIDC_OP_USER_ENDPOINT", default="")
OIDC_OP_JWKS_ENDPOINT: str = env("OIDC_OP_JWKS_ENDPOINT", default="")
# The provider's end_session_endpoint: signing out of the staff area signs out of the provider too (shared computers).
OIDC_OP_LOGOUT_ENDPOINT: str = env("OIDC_OP_LOGOUT_ENDPOINT", default="")
# Kept in the session for that sign-out (its id_token_hint).
OIDC_STORE_ID_TOKEN = True
OIDC_RP_SIGN_ALGO: str = env("OIDC_RP_SIGN_ALGO", default="RS256")
OIDC_RP_SCOPES: str = env("OIDC_RP_SCOPES", default="openid email profile")
OIDC_USE_PKCE = True
OIDC_TIMEOUT: int = env.int("OIDC_TIMEOUT", default=10)
OIDC_AUTHENTICATION_CALLBACK_URL = "staff:sign-on-callback"
# Which account a sign-in names (accounts/sign_on.py): the one linked to the subject; else, with OIDC_MATCH_EMAIL,
# the one with the provider's verified email; else, where OIDC_ROLE_MAPPING maps a value of the claim
# OIDC_ROLE_CLAIM to state_admin or analyst (e.g. OIDC_ROLE_MAPPING="survey-office=state_admin,survey-analysts=analyst"),
# a new account with that role.
OIDC_MATCH_EMAIL: bool = env.bool("OIDC_MATCH_EMAIL", default=True)
OIDC_ROLE_CLAIM: str = env("OIDC_ROLE_CLAIM", default="")
OIDC_ROLE_MAPPING: dict[str, str] = env.dict("OIDC_ROLE_MAPPING", default={})
if SINGLE_SIGN_ON:
    AUTHENTICATION_BACKENDS = [*AUTHENTICATION_BACKENDS, "staff.single_sign_on.StaffSignOnBackend"]
if SINGLE_SIGN_ON and OIDC_OP_LOGOUT_ENDPOINT:
    # The sign-out form's answer leads to the provider's end-session endpoint: browsers hold a form's redirects to
    # form-action too.
    _provider = urlsplit(OIDC_OP_LOGOUT_ENDPOINT)
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"] = [
        *CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"], f"{_provider.scheme}://{_provider.netloc}"]

# --- Login limits (staff/sign_in_limits.py, respondents/login_limits.py)
# How many proxies of our own stand in front of Django (nginx on the stack: 1).
TRUSTED_PROXY_COUNT: int = env.int("TRUSTED_PROXY_COUNT", default=0)
LOGIN_LIMITS_ENABLED: bool = env.bool("LOGIN_LIMITS_ENABLED", default=True)
# Respondents: failed codes per client address (a school may share one address), in a fixed window...
RESPONDENT_LOGIN_FAILURE_RATE: str = env("RESPONDENT_LOGIN_FAILURE_RATE", default="100/10m")
# ...with room for a school's typos: each respondent who logged in from the address in the window allows it this
# many more, up to the maximum (respondents/login_limits.py; docs/operations.md has the numbers).
RESPONDENT_LOGIN_FAILURES_PER_LOGIN: int = env.int("RESPONDENT_LOGIN_FAILURES_PER_LOGIN", default=1)
RESPONDENT_LOGIN_FAILURE_MAX: int = env.int("RESPONDENT_LOGIN_FAILURE_MAX", default=1000)
RATELIMIT_ENABLE = LOGIN_LIMITS_ENABLED
RATELIMIT_USE_CACHE = "ratelimit"
RATELIMIT_FAIL_OPEN = True
# Staff and /admin/: django-axes pauses one account at one address (the pair: a guesser elsewhere never
# pauses the account's owner), counted in the same cache.
AXES_ENABLED = LOGIN_LIMITS_ENABLED
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
AXES_CACHE = "ratelimit"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT: int = env.int("STAFF_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("STAFF_LOGIN_COOLOFF_MINUTES", default=15))
# A browser that signed in before (its device cookie) is not paused by others' failures.
AXES_WHITELIST_CALLABLE = "staff.sign_in_limits.staff_device_trusted"
# A lockout ends when its time is up, however many attempts come meanwhile.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "infra.clients.client_ip"
AXES_LOCKOUT_CALLABLE = "staff.sign_in_limits.staff_locked_out"
# Sign-ins go to the staff audit log; axes' own access log would write the database.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False
# Failures on one account from two addresses or more, or from one address on two accounts or more, slow the
# next attempt instead: past these counts each waits 1 s after the last failure, doubling, at most the cap.
STAFF_LOGIN_SLOW_AFTER_ACCOUNT_FAILURES: int = env.int("STAFF_LOGIN_SLOW_AFTER_ACCOUNT_FAILURES", default=5)
STAFF_LOGIN_SLOW_AFTER_ADDRESS_FAILURES: int = env.int("STAFF_LOGIN_SLOW_AFTER_ADDRESS_FAILURES", default=20)
STAFF_LOGIN_DELAY_MAX_SECONDS: int = env.int("STAFF_LOGIN_DELAY_MAX_SECONDS", default=60)
# Failures are forgotten this long after the last one (an account's also on its owner's next sign-in).
STAFF_LOGIN_FAILURE_WINDOW = timedelta(minutes=env.int("STAFF_LOGIN_FAILURE_WINDOW_MINUTES", default=60))
# How long a browser stays trusted for the account it last signed in to.
STAFF_DEVICE_COOKIE_AGE = timedelta(days=env.int("STAFF_DEVICE_COOKIE_DAYS", default=90))

# --- Internationalisation
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Spanish")]
# The respondent interface's catalogues live in its apps (taking/locale, surveys/locale); config/locale holds
# the error pages' (infra/errors.py, login limits). `make messages` extracts and compiles them.
LOCALE_PATHS = [BASE_DIR / "config" / "locale"]
TIME_ZONE: str = env("DJANGO_TIME_ZONE", default="America/Chicago")
USE_I18N = True
USE_TZ = True

# --- Static files and media
STATIC_URL = "/static/"
STATIC_ROOT: str = env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "compressor.finders.CompressorFinder",
]
# Libraries from npm (package-lock.json, fetched by `make install`): only their built files are served.
STATICFILES_DIRS = [("vendor/chart.js", BASE_DIR / "node_modules" / "chart.js" / "dist")]
# Files on this machine: uploads in MEDIA_ROOT (below), static files found in
# the apps. Production moves both to S3 when AWS_STORAGE_BUCKET_NAME is set.
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# How long a download link to a stored file (an export) works: a presigned S3
# URL's expiry in production (default_storage.url(name)).
EXPORT_LINK_SECONDS: int = env.int("EXPORT_LINK_SECONDS", default=300)

# --- django-compressor: {% compress %} blocks in the respondent and staff base
# templates. Off here, so they emit their files as they are; production turns
# it on, offline (deploy/stack up runs `manage.py compress`).
COMPRESS_ENABLED: bool = env.bool("COMPRESS_ENABLED", default=False)
COMPRESS_OFFLINE = False
COMPRESS_FILTERS = {
    "css": ["compressor.filters.css_default.CssAbsoluteFilter", "compressor.filters.cssmin.rCSSMinFilter"],
    "js": ["compressor.filters.jsmin.rJSMinFilter"],
}

# --- Celery
CELERY_BROKER_URL: str = env("CELERY_BROKER_URL", default="memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Periodic tasks (the stack's worker runs beat: deploy/stack). The monitoring
# pages read a summary this task rebuilds from a replica, never the live rows.
MONITORING_REFRESH_SECONDS: int = env.int("MONITORING_REFRESH_SECONDS", default=60)
# The embedded default has no beat: its monitoring pages rebuild the summary when they are read.
MONITORING_REFRESH_ON_REQUEST: bool = env.bool("MONITORING_REFRESH_ON_REQUEST", default=False)
# The results pages read answer counts this task rebuilds from a replica (results/aggregates.py): heavier than the
# completion summary (a GROUP BY over the answers), so less often.
RESULTS_REFRESH_SECONDS: int = env.int("RESULTS_REFRESH_SECONDS", default=600)
# The embedded default has no beat: its results pages rebuild the counts when they are read and stale (an answer
# saved, a respondent withdrawn or restored, a roster applied since), or older than this many seconds.
RESULTS_REFRESH_ON_REQUEST: bool = env.bool("RESULTS_REFRESH_ON_REQUEST", default=False)
RESULTS_REFRESH_ON_REQUEST_MAX_AGE: int = env.int("RESULTS_REFRESH_ON_REQUEST_MAX_AGE", default=300)
# A count of results under this many people (and above 0) is hidden, with a second one where a total would give it
# away; a selection of fewer respondents shows nothing (results/suppression.py).
RESULTS_SUPPRESSION_THRESHOLD: int = env.int("RESULTS_SUPPRESSION_THRESHOLD", default=10)
CELERY_BEAT_SCHEDULE = {
    "answer-counts": {
        "task": "results.tasks.answer_counts_refresh_task",
        "schedule": RESULTS_REFRESH_SECONDS,
        "options": {"expires": RESULTS_REFRESH_SECONDS},
    },
    "completion-summaries": {
        "task": "respondents.tasks.completion_summaries_refresh_task",
        "schedule": MONITORING_REFRESH_SECONDS,
        "options": {"expires": MONITORING_REFRESH_SECONDS},
    },
    # Exports whose worker went away (no heartbeat for EXPORT_STALE_SECONDS): failed, to be asked again.
    "exports-sweep": {
        "task": "respondents.tasks.export_jobs_sweep_task",
        "schedule": 30,
        "options": {"expires": 30},
    },
    # Exports past EXPORT_RETENTION_DAYS: their files deleted from storage.
    "exports-expire": {
        "task": "respondents.tasks.export_jobs_expire_task",
        "schedule": 60 * 60,
        "options": {"expires": 60 * 60},
    },
}

# --- Load and measurement tools (bench/)
# Installed where load is generated or measured: the embedded default, the tests, the one-box stack and the lab
# (BENCH_TOOLS=1 in their environment); never by a plain production deploy. The floor views (/bench/floor/) are
# on only where `make bench` measures (BENCH_FLOOR_VIEWS): they write rows for anyone who calls them.
BENCH_APPS = ["bench", "bench.floor"]
BENCH_FLOOR_VIEWS: bool = env.bool("BENCH_FLOOR_VIEWS", default=False)

# --- Request bodies
# Largest accepted request body: a page has a handful of questions. nginx's
# client_max_body_size is the same number (deploy/stack.conf), so an oversized
# body gets one clear 413 from either (infra/request_guard.py).
REQUEST_BODY_MAX_BYTES: int = env.int("REQUEST_BODY_MAX_BYTES", default=256 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
DATA_UPLOAD_MAX_NUMBER_FIELDS = 400

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    "loggers": {"caching": {"level": "WARNING"}},
}

# --- The largest file staff may upload (a school directory, a roster), in bytes.
UPLOAD_MAX_BYTES: int = env.int("UPLOAD_MAX_BYTES", default=200 * 1000 * 1000)
# The survey's public address (its login page), printed on code slips, in their QR codes and in the codes files;
# never a request's. The embedded default's is its own login page; production.py requires it.
SURVEY_PUBLIC_URL: str = env("SURVEY_PUBLIC_URL", default=f"{STAFF_SITE_URL}/")
# A school (or grade) with more code slips than this is printed by Celery with a progress bar.
SLIPS_INLINE_MAX: int = env.int("SLIPS_INLINE_MAX", default=400)
# Uploaded rosters wait here between their check and their apply; the web
# workers and Celery must share it (one box: a directory; several: S3).
MEDIA_ROOT: str = env("MEDIA_ROOT", default=str(BASE_DIR / "media"))

# --- Exports (exports/jobs.py)
# Finished exports are kept this many days, then a periodic task deletes them.
EXPORT_RETENTION_DAYS: int = env.int("EXPORT_RETENTION_DAYS", default=7)
# A running export's worker writes a heartbeat this often; one silent for EXPORT_STALE_SECONDS lost its worker
# (a killed machine: its task comes back only after the broker's visibility timeout, an hour) and is failed by
# the sweep (celery beat), so that the person sees it and asks again.
EXPORT_HEARTBEAT_SECONDS: int = env.int("EXPORT_HEARTBEAT_SECONDS", default=10)
EXPORT_STALE_SECONDS: int = env.int("EXPORT_STALE_SECONDS", default=60)
# Uploads over this size go to a temporary file rather than memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# --- Definition changes wait this long for replicas before invalidating the
# cache a second time (after that a Celery task does it; surveys/caching.py).
DEFINITION_REPLICA_WAIT_SECONDS: float = env.float("DEFINITION_REPLICA_WAIT_SECONDS", default=2)

# --- Exports (exports/writers.py)
# A de-identified export leaves out every school with fewer respondents than this.
EXPORT_SMALL_SCHOOL_MIN: int = env.int("EXPORT_SMALL_SCHOOL_MIN", default=10)
