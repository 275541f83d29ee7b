"""The apps' imports run one way, from the screens down to the domain, and from each capability down to what it
stands on:

    bench                              load and measurement tools: anything below, taking's public functions
    taking, staff                      the screens (staff: every capability below)
    demo                               seeds the demo: every capability below
    publishing, rosters, exports,      one capability each, side by side: none imports another
    monitoring, results
    accounts                           staff accounts, scopes, the audit log: what every staff capability records to
    respondents                        people, answers, the page save
    surveys                            the definitions
    fileformats                        CSV, XLSX and PDF files: no models, imports nothing of the project

The domain apps hold no HTTP code: no views, requests, responses, URLs or
templates. Checked on the source, tests and migrations left out. A model may
name a model above it by a string (``Respondent.roster`` is "rosters.Roster"):
that is a reference in the database, not an import.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAPABILITIES = {"publishing", "rosters", "exports", "monitoring", "results"}
DOMAIN = {"fileformats", "surveys", "respondents", "accounts", *CAPABILITIES, "demo"}
# What each app may import of the project's apps.
ALLOWED = {
    "fileformats": set(),
    "surveys": {"fileformats"},
    "respondents": {"surveys"},
    "accounts": {"respondents", "surveys", "fileformats"},
    **{app: {"accounts", "respondents", "surveys", "fileformats"} for app in CAPABILITIES},
    "demo": DOMAIN - {"demo"},
    "taking": {"respondents", "surveys", "accounts"},  # accounts: the door of a survey's preview for staff
    "staff": DOMAIN - {"demo"},
    "bench": DOMAIN | {"taking"},
}
HTTP = ("django.http", "django.shortcuts", "django.views", "django.urls", "django.template")


def modules(app):
    for path in sorted((ROOT / app).rglob("*.py")):
        parts = path.relative_to(ROOT / app).parts
        if "tests" not in parts and "migrations" not in parts:
            yield path


def imported(path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


@pytest.mark.parametrize("app", sorted(ALLOWED))
def test_an_app_imports_only_the_apps_below_it(app):
    if not (ROOT / app).is_dir():
        pytest.skip(f"no {app}/ yet")
    wrong = sorted({f"{path.relative_to(ROOT)} imports {name}" for path in modules(app) for name in imported(path)
                    if name.split(".")[0] in ALLOWED and name.split(".")[0] not in ALLOWED[app] | {app}})
    assert not wrong, wrong


@pytest.mark.parametrize("app", sorted(DOMAIN))
def test_the_domain_apps_hold_no_http_code(app):
    wrong = sorted({f"{path.relative_to(ROOT)} imports {name}" for path in modules(app) for name in imported(path)
                    if name.startswith(HTTP)})
    assert not wrong, wrong


def test_every_app_with_tests_is_in_the_suite():
    """pytest collects only pyproject's testpaths: an app left out would have its tests silently never run."""
    import tomllib

    testpaths = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"])
    with_tests = {path.parent.parent.name for path in ROOT.glob("*/tests/__init__.py")}
    assert with_tests <= testpaths, f"add {sorted(with_tests - testpaths)} to testpaths in pyproject.toml"
