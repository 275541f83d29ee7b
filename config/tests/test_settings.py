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


class TestDebugToolbar:
    """django-debug-toolbar is a development tool: only the embedded default adds it, and only where installed."""

    def test_the_embedded_default_leaves_the_toolbar_out_unless_asked(self, load_settings, monkeypatch):
        monkeypatch.delenv("DEBUG_TOOLBAR", raising=False)
        settings = load_settings("local")
        assert "debug_toolbar" not in settings["INSTALLED_APPS"]
        assert not any(name.startswith("debug_toolbar") for name in settings["MIDDLEWARE"])

    def test_asked_for_and_installed_the_toolbar_is_on(self, load_settings, monkeypatch):
        pytest.importorskip("debug_toolbar", reason="requirements-dev.txt is not installed")
        monkeypatch.setenv("DEBUG_TOOLBAR", "1")
        settings = load_settings("local")
        assert "debug_toolbar" in settings["INSTALLED_APPS"]
        assert settings["MIDDLEWARE"][0] == "debug_toolbar.middleware.DebugToolbarMiddleware"

    def test_asked_for_where_only_requirements_txt_is_installed_the_app_runs_without_it(
        self, load_settings, monkeypatch,
    ):
        monkeypatch.setenv("DEBUG_TOOLBAR", "1")
        # As if the package were not installed: the import system finds nothing for this name.
        monkeypatch.setitem(sys.modules, "debug_toolbar", None)
        with pytest.warns(UserWarning, match="django-debug-toolbar is not installed"):
            settings = load_settings("local")
        assert "debug_toolbar" not in settings["INSTALLED_APPS"]
        assert not any(name.startswith("debug_toolbar") for name in settings["MIDDLEWARE"])

    @pytest.mark.parametrize("module", ["production", "stack_test"])
    def test_production_settings_never_name_it(self, load_settings, monkeypatch, module):
        assert "debug_toolbar" not in (ROOT / "config" / "settings" / f"{module}.py").read_text()
        monkeypatch.setenv("DEBUG_TOOLBAR", "1")
        assert "debug_toolbar" not in load_settings(module)["INSTALLED_APPS"]

    def test_it_is_pinned_in_the_development_requirements_only(self):
        def pins(name):
            lines = (ROOT / name).read_text().splitlines()
            return [line for line in lines if line.lower().startswith("django-debug-toolbar")]

        assert pins("requirements.txt") == []
        assert len(pins("requirements-dev.txt")) == 1 and "==" in pins("requirements-dev.txt")[0]


def test_a_plain_production_deploy_leaves_the_bench_out_and_bench_tools_puts_it_in(load_settings, monkeypatch):
    monkeypatch.delenv("BENCH_TOOLS", raising=False)
    assert not {"bench", "bench.floor"} & set(load_settings("production")["INSTALLED_APPS"])
    monkeypatch.setenv("BENCH_TOOLS", "1")
    assert {"bench", "bench.floor"} <= set(load_settings("production")["INSTALLED_APPS"])


def test_the_floor_views_without_the_bench_stop_production_settings(load_settings, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    import config.settings.base

    monkeypatch.delenv("BENCH_TOOLS", raising=False)
    monkeypatch.setattr(config.settings.base, "BENCH_FLOOR_VIEWS", True)
    with pytest.raises(ImproperlyConfigured, match="BENCH_TOOLS"):
        load_settings("production")
