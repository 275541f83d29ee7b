"""Settings for the test suite: the embedded default, made fast and deterministic."""
from config.settings.base import *  # noqa: F401,F403
from config.settings.base import BENCH_APPS, INSTALLED_APPS, env

DEBUG = False
SECRET_KEY = "test-only-secret-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite may point DATABASE_URL at PostgreSQL; by default it runs on SQLite.
DATABASES = {"default": env.db("DATABASE_URL", default="sqlite:///:memory:")}

CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tests"},
    "ratelimit": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tests-login-limits"},
}

CELERY_TASK_ALWAYS_EAGER = True
MONITORING_REFRESH_ON_REQUEST = True
RESULTS_REFRESH_ON_REQUEST = True
CELERY_BROKER_URL = "memory://"

# --- Login limits
# Counters in this process's memory: right for one process (runserver, the
# tests); production keeps them in Redis, shared by every worker.
SILENCED_SYSTEM_CHECKS = ["axes.W001"]

# The bench's tools and floor views (bench/), so their tests reach them.
INSTALLED_APPS = [*INSTALLED_APPS, *BENCH_APPS]
BENCH_FLOOR_VIEWS = True
