"""The results page's reads (``results/selectors.py``)."""
import pytest

from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from results.aggregates import answer_counts_refresh
from results.selectors import results_grades

pytestmark = pytest.mark.django_db


def test_the_grade_filter_offers_the_counted_grades_in_grade_order_pk_and_k_first_then_as_numbers(survey, lincoln):
    for grade in ("10", "PK", "9", "K", "12", "07", "Adult", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade)
    make_respondents(survey, 1, school=lincoln, grade="11")  # not started: not counted, not offered
    Respondent.objects.exclude(grade="11").update(status=Respondent.Status.IN_PROGRESS)
    answer_counts_refresh(survey=survey)
    assert results_grades(survey=survey) == ["PK", "K", "07", "9", "10", "12", "Adult"]
