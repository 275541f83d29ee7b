"""Fixtures shared by every app's tests."""
import os
import shutil

import pytest

# Playwright's sync API runs an event loop in the test thread; Django refuses
# ORM calls from a thread with a running loop unless told it is safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(autouse=True)
def _empty_definition_cache():
    """Start every test with an empty cache: cached definitions must not leak between tests."""
    from surveys.caching import clear_definition_cache

    clear_definition_cache()
    yield
    clear_definition_cache()


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
