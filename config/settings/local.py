"""The embedded default: SQLite, an in-process cache, database sessions. Needs no server."""
import importlib.util
import secrets
import warnings
from pathlib import Path

from config.settings.base import *  # noqa: F401,F403
from config.settings.base import BASE_DIR, BENCH_APPS, INSTALLED_APPS, MIDDLEWARE, env


def checkout_secret_key(path: Path) -> str:
    """Return the secret key kept in ``path``, first writing a new random one there (owner-only) if there is none.

    Each checkout signs with its own key: a key in the repository would let
    anyone forge the CSRF and password-reset tokens of every demo.
    """
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY: str = env("DJANGO_SECRET_KEY", default="") or checkout_secret_key(BASE_DIR / ".secret_key")

# --- Development tools
# The bench's tools (bench/): a developer's machine is where load tests are written and tried.
INSTALLED_APPS = [*INSTALLED_APPS, *BENCH_APPS]

# django-debug-toolbar is a development requirement (requirements-dev.txt), off for the demo:
# `DEBUG_TOOLBAR=1 make demo` installs that file and turns it on. Where only requirements.txt is installed,
# DEBUG_TOOLBAR leaves the toolbar out with a warning rather than stopping the app at startup.
_debug_toolbar = env.bool("DEBUG_TOOLBAR", default=False)
if _debug_toolbar and importlib.util.find_spec("debug_toolbar") is None:
    warnings.warn(
        "DEBUG_TOOLBAR is on but django-debug-toolbar is not installed (make install-dev): running without it",
        stacklevel=1,
    )
elif _debug_toolbar:
    INSTALLED_APPS = [*INSTALLED_APPS, "debug_toolbar"]
    MIDDLEWARE = ["debug_toolbar.middleware.DebugToolbarMiddleware", *MIDDLEWARE]
    INTERNAL_IPS = ["127.0.0.1"]

# --- Celery
# No broker locally: tasks run in the calling process.
CELERY_TASK_ALWAYS_EAGER = True
MONITORING_REFRESH_ON_REQUEST = True
RESULTS_REFRESH_ON_REQUEST = True

# --- Login limits
# Counters in this process's memory: right for one process (runserver, the
# tests); production keeps them in Redis, shared by every worker.
SILENCED_SYSTEM_CHECKS = ["axes.W001"]
