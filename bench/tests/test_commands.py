"""The bench's commands: the bench survey and fresh respondents' codes for a load plan."""
import io

import pytest
from django.core.management import CommandError, call_command

from respondents.models import Respondent
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db


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
