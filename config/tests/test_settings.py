"""Every settings module (config/settings/*.py) names only folders that exist.

Django says nothing about a missing template or locale folder: a template put there is never found, a
catalogue never read, and every template lookup tries the missing folder first.
"""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = sorted(path.stem for path in (ROOT / "config" / "settings").glob("*.py") if path.stem != "__init__")
NODE_MODULES = ROOT / "node_modules"
# What production.py requires of the environment; values only parsed, never connected to.
REQUIRED_ENVIRONMENT = {
    "DJANGO_SECRET_KEY": "settings-test-key",
    "DJANGO_ALLOWED_HOSTS": "survey.example.org",
    "DATABASE_URL": "postgres://survey:survey@127.0.0.1:1/survey",
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


def folders(settings):
    for engine in settings["TEMPLATES"]:
        yield from (Path(folder) for folder in engine.get("DIRS", []))
    for entry in settings.get("STATICFILES_DIRS", []):
        # An entry is a folder or a (prefix, folder) pair.
        yield Path(entry[1] if isinstance(entry, (tuple, list)) else entry)
    yield from (Path(folder) for folder in settings.get("LOCALE_PATHS", []))


@pytest.mark.parametrize("module", SETTINGS)
def test_every_template_static_and_locale_folder_a_settings_module_names_exists(load_settings, module):
    named = list(folders(load_settings(module)))
    if not NODE_MODULES.is_dir() and not os.environ.get("CI"):
        # npm never ran on this machine (make install goes on without it): only the charts are missing.
        named = [folder for folder in named if NODE_MODULES not in folder.parents]
    missing = sorted(str(folder) for folder in named if not folder.is_dir())
    assert not missing, f"config/settings/{module}.py names folders that do not exist: {missing}"
