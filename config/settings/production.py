"""Production: PostgreSQL through pgbouncer, memcached, Redis sessions, a Celery broker.

Everything that differs between deployments is an environment variable; see
docs/operations.md for the list and what each is for.
"""
from copy import deepcopy
from urllib.parse import quote

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import (
    BENCH_APPS,
    BENCH_FLOOR_VIEWS,
    CONTENT_SECURITY_POLICY,
    EXPORT_LINK_SECONDS,
    INSTALLED_APPS,
    MIDDLEWARE,
    env,
)

DEBUG = False
SECRET_KEY: str = env("DJANGO_SECRET_KEY")

# --- Load and measurement tools (bench/): the one-box stack and the lab only.
BENCH_TOOLS: bool = env.bool("BENCH_TOOLS", default=False)
if BENCH_TOOLS:
    INSTALLED_APPS = [*INSTALLED_APPS, *BENCH_APPS]
elif BENCH_FLOOR_VIEWS:
    raise ImproperlyConfigured("BENCH_FLOOR_VIEWS needs BENCH_TOOLS=1: the floor views are a bench tool")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
# The addresses staff emails and code slips name: the site's own, never guessed (base.py says what each is for).
STAFF_SITE_URL = env("STAFF_SITE_URL").rstrip("/")
SURVEY_PUBLIC_URL = env("SURVEY_PUBLIC_URL")

# --- Database
# pgbouncer in transaction pooling mode: keep client connections open, and no
# server-side cursors (they do not survive a transaction boundary in the pool).
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=None)
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True

# --- Read replica (optional): reads go to it, writes to the master; see infra/db_router.py.
if env("REPLICA_DATABASE_URL", default=""):
    DATABASES["replica"] = {
        **env.db("REPLICA_DATABASE_URL"),
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        "DISABLE_SERVER_SIDE_CURSORS": True,
        # Give up on an unreachable replica quickly: the router then reads the master.
        "OPTIONS": {"connect_timeout": 2},
        # In tests the replica alias opens the test database on the replica server,
        # which streaming replication fills from the master.
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_ROUTERS = ["infra.db_router.ReplicaRouter"]
    DATABASE_POOL = {"replica": 1}
    # Right after SecurityMiddleware: before anything that may read a database.
    _after = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
    MIDDLEWARE = [*MIDDLEWARE[:_after], "infra.db_router.MasterPinningMiddleware", *MIDDLEWARE[_after:]]

# --- Redis: sessions (db 0), Celery's broker (db 1) and the login-limit counters (db 3)
# Each by URL (one server: the one-box stack), or, with REDIS_SENTINELS, on whichever server the Sentinels name
# master, so that a primary's loss is a promotion, not an outage (infra/sessions.py).
_REDIS_TIMEOUTS = {"socket_connect_timeout": 1, "socket_timeout": 1}
_redis_sentinels = []
for _address in filter(None, (item.strip() for item in env.list("REDIS_SENTINELS", default=[]))):
    _host, _, _port = _address.rpartition(":")
    if not (_host and _port.isdigit()):
        raise ImproperlyConfigured(f"REDIS_SENTINELS lists host:port addresses, not {_address!r}")
    _redis_sentinels.append((_host, int(_port)))
if _redis_sentinels:
    # A URL beside the Sentinels would be ignored: say so rather than reach another Redis than the one meant.
    _urls = [name for name in ("REDIS_SESSIONS_URL", "REDIS_RATELIMIT_URL", "CELERY_BROKER_URL") if env.str(name, "")]
    if _urls:
        raise ImproperlyConfigured(f"REDIS_SENTINELS is set: Redis is found through Sentinel, not {', '.join(_urls)}")
    _sentinel_master = env("REDIS_SENTINEL_MASTER", default="survey")
    _redis_password = env("REDIS_PASSWORD", default="")
    _sessions_location, _ratelimit_location = "redis:///0", "redis:///3"
    _redis_options = {**_REDIS_TIMEOUTS, "sentinels": _redis_sentinels, "sentinel_master": _sentinel_master}
    if _redis_password:
        _redis_options["password"] = _redis_password
    # kombu's form: one sentinel:// URL per Sentinel, joined by ";". kombu asks every Sentinel listed, and takes
    # the Redis servers' password and the database from the URL it is on (the first; the next after a failure).
    _broker_auth = f":{quote(_redis_password, safe='')}@" if _redis_password else ""
    CELERY_BROKER_URL = ";".join(f"sentinel://{_broker_auth}{host}:{port}/1" for host, port in _redis_sentinels)
    # The Sentinels are asked with no password (sentinel_kwargs), and given up on as quickly as the caches do.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"master_name": _sentinel_master, "sentinel_kwargs": _REDIS_TIMEOUTS}
else:
    _sessions_location = env("REDIS_SESSIONS_URL", default="redis://127.0.0.1:6379/0")
    _ratelimit_location = env("REDIS_RATELIMIT_URL", default="redis://127.0.0.1:6379/3")
    _redis_options = _REDIS_TIMEOUTS
    CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/1")

# --- Cache and sessions
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
        "LOCATION": env.list("MEMCACHED_LOCATION", default=["127.0.0.1:11211"]),
        "TIMEOUT": env.int("CACHE_TIMEOUT", default=60 * 60 * 6),
        "OPTIONS": {"no_delay": True, "ignore_exc": True, "connect_timeout": 0.5, "timeout": 0.5},
    },
    "sessions": {
        "BACKEND": "infra.sessions.RedisCache",
        "LOCATION": _sessions_location,
        "OPTIONS": dict(_redis_options),
    },
    # Login-limit counters, shared by every app server (staff/sign_in_limits.py, respondents/login_limits.py).
    "ratelimit": {
        "BACKEND": "infra.sessions.CountersRedisCache",
        "LOCATION": _ratelimit_location,
        "OPTIONS": dict(_redis_options),
    },
}
# Redis sessions that turn an outage into "please log in again" (infra/sessions.py).
SESSION_ENGINE = "infra.sessions"
SESSION_CACHE_ALIAS = "sessions"

# --- Security (TLS terminates at the load balancer or nginx)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE: bool = env.bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE: bool = env.bool("DJANGO_SECURE_COOKIES", default=True)
SECURE_SSL_REDIRECT: bool = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS: int = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
# Preloading HSTS binds the whole domain for months: the agency decides, not this app.
SECURE_HSTS_PRELOAD: bool = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True

# --- Files: S3 when AWS_STORAGE_BUCKET_NAME is set (MinIO on the one-box stack), else this machine.
# Credentials come from the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
# or an instance role), read by boto3: they never sit in settings.
AWS_STORAGE_BUCKET_NAME: str = env("AWS_STORAGE_BUCKET_NAME", default="")
if AWS_STORAGE_BUCKET_NAME:
    AWS_STATIC_BUCKET_NAME: str = env("AWS_STATIC_BUCKET_NAME")
    # None: Amazon's own endpoint for the region. Over HTTPS, its certificate is checked against the system's
    # authorities, or AWS_CA_BUNDLE's (boto3 reads it: the stack's and the lab's own authority).
    AWS_S3_ENDPOINT_URL: str | None = env("AWS_S3_ENDPOINT_URL", default=None)
    # Where browsers reach the object store, when not at the endpoint: a proxy that passes each request on
    # unchanged with the endpoint's Host (the one-box stack's and the web hosts' nginx). Presigned links are signed
    # for the endpoint and name this address (infra/storages.py).
    AWS_S3_PUBLIC_URL: str | None = env("AWS_S3_PUBLIC_URL", default=AWS_S3_ENDPOINT_URL)
    AWS_S3_REGION_NAME: str = env("AWS_S3_REGION_NAME", default="us-east-1")
    AWS_S3_ADDRESSING_STYLE: str = env("AWS_S3_ADDRESSING_STYLE", default="path")
    AWS_S3_SIGNATURE_VERSION = "s3v4"
    # Objects get no ACL: the static bucket is public through its bucket policy, the media bucket is not at all.
    AWS_DEFAULT_ACL = None
    # Where browsers fetch static files: the static bucket's public address (a CDN in front of it, elsewhere).
    STATIC_URL = env(
        "STATIC_URL",
        default=f"{AWS_S3_PUBLIC_URL}/{AWS_STATIC_BUCKET_NAME}/" if AWS_S3_PUBLIC_URL
        else f"https://{AWS_STATIC_BUCKET_NAME}.s3.{AWS_S3_REGION_NAME}.amazonaws.com/",
    )
    _static_scheme, _static_base = STATIC_URL.split("//", 1)
    _static_options = {
        "bucket_name": AWS_STATIC_BUCKET_NAME,
        # Public objects: plain URLs, the same for every request (no signature, no expiry).
        "querystring_auth": False,
        "custom_domain": _static_base.rstrip("/"),
        "url_protocol": _static_scheme,
        # CSS and JavaScript are stored gzip-compressed (Content-Encoding: gzip), since
        # S3 and MinIO do not compress on the fly as nginx does; every browser reads gzip.
        "gzip": True,
    }
    STORAGES = {
        # Uploads (rosters), slip PDFs and exports: private; url() is a presigned link
        # that works EXPORT_LINK_SECONDS. Names are never overwritten, as on a file system.
        "default": {
            "BACKEND": "infra.storages.MediaS3Storage",
            "OPTIONS": {
                "bucket_name": AWS_STORAGE_BUCKET_NAME,
                "querystring_auth": True,
                "querystring_expire": EXPORT_LINK_SECONDS,
                "file_overwrite": False,
            },
        },
        # collectstatic: hashed names (infra/storages.py says why a local copy is kept).
        "staticfiles": {"BACKEND": "infra.storages.ManifestStaticS3Storage", "OPTIONS": _static_options},
        # django-compressor's output (CACHE/css/output.<hash>.css), in the same bucket.
        "compressor": {"BACKEND": "infra.storages.StaticS3Storage", "OPTIONS": _static_options},
    }

# --- django-compressor: one minified CSS and one JavaScript file per page,
# made at deploy time (`manage.py compress`, run by deploy/stack up) and named by
# their content hash. Pages never compress while serving a request.
COMPRESS_ENABLED = True
COMPRESS_OFFLINE = True
COMPRESS_URL = STATIC_URL
# COMPRESS_ROOT is STATIC_ROOT (its default): the local copy it reads from and
# where its offline manifest lives.

# --- Content-Security-Policy: static files may come from the static bucket's address.
if not STATIC_URL.startswith("/"):
    CONTENT_SECURITY_POLICY = deepcopy(CONTENT_SECURITY_POLICY)
    for _directive in ("script-src", "style-src", "img-src"):
        CONTENT_SECURITY_POLICY["DIRECTIVES"][_directive].append(STATIC_URL)
