"""The bench's data check (jmeter/bench.py): an acknowledged save missing from the database is LOST."""
import csv
import importlib.util
from pathlib import Path

import pytest

from respondents.models import Answer
from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db

BENCH = Path(__file__).resolve().parents[2] / "jmeter" / "bench.py"
spec = importlib.util.spec_from_file_location("bench", BENCH)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def jtl(path, rows):
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["timeStamp", "elapsed", "label", "success", "code", "page"])
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
        [1000, 5, "login", "true", respondent.access_code, ""],
        [1010, 9, "change_page", "true", respondent.access_code, "1"],
        [1020, 9, "change_page", "false", respondent.access_code, "2"],  # not acknowledged: not counted
        [1030, 9, "change_page", "true", respondent.access_code, "3"],
    ]
    return survey, respondent, jtl(tmp_path / "results.jtl", rows)


def test_every_acknowledged_answer_found_means_nothing_lost(saved):
    survey, respondent, path = saved
    expected = bench.answerable_per_page(survey.slug)
    assert expected == {1: 4, 2: 3, 3: 2}
    check = bench.data_check(path, survey.slug, expected)
    assert check["acknowledged_saves"] == 2 and check["acknowledged_answers"] == 6
    assert check["answers_in_database"] == 6 and check["lost_answers"] == 0
    assert check["respondents_used"] == 1


def test_an_acknowledged_answer_missing_from_the_database_is_lost(saved):
    survey, respondent, path = saved
    Answer.objects.filter(respondent=respondent, question__code="pets").delete()
    check = bench.data_check(path, survey.slug, bench.answerable_per_page(survey.slug))
    assert check["lost_answers"] == 1


def test_an_acknowledged_finish_whose_response_is_not_complete_is_lost(saved):
    survey, respondent, path = saved
    from respondents.models import Respondent

    Respondent.objects.filter(pk=respondent.pk).update(status=Respondent.Status.IN_PROGRESS)
    check = bench.data_check(path, survey.slug, bench.answerable_per_page(survey.slug))
    assert check["completed_acknowledged"] == 1 and check["completed_lost"] == 1


def test_the_bench_reads_again_after_its_own_connection_is_cut(monkeypatch):
    from django.db import OperationalError

    calls = []

    def read():
        calls.append(1)
        if len(calls) < 3:
            raise OperationalError("server closed the connection unexpectedly")
        return "read"

    monkeypatch.setattr(bench.time, "sleep", lambda seconds: None)
    assert bench.reconnecting(read) == "read" and len(calls) == 3
