"""The staff area on the live stack: a roster checked and applied by the real Celery worker, its progress polled.

Through nginx and gunicorn, against the app's own database (the Celery
worker's): the data this test makes is set up with manage.py as the app runs.
"""
import json
import re
import time
import uuid

import pytest

from deploy.tests import stack

pytestmark = pytest.mark.stack

SETUP = """
from django.contrib.auth import get_user_model
from accounts.models import StaffMember
from rosters.directory import schools_ensure
from bench.survey_document import bench_document
from surveys.services import survey_create
tag = "{tag}"
schools_ensure([("SD-" + tag, "Stack district", "SA-" + tag, "Stack school A"),
                ("SD-" + tag, "Stack district", "SB-" + tag, "Stack school B")])
survey_create(document=bench_document(slug="staff-" + tag, pages=2))
user = get_user_model().objects.create_user(username="state-" + tag, password="stack test passphrase 1")
StaffMember.objects.create(user=user, role=StaffMember.Role.STATE_ADMIN)
"""
COUNT = "from respondents.models import Respondent; print(Respondent.objects.filter(survey__slug='staff-{tag}').count())"
ROWS = 40_000


def poll(web, url, until, timeout=120):
    """Poll the progress endpoint until its status is ``until``; return every answer seen."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, text = web.request("GET", url, headers={"Accept": "application/json"})
        assert status == 200, text
        seen.append(json.loads(text))
        if seen[-1]["finished"]:
            assert seen[-1]["status"] == until, seen[-1]
            return seen
        time.sleep(0.2)
    raise AssertionError(f"still {seen[-1]} after {timeout} s")


def test_a_roster_is_checked_and_applied_by_the_celery_worker_with_its_progress_polled():
    tag = uuid.uuid4().hex[:8]
    stack.app_manage("shell", "--no-imports", "-c", SETUP.format(tag=tag))
    web = stack.WebClient()
    status, headers, _ = web.post_form("/staff/login/", {"username": f"state-{tag}",
                                                         "password": "stack test passphrase 1"})
    assert status == 302, headers
    lines = ["external_id,school_code,grade,role,language"] + [
        f"p{n},{'SA' if n % 2 else 'SB'}-{tag},{3 + n % 9},student,en" for n in range(ROWS)]
    status, headers, text = web.post_file(f"/staff/surveys/staff-{tag}/rosters/new/", {}, "file", "roster.csv",
                                          ("\n".join(lines) + "\n").encode())
    assert status == 302, text
    roster_path = headers["Location"]
    assert re.fullmatch(rf"/staff/surveys/staff-{tag}/rosters/\d+/", roster_path)

    checking = poll(web, roster_path + "progress/", until="checked")
    partway = [p for p in checking if p["status"] == "checking" and 0 < p["percent"] < 100]
    assert partway, checking  # the bar moved while the worker read the file
    assert [p["rows_read"] for p in partway] == sorted(p["rows_read"] for p in partway)
    assert stack.app_manage("shell", "--no-imports", "-c", COUNT.format(tag=tag)).strip() == "0"  # a dry run writes nobody

    _, _, page = web.request("GET", roster_path)
    assert "Dry run: nothing has been written yet." in page and f"{ROWS // 2}" in page
    status, _, _ = web.post_form(roster_path + "apply/", {})
    assert status == 302
    poll(web, roster_path + "progress/", until="applied")
    assert stack.app_manage("shell", "--no-imports", "-c", COUNT.format(tag=tag)).strip() == str(ROWS)
    _, _, page = web.request("GET", roster_path)
    assert "Applied" in page


def test_postgresql_refuses_to_change_or_delete_an_audit_entry():
    out = stack.app_manage("shell", "--no-imports", "-c", (
        "from django.db import connection, transaction\n"
        "from accounts.audit import audit_sign_in\n"
        "from accounts.models import AuditEntry\n"
        "from infra.sql import table\n"
        "entry = audit_sign_in(username='trigger-check', failed=True)\n"
        "for sql in (f'UPDATE {table(AuditEntry)} SET detail = %s WHERE id = %s',"
        "            f'DELETE FROM {table(AuditEntry)} WHERE id = %s'):\n"
        "    params = ['x', entry.pk] if sql.startswith('UPDATE') else [entry.pk]\n"
        "    try:\n"
        "        with transaction.atomic(), connection.cursor() as cursor:\n"
        "            cursor.execute(sql, params)\n"
        "        print('allowed')\n"
        "    except Exception as error:\n"
        "        print('refused:', str(error).splitlines()[0])\n"
    ))
    assert out.splitlines() == ["refused: the audit log is append-only: UPDATE refused",
                                "refused: the audit log is append-only: DELETE refused"]
