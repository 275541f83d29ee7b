"""WSGI entry point for gunicorn (`gunicorn config.wsgi`) and runserver (WSGI_APPLICATION)."""
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
django.setup(set_prefix=False)

# Django's WSGIHandler, with requests that survive any declared charset (infra/request_guard.py).
from infra.request_guard import GuardedWSGIHandler  # noqa: E402

application = GuardedWSGIHandler()
