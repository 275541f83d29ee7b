"""Fixtures of config/'s tests."""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What production.py requires of the environment; values only parsed, never connected to.
REQUIRED_ENVIRONMENT = {
    "DJANGO_SECRET_KEY": "settings-test-key",
    "DJANGO_ALLOWED_HOSTS": "survey.example.org",
    "DATABASE_URL": "postgres://survey:survey@127.0.0.1:1/survey",
    "STAFF_SITE_URL": "https://survey.example.org",
    "SURVEY_PUBLIC_URL": "https://survey.example.org/",
}


@pytest.fixture
def load_settings(monkeypatch):
    """Return a function that runs a settings module afresh and returns its names, leaving sys.modules as it was."""
    for name, value in REQUIRED_ENVIRONMENT.items():
        monkeypatch.setenv(name, os.environ.get(name) or value)
    before = set(sys.modules)

    def load(name):
        # A copy under another name: the module Django runs with stays as it is.
        spec = importlib.util.spec_from_file_location(f"loaded_settings.{name}", ROOT / "config" / "settings" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return vars(module)

    yield load
    for name in set(sys.modules) - before:
        if name.startswith("config.settings."):
            del sys.modules[name]
