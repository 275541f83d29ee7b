"""The embedded default: SQLite, an in-process cache, cookie sessions. Needs no server."""
from config.settings.base import *  # noqa: F401,F403
from config.settings.base import INSTALLED_APPS, MIDDLEWARE, env

DEBUG = env.bool("DJANGO_DEBUG", default=True)

# --- Development tools
# django-debug-toolbar is off for the demo; `DEBUG_TOOLBAR=1 make demo` turns it on.
if env.bool("DEBUG_TOOLBAR", default=False):
    INSTALLED_APPS = [*INSTALLED_APPS, "debug_toolbar"]
    MIDDLEWARE = ["debug_toolbar.middleware.DebugToolbarMiddleware", *MIDDLEWARE]
    INTERNAL_IPS = ["127.0.0.1"]

# --- Celery
# No broker locally: tasks run in the calling process.
CELERY_TASK_ALWAYS_EAGER = True
