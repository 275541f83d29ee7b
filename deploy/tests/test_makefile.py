"""What the Makefile's targets run, read with `make -n` (nothing is executed)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dry_run(*arguments):
    if shutil.which("make") is None and not os.environ.get("CI"):
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-n", "--no-print-directory", *arguments], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.splitlines()


@pytest.mark.parametrize("port", ["8000", "8123"])
def test_the_demo_names_the_address_it_serves_in_its_emailed_links_and_its_slips(port):
    [serve] = [line for line in dry_run("demo", f"PORT={port}") if "manage.py runserver" in line]
    assert serve.startswith(f"STAFF_SITE_URL=http://127.0.0.1:{port} SURVEY_PUBLIC_URL=http://127.0.0.1:{port}/ ")
    assert serve.endswith(f"runserver 127.0.0.1:{port}")
