"""The apps' imports run one way, from the screens down to the domain, and from each capability down to what it
stands on:

    config                             the wiring: settings, URLs, WSGI, Celery; imported by no app
    bench                              load and measurement tools: anything below, taking's public functions
    deploy                             the deploy and lab scripts' Python: imports nothing of the project
    taking, staff                      the screens (staff: every capability below)
    demo                               seeds the demo: every capability below
    publishing, rosters, exports,      one capability each, side by side: none imports another
    monitoring, results
    accounts                           staff accounts, scopes, the audit log: what every staff capability records to
    respondents                        people, answers, the page save
    surveys                            the definitions
    fileformats                        CSV, XLSX and PDF files: no models, imports nothing of the project
    infra                              what every app stands on (router, sessions, storages, errors...):
                                       every app may import it; it imports no app

Every top-level package is in the table (a new one fails until it is placed).

The domain apps hold no HTTP code: no views, requests, responses, URLs or
templates. Checked on the source, tests and migrations left out (but no
migration may import ``config`` either: a migration outlives the wiring). A model may
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
    "infra": set(),
    "fileformats": set(),
    "surveys": {"fileformats"},
    "respondents": {"surveys"},
    "accounts": {"respondents", "surveys", "fileformats"},
    **{app: {"accounts", "respondents", "surveys", "fileformats"} for app in CAPABILITIES},
    "demo": DOMAIN - {"demo"},
    "taking": {"respondents", "surveys", "accounts"},  # accounts: the door of a survey's preview for staff
    "staff": DOMAIN - {"demo"},
    "bench": DOMAIN | {"taking", "deploy"},
    "deploy": set(),
}
# The wiring: it may import any app, and none may import it.
WIRING = "config"
# Every app stands on infra: it is below all of them.
ALLOWED = {app: allowed | ({"infra"} if app != "infra" else set()) for app, allowed in ALLOWED.items()}
HTTP = ("django.http", "django.shortcuts", "django.views", "django.urls", "django.template")


def modules(app, *, migrations=False):
    for path in sorted((ROOT / app).rglob("*.py")):
        parts = path.relative_to(ROOT / app).parts
        if "tests" not in parts and (migrations or "migrations" not in parts):
            yield path


def imported(path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


@pytest.mark.parametrize("app", sorted(ALLOWED))
def test_an_app_imports_only_the_apps_below_it(app):
    wrong = sorted({f"{path.relative_to(ROOT)} imports {name}" for path in modules(app) for name in imported(path)
                    if name.split(".")[0] in ALLOWED and name.split(".")[0] not in ALLOWED[app] | {app}})
    assert not wrong, wrong


@pytest.mark.parametrize("app", sorted(ALLOWED))
def test_no_app_imports_the_wiring(app):
    """Settings, URLs and Celery are config/'s; what an app needs of the infrastructure is infra/'s."""
    wrong = sorted({f"{path.relative_to(ROOT)} imports {name}" for path in modules(app, migrations=True)
                    for name in imported(path) if name.split(".")[0] == WIRING})
    assert not wrong, wrong


def test_every_top_level_package_is_placed_in_the_layout():
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages - {WIRING} <= set(ALLOWED), f"place {sorted(packages - {WIRING} - set(ALLOWED))} in ALLOWED"
    assert set(ALLOWED) <= packages, f"{sorted(set(ALLOWED) - packages)} in ALLOWED are no package"


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
