"""Production: PostgreSQL through pgbouncer, memcached, Redis sessions, a Celery broker.

Everything that differs between deployments is an environment variable; see
docs/operations.md for the list and what each is for.
"""
from config.settings.base import *  # noqa: F401,F403
from config.settings.base import MIDDLEWARE, env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")

# --- Database
# pgbouncer in transaction pooling mode: keep client connections open, and no
# server-side cursors (they do not survive a transaction boundary in the pool).
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=None)
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True

# --- Read replica (optional): reads go to it, writes to the master; see config/db_router.py.
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
    DATABASE_ROUTERS = ["config.db_router.ReplicaRouter"]
    DATABASE_POOL = {"replica": 1}
    # Right after SecurityMiddleware: before anything that may read a database.
    _after = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1
    MIDDLEWARE = [*MIDDLEWARE[:_after], "config.db_router.MasterPinningMiddleware", *MIDDLEWARE[_after:]]

# --- Cache and sessions
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
        "LOCATION": env.list("MEMCACHED_LOCATION", default=["127.0.0.1:11211"]),
        "TIMEOUT": env.int("CACHE_TIMEOUT", default=60 * 60 * 6),
        "OPTIONS": {"no_delay": True, "ignore_exc": True, "connect_timeout": 0.5, "timeout": 0.5},
    },
    "sessions": {
        "BACKEND": "config.sessions.RedisCache",
        "LOCATION": env("REDIS_SESSIONS_URL", default="redis://127.0.0.1:6379/0"),
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    },
    # Login-limit counters, shared by every app server (config/login_limits.py).
    "ratelimit": {
        "BACKEND": "config.sessions.CountersRedisCache",
        "LOCATION": env("REDIS_RATELIMIT_URL", default="redis://127.0.0.1:6379/3"),
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    },
}
# Redis sessions that turn an outage into "please log in again" (config/sessions.py).
SESSION_ENGINE = "config.sessions"
SESSION_CACHE_ALIAS = "sessions"

# --- Celery
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/1")

# --- Security (TLS terminates at the load balancer or nginx)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
# Preloading HSTS binds the whole domain for months: the agency decides, not this app.
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
