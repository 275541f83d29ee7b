"""jmeter/run judges a run: JMeter itself exits 0 even when its assertions fail."""
import subprocess

import pytest

from deploy.tests import stack

pytestmark = [pytest.mark.stack]


def test_jmeter_run_exits_1_when_a_sample_fails(tmp_path):
    codes = tmp_path / "codes.csv"
    codes.write_text("code\nZZZZZZZZZZ\n")  # no such respondent: the login must not redirect
    run = subprocess.run(
        [str(stack.ROOT / "jmeter" / "run"), str(stack.ROOT / "jmeter" / "plans" / "survey_taking.jmx"),
         f"-Jport={stack.conf()['STACK_NGINX_PORT']}", f"-Jrespondents={codes}", "-Jthreads=1", "-Jiterations=1",
         "-Jduration=60"],
        capture_output=True, text=True, env={"RESULTS": str(tmp_path / "results"), "PATH": "/usr/local/bin:/usr/bin:/bin"},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "samples failed" in run.stderr
    assert (tmp_path / "results" / "report" / "index.html").exists()
