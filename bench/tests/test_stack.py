"""What the bench tools share (bench/stack.py): the data check (an acknowledged save missing from the database is
LOST), a bench survey's clean-up."""
import argparse
import json

import pytest
from django.core.cache import caches
from django.db import OperationalError

from bench import stack
from bench.tests.factories import jtl, seeded_respondents
from respondents.models import Answer, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from results.aggregates import answer_counts_refresh
from results.models import AnswerCount
from surveys.models import Question, Survey
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


# ---------------------------------------------------------------- a JMeter run's figures


def statistics(label, *, samples, errors, throughput, mean, p50, p95, p99):
    return {label: {"sampleCount": samples, "errorCount": errors, "throughput": throughput, "meanResTime": mean,
                    "medianResTime": p50, "pct2ResTime": p95, "pct3ResTime": p99}}


def test_a_run_s_figures_come_from_its_report_its_results_and_the_load_s_own_cpu(tmp_path):
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "statistics.json").write_text(json.dumps({
        **statistics("Total", samples=4, errors=1, throughput=12.5, mean=12.345, p50=10.04, p95=20.06, p99=30.0),
        **statistics("change_page", samples=2, errors=1, throughput=6.2, mean=16.0, p50=15.0, p95=25.0, p99=31.0)}))
    jtl(tmp_path / "results.jtl", [
        [1_000, 50, "login", "302", "true", "A", ""],
        [1_200, 900, "change_page", "503", "true", "A", "1"],  # retried: a success the person waited for
        [1_300, 100, "change_page", "200", "true", "A", "1"],
        [2_500, 500, "complete", "200", "true", "A", ""],
    ])
    (tmp_path / "load_cpu").write_text("3.25 0.75\n")  # jmeter/run's `time`: user and system seconds
    figures = stack.jmeter_figures("survey_taking", tmp_path)
    assert figures["rps"] == 12.5 and figures["samples"] == 4 and figures["failed"] == 1 and figures["retried"] == 1
    assert figures["duration_s"] == 2.0  # from the first sample's start (1.0 s) to the last one's end (3.0 s)
    assert figures["latency"]["Total"] == {"mean": 12.3, "p50": 10.0, "p95": 20.1, "p99": 30.0}
    assert figures["latency"]["change_page"] == {"mean": 16.0, "p50": 15.0, "p95": 25.0, "p99": 31.0}
    assert figures["jmeter_cpu_s"] == 4.0
    assert figures["jtl"] == tmp_path / "results.jtl"


def test_a_run_without_a_report_is_a_stack_error_that_carries_jmeter_s_output(tmp_path):
    with pytest.raises(stack.StackError, match="survey_taking produced no report:\nno Java"):
        stack.jmeter_figures("survey_taking", tmp_path, "no Java")


def test_the_load_tools_share_the_jmeter_run_arguments_with_their_own_defaults():
    parser = argparse.ArgumentParser()
    stack.load_arguments(parser, duration=40, threads=20, think=1)
    assert vars(parser.parse_args([])) == {"duration": 40, "threads": 20, "think": 1}
    assert vars(parser.parse_args(["--think", "0.5", "--threads", "3"])) == {"duration": 40, "threads": 3, "think": 0.5}
    parser = argparse.ArgumentParser()
    stack.load_arguments(parser, threads=12, pages=8)  # no --duration, no --think
    assert vars(parser.parse_args([])) == {"threads": 12, "pages": 8}


def test_forgetting_login_failures_clears_the_login_limits_counters():
    caches["ratelimit"].set("rl:failures:192.0.2.7", 20)
    stack.forget_login_failures()
    assert caches["ratelimit"].get("rl:failures:192.0.2.7") is None


def test_a_bench_survey_is_deleted_with_its_counts_people_and_answers_and_nothing_else():
    """What each bench's clean-up (export, monitoring, results, search) deletes: ``survey_forget``."""
    from django.utils import timezone

    kept, bench = make_survey(slug="kept"), make_survey(slug="results-bench-1-1")
    seeded_respondents(kept, 2, prefix="1")
    people = seeded_respondents(bench, 3, prefix="X")
    question = bench.questions.exclude(kind=Question.Kind.GRID).first()
    Answer.objects.bulk_create(Answer(respondent=person, question=question, value="", saved_at=timezone.now())
                               for person in people)
    answer_counts_refresh(survey=bench)
    assert AnswerCount.objects.filter(survey=bench).exists()
    stack.survey_forget(bench)
    assert list(Survey.objects.values_list("slug", flat=True)) == ["kept"]
    assert Respondent.objects.count() == 2 and not Answer.objects.exists()
    assert not AnswerCount.objects.exists()
