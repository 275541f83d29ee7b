"""deploy/install-packages, and deploy/packages.txt: the one list of the Debian packages the project installs.

The script runs with a PATH of fakes (dpkg-query, id, apt-get), so nothing is installed and the result does not
depend on this machine's packages or user.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "install-packages"
LIST = ROOT / "deploy" / "packages.txt"
BASH = shutil.which("bash")
# Folders of the checkout that hold no project file: installed, generated or ignored.
NOT_PROJECT = {"node_modules", "__pycache__", "staticfiles", "media", "results", "test-results"}


def groups():
    """Return ``{group: [package, ...]}`` as deploy/packages.txt lists them."""
    listed = {}
    for line in LIST.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            group, packages = line.split(":", 1)
            listed.setdefault(group.strip(), []).extend(packages.split())
    return listed


def project_files():
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders
                         if name not in NOT_PROJECT and (not name.startswith(".") or name == ".ci")]
        for name in names:
            path = Path(folder) / name
            if path not in (LIST, Path(__file__)) and path.stat().st_size < 2_000_000:
                try:
                    yield path, path.read_text()
                except UnicodeDecodeError:
                    continue


@pytest.fixture
def run(tmp_path):
    """Return a function that runs deploy/install-packages as user ``uid`` with ``installed`` the packages
    dpkg knows; it returns the process and the apt-get command lines it ran."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    calls = tmp_path / "apt-get.calls"
    scripts = {
        "id": 'echo "$FAKE_UID"',
        "dpkg-query": 'for package; do :; done\n'
                      'case " $FAKE_INSTALLED " in *" $package "*) printf "install ok installed" ;; *) exit 1 ;; esac',
        "apt-get": f'echo "$*" >> "{calls}"',
    }

    def run_script(*args, uid=0, installed=(), apt_get=True):
        for name, body in scripts.items():
            path = fakes / name
            if name != "apt-get" or apt_get:
                path.write_text(f"#!/bin/sh\n{body}\n")
                path.chmod(0o755)
            else:
                path.unlink(missing_ok=True)
        calls.unlink(missing_ok=True)
        environment = {"PATH": str(fakes), "FAKE_UID": str(uid), "FAKE_INSTALLED": " ".join(installed)}
        process = subprocess.run([BASH, str(SCRIPT), *args], env=environment, capture_output=True, text=True,
                                 timeout=30)
        return process, calls.read_text().splitlines() if calls.exists() else []

    return run_script


def test_the_list_has_the_groups_the_callers_name():
    assert {"tests", "stack", "jmeter"} <= set(groups())
    assert all(groups().values())


# Ids that are not bare group names: conftest skips a test whose keywords include "stack" off the live stack.
@pytest.mark.parametrize("group", sorted(groups()), ids=lambda group: f"{group}-group")
def test_list_prints_a_groups_packages_as_the_file_lists_them(run, group):
    process, apt_get = run("--list", group)
    assert process.returncode == 0, process.stderr
    assert process.stdout.split() == groups()[group]
    assert apt_get == []


@pytest.mark.parametrize("args", [("chromium",), ("--optional", "tests", "gettext"), ("--check", "postgres")])
def test_a_name_that_is_no_group_is_refused_and_nothing_is_installed(run, args):
    process, apt_get = run(*args)
    assert process.returncode == 2
    assert "deploy/packages.txt" in process.stderr and "name a group, not a package" in process.stderr
    assert apt_get == []


def test_as_root_it_installs_only_the_missing_packages_of_its_groups(run):
    present = groups()["tests"][0]
    process, apt_get = run("tests", "jmeter", installed=[present])
    assert process.returncode == 0, process.stderr
    missing = [package for package in groups()["tests"] + groups()["jmeter"] if package != present]
    assert apt_get == ["update -qq", "install -y -qq --no-install-recommends " + " ".join(missing)]


def test_with_every_package_installed_it_does_nothing(run):
    process, apt_get = run("stack", installed=groups()["stack"])
    assert (process.returncode, process.stdout, process.stderr, apt_get) == (0, "", "", [])


@pytest.mark.parametrize(("optional", "status"), [((), 1), (("--optional",), 0)])
def test_another_user_is_told_what_to_install(run, optional, status):
    process, apt_get = run(*optional, "stack", uid=1000)
    assert process.returncode == status
    assert "sudo apt-get install " + " ".join(groups()["stack"]) in process.stderr
    assert apt_get == []


@pytest.mark.parametrize(("uid", "apt_get", "everything_installed", "status"), [
    (1000, True, True, 0),
    (1000, True, False, 1),
    (0, True, False, 0),  # root can install what is missing
    (0, False, False, 1),  # but not without apt-get
])
def test_check_installs_nothing_and_fails_only_when_a_package_cannot_be_had(
    run, uid, apt_get, everything_installed, status,
):
    installed = groups()["stack"] if everything_installed else ()
    process, calls = run("--check", "stack", uid=uid, apt_get=apt_get, installed=installed)
    assert process.returncode == status
    assert calls == []


def test_no_caller_names_a_package_itself():
    """Every call of deploy/install-packages names groups: packages on the call's line would be a second list."""
    packages = {package for listed in groups().values() for package in listed}
    word = re.compile(r"(?<![\w./-])(" + "|".join(map(re.escape, sorted(packages))) + r")(?![\w/-])")
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path, text in project_files() if path != SCRIPT and path.suffix != ".md"
             for number, line in enumerate(text.splitlines(), 1)
             if "install-packages" in line and word.search(line)]
    assert not found, found


def test_versioned_package_names_are_spelled_in_the_list_alone():
    """postgresql-15, openjdk-17-jre-headless: the names an upgrade changes, so a copy elsewhere would go stale."""
    versioned = sorted({package for listed in groups().values() for package in listed if re.search(r"\d", package)})
    assert versioned
    found = [f"{path.relative_to(ROOT)} names {package}"
             for path, text in project_files() for package in versioned if package in text]
    assert not found, found
