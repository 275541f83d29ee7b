"""The results bench (bench/results_bench.py): its survey, its weighted answers, its latency figures, and --drop."""
import pytest

from bench import results_bench
from bench.tests.factories import seeded_respondents
from respondents.models import Respondent
from results.aggregates import answer_counts_refresh
from results.models import AnswerCount
from surveys.models import Question, Survey
from surveys.services import survey_create
from surveys.tests.factories import make_survey


def test_answers_are_weighted_so_that_counts_differ_from_cell_to_cell():
    assert results_bench.weighted(["1", "2", "3", "4", "5"]) == ["1", "2", "2", "2", "3", "3", "3", "3", "3",
                                                               "4", "4", "4", "5"]


@pytest.mark.django_db
def test_the_bench_survey_has_ten_questions_of_the_kinds_the_page_shows():
    survey = survey_create(document=results_bench.results_document("results-bench-1-1"))
    kinds = [q.kind for q in Question.objects.filter(survey=survey).exclude(kind="grid").order_by("page", "pk")]
    assert sorted(kinds) == sorted(["single", "multiple", "single", "single", "integer",
                                    "single", "multiple", "single", "single", "date"])


@pytest.mark.django_db
def test_the_bench_survey_is_deleted_with_its_counts_and_people_and_nothing_else():
    kept, bench = make_survey(slug="kept"), make_survey(slug="results-bench-1-1")
    seeded_respondents(kept, 2, prefix="1")
    seeded_respondents(bench, 3)
    answer_counts_refresh(survey=bench)
    results_bench.forget(bench)
    assert list(Survey.objects.values_list("slug", flat=True)) == ["kept"]
    assert Respondent.objects.count() == 2
    assert not AnswerCount.objects.exists()
