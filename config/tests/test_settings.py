"""Every settings module (config/settings/*.py) names only folders that exist.

Django says nothing about a missing template or locale folder: a template put there is never found, a
catalogue never read, and every template lookup tries the missing folder first.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = sorted(path.stem for path in (ROOT / "config" / "settings").glob("*.py") if path.stem != "__init__")
NODE_MODULES = ROOT / "node_modules"


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


class TestRedisThroughSentinel:
    """Sessions, login-limit counters and Celery's broker by URL (the one-box stack), or through Sentinel."""

    URLS = ("REDIS_SESSIONS_URL", "REDIS_RATELIMIT_URL", "CELERY_BROKER_URL")

    @pytest.fixture(autouse=True)
    def _no_redis_environment(self, monkeypatch):
        for name in (*self.URLS, "REDIS_SENTINELS", "REDIS_SENTINEL_MASTER", "REDIS_PASSWORD"):
            monkeypatch.delenv(name, raising=False)

    def test_without_sentinels_each_is_reached_by_its_url(self, load_settings, monkeypatch):
        monkeypatch.setenv("REDIS_SESSIONS_URL", "redis://:secret@redis.example.org:6379/0")
        settings = load_settings("production")
        assert settings["CACHES"]["sessions"]["LOCATION"] == "redis://:secret@redis.example.org:6379/0"
        assert settings["CACHES"]["sessions"]["OPTIONS"] == {"socket_connect_timeout": 1, "socket_timeout": 1}
        assert settings["CACHES"]["ratelimit"]["LOCATION"] == "redis://127.0.0.1:6379/3"
        assert settings["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/1"
        assert "CELERY_BROKER_TRANSPORT_OPTIONS" not in settings

    def test_with_sentinels_the_caches_and_the_broker_ask_them_for_the_master(self, load_settings, monkeypatch):
        from kombu.utils.url import parse_url

        monkeypatch.setenv("REDIS_SENTINELS", "10.0.0.1:26379, 10.0.0.2:26380,redis-3.example.org:26379,")
        monkeypatch.setenv("REDIS_SENTINEL_MASTER", "survey-a")
        monkeypatch.setenv("REDIS_PASSWORD", "p@ss;w/rd")
        settings = load_settings("production")
        sentinels = [("10.0.0.1", 26379), ("10.0.0.2", 26380), ("redis-3.example.org", 26379)]
        for alias, db in (("sessions", 0), ("ratelimit", 3)):
            assert settings["CACHES"][alias]["LOCATION"] == f"redis:///{db}"
            assert settings["CACHES"][alias]["OPTIONS"] == {
                "socket_connect_timeout": 1, "socket_timeout": 1,
                "sentinels": sentinels, "sentinel_master": "survey-a", "password": "p@ss;w/rd",
            }
        assert settings["CELERY_BROKER_URL"] == (
            "sentinel://:p%40ss%3Bw%2Frd@10.0.0.1:26379/1;sentinel://:p%40ss%3Bw%2Frd@10.0.0.2:26380/1;"
            "sentinel://:p%40ss%3Bw%2Frd@redis-3.example.org:26379/1"
        )
        # As kombu reads each: the Redis servers' password and db 1, whichever Sentinel it is on.
        for url in settings["CELERY_BROKER_URL"].split(";"):
            parsed = parse_url(url)
            assert (parsed["transport"], parsed["password"], parsed["virtual_host"]) == ("sentinel", "p@ss;w/rd", "1")
        assert settings["CELERY_BROKER_TRANSPORT_OPTIONS"] == {
            "master_name": "survey-a", "sentinel_kwargs": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }

    def test_with_sentinels_and_no_password_the_servers_are_asked_with_none(self, load_settings, monkeypatch):
        monkeypatch.setenv("REDIS_SENTINELS", "10.0.0.1:26379")
        settings = load_settings("production")
        assert "password" not in settings["CACHES"]["sessions"]["OPTIONS"]
        assert settings["CACHES"]["sessions"]["OPTIONS"]["sentinel_master"] == "survey"
        assert settings["CELERY_BROKER_URL"] == "sentinel://10.0.0.1:26379/1"

    @pytest.mark.parametrize("url", URLS)
    def test_a_url_beside_the_sentinels_stops_the_settings(self, load_settings, monkeypatch, url):
        from django.core.exceptions import ImproperlyConfigured

        monkeypatch.setenv("REDIS_SENTINELS", "10.0.0.1:26379")
        monkeypatch.setenv(url, "redis://127.0.0.1:6379/0")
        with pytest.raises(ImproperlyConfigured, match=url):
            load_settings("production")

    @pytest.mark.parametrize("sentinels", ["10.0.0.1", "10.0.0.1:port", ":26379"])
    def test_a_sentinel_without_host_and_port_stops_the_settings(self, load_settings, monkeypatch, sentinels):
        from django.core.exceptions import ImproperlyConfigured

        monkeypatch.setenv("REDIS_SENTINELS", sentinels)
        with pytest.raises(ImproperlyConfigured, match="host:port"):
            load_settings("production")


class TestSiteAddresses:
    """The addresses staff emails and code slips name (STAFF_SITE_URL, SURVEY_PUBLIC_URL): the embedded default's own
    login page and site; production requires both, and staff/checks.py refuses an empty or relative one."""

    @pytest.fixture
    def environment(self, load_settings, monkeypatch):
        """No address in the environment (after load_settings has set what production requires), and base.py read
        afresh, as a new process would."""
        for name in ("STAFF_SITE_URL", "SURVEY_PUBLIC_URL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.delitem(sys.modules, "config.settings.base")
        return monkeypatch

    def test_the_embedded_default_names_its_own_site_and_login_page(self, load_settings, environment):
        settings = load_settings("local")
        assert (settings["STAFF_SITE_URL"], settings["SURVEY_PUBLIC_URL"]) == (
            "http://127.0.0.1:8000", "http://127.0.0.1:8000/")

    def test_the_embedded_default_takes_another_port_from_the_environment(self, load_settings, environment):
        environment.setenv("STAFF_SITE_URL", "http://127.0.0.1:8123/")
        settings = load_settings("local")
        assert (settings["STAFF_SITE_URL"], settings["SURVEY_PUBLIC_URL"]) == (
            "http://127.0.0.1:8123", "http://127.0.0.1:8123/")

    @pytest.mark.parametrize("missing", ["STAFF_SITE_URL", "SURVEY_PUBLIC_URL"])
    def test_production_stops_without_either(self, load_settings, environment, missing):
        from django.core.exceptions import ImproperlyConfigured

        for name in {"STAFF_SITE_URL", "SURVEY_PUBLIC_URL"} - {missing}:
            environment.setenv(name, "https://survey.example.org/")
        with pytest.raises(ImproperlyConfigured, match=missing):
            load_settings("production")

    def test_production_takes_both_from_the_environment(self, load_settings, environment):
        environment.setenv("STAFF_SITE_URL", "https://staff.survey.example.org/")
        environment.setenv("SURVEY_PUBLIC_URL", "https://survey.example.org/")
        settings = load_settings("production")
        assert (settings["STAFF_SITE_URL"], settings["SURVEY_PUBLIC_URL"]) == (
            "https://staff.survey.example.org", "https://survey.example.org/")
