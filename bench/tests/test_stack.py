"""The bench's data check (bench/stack.py): an acknowledged save missing from the database is LOST."""
import pytest
from django.db import OperationalError

from bench import stack
from bench.tests.factories import jtl
from respondents.models import Answer, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


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
