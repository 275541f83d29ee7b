"""The results bench (bench/results_bench.py): its survey, its weighted answers, its latency figures, and --drop."""
import pytest

from bench import results_bench
from surveys.models import Question
from surveys.services import survey_create


def test_answers_are_weighted_so_that_counts_differ_from_cell_to_cell():
    assert results_bench.weighted(["1", "2", "3", "4", "5"]) == ["1", "2", "2", "2", "3", "3", "3", "3", "3",
                                                               "4", "4", "4", "5"]


@pytest.mark.django_db
def test_the_bench_survey_has_ten_questions_of_the_kinds_the_page_shows():
    survey = survey_create(document=results_bench.results_document("results-bench-1-1"))
    kinds = [q.kind for q in Question.objects.filter(survey=survey).exclude(kind="grid").order_by("page", "pk")]
    assert sorted(kinds) == sorted(["single", "multiple", "single", "single", "integer",
                                    "single", "multiple", "single", "single", "date"])
