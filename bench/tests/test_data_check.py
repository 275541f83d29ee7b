"""The bench's data check (bench/stack.py): an acknowledged save missing from the database is LOST."""
import csv

import pytest
from django.db import OperationalError
from django.test import Client

from bench import cpu_profile, drill, stack
from respondents.models import Answer, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


def jtl(path, rows):
    """Write a JMeter results file: rows of (timeStamp ms, elapsed ms, label, responseCode, success, code, page)."""
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["timeStamp", "elapsed", "label", "responseCode", "success", "code", "page"])
        writer.writerows(rows)
    return path


@pytest.fixture
def saved(client, tmp_path):
    survey = make_survey()
    respondent = make_respondents(survey)
    login(client, respondent)
    assert save_page(client, 1, {"q-colour": "red"}).json()["saved"]
    assert save_page(client, 3, {"q-again": "1"}, nav="finish").json()["saved"]
    rows = [
        [1000, 5, "login", "302", "true", respondent.access_code, ""],
        [1010, 9, "change_page", "200", "true", respondent.access_code, "1"],
        [1020, 9, "change_page", "400", "false", respondent.access_code, "2"],  # not acknowledged: not counted
        [1025, 9, "change_page", "503", "true", respondent.access_code, "2"],  # retried: not an acknowledgement
        [1030, 9, "change_page", "200", "true", respondent.access_code, "3"],
    ]
    return survey, respondent, jtl(tmp_path / "results.jtl", rows)


def test_every_acknowledged_answer_found_means_nothing_lost(saved):
    survey, respondent, path = saved
    expected = stack.answerable_per_page(survey.slug)
    assert expected == {1: 4, 2: 3, 3: 2}
    check = stack.data_check(path, survey.slug, expected)
    assert check["acknowledged_saves"] == 2 and check["acknowledged_answers"] == 6
    assert check["answers_in_database"] == 6 and check["lost_answers"] == 0
    assert check["respondents_used"] == 1


def test_an_acknowledged_answer_missing_from_the_database_is_lost(saved):
    survey, respondent, path = saved
    Answer.objects.filter(respondent=respondent, question__code="pets").delete()
    check = stack.data_check(path, survey.slug, stack.answerable_per_page(survey.slug))
    assert check["lost_answers"] == 1


def test_an_acknowledged_finish_whose_response_is_not_complete_is_lost(saved):
    survey, respondent, path = saved
    Respondent.objects.filter(pk=respondent.pk).update(status=Respondent.Status.IN_PROGRESS)
    check = stack.data_check(path, survey.slug, stack.answerable_per_page(survey.slug))
    assert check["completed_acknowledged"] == 1 and check["completed_lost"] == 1


def test_the_bench_reads_again_after_its_own_connection_is_cut(monkeypatch):
    calls = []

    def read():
        calls.append(1)
        if len(calls) < 3:
            raise OperationalError("server closed the connection unexpectedly")
        return "read"

    monkeypatch.setattr(stack.time, "sleep", lambda seconds: None)
    assert stack.reconnecting(read) == "read" and len(calls) == 3


def test_a_retried_attempt_is_a_success_that_acknowledges_nothing(saved):
    _, _, path = saved
    assert stack.retried_attempts(path) == 1
    assert stack.is_retried({"success": "true", "responseCode": "Non HTTP response code: java.net.SocketException"})
    assert not stack.is_retried({"success": "true", "responseCode": "302"})


# ---------------------------------------------------------------- the drill's recount (bench/drill.py)

@pytest.fixture
def drilled(client, tmp_path):
    """Two respondents' saves, as a drill's results file and the database hold them (times in ms from 0)."""
    survey = make_survey()
    first, second = make_respondents(survey, count=2)
    login(client, first)
    assert save_page(client, 1, {"q-colour": "red"}).json()["saved"]
    assert save_page(client, 2, {"q-safe": "1"}).json()["saved"]
    client.logout()
    login(client, second)
    assert save_page(client, 1, {"q-colour": "blue"}).json()["saved"]
    rows = [
        [1_000, 50, "change_page", "200", "true", first.access_code, "1"],
        [10_000, 40, "change_page", "503", "true", first.access_code, "2"],   # the fault: retried...
        [12_000, 30, "change_page", "200", "true", first.access_code, "2"],   # ...and acknowledged
        [10_500, 20, "content", "502", "true", second.access_code, "2"],
        [13_000, 30, "change_page", "200", "true", second.access_code, "1"],
    ]
    return survey, first, second, jtl(tmp_path / "results.jtl", rows)


def judge(survey, path, windows):
    return drill.judge("async", survey.slug, path, stack.answerable_per_page(survey.slug), (0, 5),
                       [{"fault": name, "did": "-", "from": start, "whole": start, "to": end}
                        for name, start, end in windows], created=10)


def test_the_drill_counts_per_fault_the_saves_the_statuses_and_when_saves_went_through_again(drilled):
    survey, _, _, path = drilled
    report = judge(survey, path, [("pgbouncer", 9.5, 20)])
    fault = report["faults"][0]
    assert fault["acknowledged_saves"] == 2 and fault["lost_answers"] == 0 and fault["duplicates"] == 0
    assert fault["statuses"] == {"200": 2, "502": 1, "503": 1}
    assert fault["saves_back_after_s"] == 2.5  # the first acknowledged save after the 503 ended at 12.03 s
    assert fault["failed_for_good"] == 0 and fault["server_errors"] == 0
    assert report["problems"] == []


def test_the_drill_fails_on_a_lost_answer_a_page_saved_twice_and_a_500(drilled):
    survey, first, second, path = drilled
    Answer.objects.filter(respondent=first, question__code="safe").delete()  # acknowledged, then lost
    assert save_page_again(second, page=1)  # a retry that came with a fresh save_id: the page saved twice
    with open(path, "a", newline="") as stream:
        csv.writer(stream).writerow([14_000, 10, "content", "500", "false", second.access_code, "2"])
    report = judge(survey, path, [("pgbouncer", 9.5, 20)])
    fault = report["faults"][0]
    assert fault["lost_answers"] == 1 and fault["duplicates"] == 1 and fault["server_errors"] == 1
    assert fault["failed_for_good"] == 1
    assert any("LOST" in p for p in report["problems"]) and any("duplicated" in p for p in report["problems"])
    assert any("500" in p for p in report["problems"]) and any("failed for good" in p for p in report["problems"])


def save_page_again(respondent, *, page):
    client = Client()
    login(client, respondent)
    return save_page(client, page, {"q-colour": "blue"}).json()["saved"]


def test_the_profile_counts_a_sample_for_the_innermost_part_it_is_in(tmp_path):
    stacks = tmp_path / "stacks.txt"
    view = "process 12:\"gunicorn\";SyncWorker.handle (gunicorn/workers/sync.py:10);survey_page (taking/views.py:140)"
    stacks.write_text("\n".join([
        f"{view};execute_sql (django/db/models/sql/compiler.py:1600);_execute (django/db/backends/utils.py:94) 6",
        f"{view};execute_sql (django/db/models/sql/compiler.py:1600) 3",
        f"{view};render (jinja2/environment.py:1275);root (taking/jinja2/taking/page.html:4) 2",
        f"{view} 1",
        "SyncWorker.accept (gunicorn/workers/sync.py:30) 8",
    ]) + "\n")
    report = cpu_profile.ranked(stacks)
    assert report.startswith("20 samples")
    shares = dict(line.split("%  ", 1)[::-1] for line in report.split("\n\n")[1].splitlines()[1:])
    assert float(shares["psycopg2: the driver, its round trips to pgbouncer"]) == 30.0
    assert float(shares["django.db: the ORM, SQL compiling"]) == 15.0
    assert float(shares["Jinja2 (the page fragment)"]) == 10.0
    assert float(shares["the survey's own code (taking/, surveys/, respondents/, config/)"]) == 5.0
    assert float(shares["gunicorn: reading the request, writing the answer to nginx"]) == 40.0
    assert "30.0%  survey_page (taking/views.py)" not in report  # inclusive shares name files without line numbers
    assert "60.0%  survey_page (taking/views.py)" in report


def test_the_profile_answers_a_page_fragment_as_the_load_plan_does():
    html = ('<input type="radio" name="q-a" value="1"><input type="radio" name="q-a" value="2">'
            '<input type="checkbox" name="q-b" value="x"><input type="number" name="q-n" min="3" max="9">'
            '<input type="date" name="q-d"><textarea name="q-t" maxlength="50"></textarea>'
            '<input type="hidden" name="save_id" value="abc">')
    assert cpu_profile.page_answers(html, "tok", "next") == {
        "csrfmiddlewaretoken": "tok", "nav": "next", "q-a": "1", "q-b": "x", "q-n": "3", "q-d": "2020-05-17",
        "q-t": "more time for reading", "save_id": "abc"}
