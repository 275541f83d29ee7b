"""Fixtures shared by every app's tests."""
import importlib.util
import os
import shutil
import sys
from pathlib import Path

# The fixtures import the project's modules inside themselves: pytest imports this file before pytest-django
# sets Django up, and models cannot be imported before that.
import pytest

# Playwright's sync API runs an event loop in the test thread; Django refuses
# ORM calls from a thread with a running loop unless told it is safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# Hypothesis (taking/tests/test_fuzz.py): a bounded number of examples in every
# run; HYPOTHESIS_PROFILE=long for ten times as many.
from hypothesis import settings as hypothesis_settings  # noqa: E402

hypothesis_settings.register_profile("ci", max_examples=60, print_blob=True)
hypothesis_settings.register_profile("long", max_examples=600, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def pytest_collection_modifyitems(config, items):
    """Run tests marked `stack` only against the live stack (config.settings.stack_test), and tests marked `lab`
    only against the lab (LAB_TESTS=1: make lab-test)."""
    from django.conf import settings

    if not os.environ.get("LAB_TESTS"):
        skip_lab = pytest.mark.skip(reason="needs the lab: deploy/lab up, then make lab-test")
        for item in items:
            if "lab" in item.keywords:
                item.add_marker(skip_lab)
    if getattr(settings, "STACK_TESTS", False):
        # Every database test may reach the replica alias, as the app does.
        for item in items:
            marker = item.get_closest_marker("django_db")
            if marker and "databases" not in marker.kwargs:
                item.add_marker(pytest.mark.django_db(*marker.args, **marker.kwargs, databases="__all__"), append=False)
        return
    skip = pytest.mark.skip(reason="needs the live stack: make test-stack")
    for item in items:
        if "stack" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _test_code_reads_the_master():
    """Let the test's own ORM reads see what it wrote, even with a replica configured.

    Views still route as in production: the pinning middleware unpins the
    thread when a request starts.
    """
    from infra.db_router import read_from_master

    with read_from_master():
        yield


@pytest.fixture(autouse=True)
def _empty_definition_cache():
    """Start every test with an empty cache: cached definitions must not leak between tests."""
    from surveys.caching import clear_definition_cache

    clear_definition_cache()
    yield
    clear_definition_cache()


@pytest.fixture(autouse=True)
def _no_login_failures_counted():
    """Start every test with no failed logins counted (every test client shares one address)."""
    from django.core.cache import caches

    caches["ratelimit"].clear()
    yield


@pytest.fixture
def one_window(monkeypatch):
    """Keep every respondent login-limit count in one window ending 5 minutes from now (django-ratelimit's windows are
    fixed slots of the clock: a test crossing a slot's end would see its count start again)."""
    import time

    end = int(time.time()) + 300
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: end)


@pytest.fixture
def survey(db):
    """The small three-page survey of ``surveys.tests.factories`` (every question kind), open."""
    from surveys.tests.factories import make_survey

    return make_survey()


@pytest.fixture
def respondent(survey):
    """One respondent of ``survey``, not started."""
    from respondents.tests.factories import make_respondents

    return make_respondents(survey)


@pytest.fixture
def taker(client, respondent):
    """Django's test client, logged in as ``respondent`` through the login view."""
    from respondents.tests.factories import login

    login(client, respondent)
    return client


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium (Playwright downloads no browser here)."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run installs Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
        ],
    }


@pytest.fixture(scope="session")
def slip_fonts():
    """Debian's Noto and Droid fonts, which PDFs embed for scripts Helvetica lacks (deploy/packages.txt, tests)."""
    from fileformats.pdf import FALLBACK_FONTS, NOTO_DIR

    if not (NOTO_DIR.is_dir() and all(path.exists() for path in FALLBACK_FONTS)):
        if os.environ.get("CI"):
            pytest.fail("the slip fonts are missing: deploy/install-packages tests installs them")
        pytest.skip("the slip fonts are not installed: deploy/install-packages tests")


@pytest.fixture(scope="session")
def pdf_readers():
    """poppler's pdftotext and pdftoppm and zbar's zbarimg, which read a PDF back (deploy/packages.txt, tests)."""
    missing = [tool for tool in ("pdftotext", "pdftoppm", "zbarimg") if not shutil.which(tool)]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} missing: deploy/install-packages tests installs them")
        pytest.skip(f"{', '.join(missing)} not installed: deploy/install-packages tests")


@pytest.fixture(autouse=True)
def _media_root(request, tmp_path_factory):
    """Keep uploads (rosters) of the local suite in a temporary directory; on the stack they go where
    gunicorn and Celery share them (MEDIA_ROOT from deploy/stack env)."""
    from django.conf import settings

    if getattr(settings, "STACK_TESTS", False):
        yield
        return
    request.getfixturevalue("settings").MEDIA_ROOT = str(tmp_path_factory.mktemp("media"))
    yield


# ---------------------------------------------------------------- the staff side's usual cast

@pytest.fixture
def lincoln():
    """A school of district D1."""
    from respondents.tests.factories import make_school

    return make_school("LIN", "Lincoln", ("D1", "District One"))


@pytest.fixture
def adams():
    """A school of another district, D2."""
    from respondents.tests.factories import make_school

    return make_school("ADA", "Adams", ("D2", "District Two"))


@pytest.fixture
def coordinator(lincoln):
    """The school coordinator of Lincoln, user name lin-coord (factories.make_staff's password)."""
    from accounts.models import StaffMember
    from respondents.tests.factories import make_staff

    return make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lin-coord")


ROOT = Path(__file__).resolve().parent
# What production.py requires of the environment; values only parsed, never connected to.
SETTINGS_ENVIRONMENT = {
    "DJANGO_SECRET_KEY": "settings-test-key",
    "DJANGO_ALLOWED_HOSTS": "survey.example.org",
    "DATABASE_URL": "postgres://survey:survey@127.0.0.1:1/survey",
    "STAFF_SITE_URL": "https://survey.example.org",
    "SURVEY_PUBLIC_URL": "https://survey.example.org/",
}


@pytest.fixture
def load_settings(monkeypatch):
    """Return a function that runs a settings module (config/settings/NAME.py) afresh and returns its names,
    leaving sys.modules as it was."""
    for name, value in SETTINGS_ENVIRONMENT.items():
        monkeypatch.setenv(name, os.environ.get(name) or value)
    before = set(sys.modules)

    def load(name):
        # A copy under another name: the module Django runs with stays as it is.
        path = ROOT / "config" / "settings" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"loaded_settings.{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return vars(module)

    yield load
    for name in set(sys.modules) - before:
        if name.startswith("config.settings."):
            del sys.modules[name]
