import io
import re

import pytest
from django.core.management import CommandError, call_command

from respondents.models import Respondent
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db


def seed(*args):
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_creates_the_survey_once_and_prints_codes_that_log_in(client):
    output = seed()
    codes = re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)
    assert len(codes) == 5
    assert Survey.objects.get().is_open()
    assert Respondent.objects.count() == 30
    assert client.post("/", {"access_code": codes[0]})["Location"] == "/take/"

    seed()
    assert Survey.objects.count() == 1 and Respondent.objects.count() == 30


def test_seed_demo_adds_respondents_when_the_unused_codes_run_out():
    seed("--respondents", "3", "--show", "3")
    Respondent.objects.update(status=Respondent.Status.COMPLETED)
    output = seed("--respondents", "3", "--show", "3")
    assert "Created 3 demo respondents." in output
    assert Respondent.objects.filter(status=Respondent.Status.NOT_STARTED).count() == 3


def test_seed_bench_survey_makes_pages_of_five_answerable_questions_of_every_kind():
    out = io.StringIO()
    call_command("seed_bench_survey", "--pages", "5", "--slug", "bench-test", stdout=out)
    assert out.getvalue().strip() == "bench-test"
    survey = Survey.objects.get(slug="bench-test")
    assert survey.is_open() and survey.pages.count() == 5
    for page in survey.pages.all():
        assert page.questions.exclude(kind=Question.Kind.GRID).count() == 5
    assert set(survey.questions.values_list("kind", flat=True)) == set(Question.Kind.values)
    with pytest.raises(CommandError, match="at least 1"):
        call_command("seed_bench_survey", "--pages", "0")
    with pytest.raises(CommandError, match="already exists"):
        call_command("seed_bench_survey", "--pages", "2", "--slug", "bench-test")


def test_loadtest_respondents_writes_fresh_codes_that_log_in(client, tmp_path):
    call_command("seed_bench_survey", "--pages", "2", "--slug", "load", stdout=io.StringIO())
    target = tmp_path / "codes.csv"
    call_command("loadtest_respondents", "--survey", "load", "--count", "3", "--output", str(target), stdout=io.StringIO())
    header, *codes = target.read_text().split()
    assert header == "code" and len(set(codes)) == 3
    assert Respondent.objects.filter(survey__slug="load", access_code__in=codes, status="not_started").count() == 3
    assert client.post("/", {"access_code": codes[0]})["Location"] == "/take/"
    with pytest.raises(CommandError, match="No survey with the slug 'nope'"):
        call_command("loadtest_respondents", "--survey", "nope", "--count", "1", "--output", str(target))
