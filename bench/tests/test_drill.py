"""The drill's recount (bench/drill.py): per fault, the saves JMeter saw acknowledged against what PostgreSQL holds."""
import csv

import pytest
from django.test import Client

from bench import drill, stack
from bench.tests.factories import jtl
from respondents.models import Answer
from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


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


# ---------------------------------------------------------------- the faults (bench/drill.py: inject)

@pytest.fixture
def recorded(monkeypatch):
    """deploy/stack, kill, the process table and sleep, recorded instead of done: the calls in order."""
    calls = []
    monkeypatch.setattr(drill, "deploy_stack", lambda *args, check=True: calls.append(("stack", *args)) or "pg1\n")
    monkeypatch.setattr(drill, "kill", lambda pids: calls.append(("kill", *pids)))
    monkeypatch.setattr(drill, "pid", lambda component: calls.append(("pid", component)) or 100)
    monkeypatch.setattr(drill, "children", lambda parent: [parent + 1, parent + 2])
    monkeypatch.setattr(drill.time, "sleep", lambda seconds: calls.append(("sleep", seconds)))
    return calls


@pytest.mark.parametrize("fault, calls", [
    ("gunicorn-workers", [("pid", "gunicorn"), ("kill", 101, 102)]),
    ("pgbouncer", [("stack", "restart", "pgbouncer-master")]),
    ("master-immediate", [("stack", "stop", "--immediate", "master"), ("sleep", 2), ("stack", "start", "master")]),
    ("replica", [("stack", "stop", "replica"), ("sleep", 2), ("stack", "start", "replica")]),
    ("redis", [("stack", "restart", "redis")]),
    ("memcached", [("stack", "stop", "memcached"), ("sleep", 2), ("stack", "start", "memcached")]),
    ("minio", [("stack", "stop", "minio"), ("sleep", 2), ("stack", "start", "minio")]),
    ("nginx-reload", [("stack", "reload", "nginx")]),
    ("celery", [("pid", "celery"), ("kill", 100, 101, 102), ("sleep", 1), ("stack", "start", "celery")]),
    ("failover", [("stack", "node", "master"), ("pid", "master"), ("kill", 100), ("sleep", 1), ("stack", "failover"),
                  ("stack", "rebuild-replica")]),
])
def test_each_fault_does_what_its_note_says_to_the_stack_in_order(recorded, fault, calls):
    note = drill.inject(fault)
    assert recorded == calls
    assert note and (fault != "failover" or note.startswith("kill -9 of the master (pg1)"))


def test_every_fault_the_drill_offers_can_be_injected_and_no_other():
    assert set(drill.FAULTS) == set(drill.ONE_COMMAND) | set(drill.STOPPED) | {"gunicorn-workers", "celery", "failover"}
    with pytest.raises(ValueError):
        drill.inject("disk-full")


@pytest.mark.parametrize("fault, component", [("gunicorn-workers", "gunicorn"), ("celery", "celery"),
                                              ("failover", "master")])
def test_a_fault_on_a_process_that_is_not_running_stops_the_drill_naming_it_and_kills_nothing(
        monkeypatch, fault, component):
    monkeypatch.setattr(drill, "deploy_stack", lambda *args, check=True: "" if args[0] == "pid" else "pg1\n")
    killed = []
    monkeypatch.setattr(drill, "kill", killed.append)
    monkeypatch.setattr(drill.time, "sleep", lambda seconds: None)
    with pytest.raises(SystemExit, match=f"deploy/stack pid {component}: not running"):
        drill.inject(fault)
    assert killed == []
