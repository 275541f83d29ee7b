"""Grades in the order staff read them, whatever way a roster wrote them, in Python and in SQL alike."""
import random

import pytest

from respondents.grades import grade_order, grade_sort_key, grades_sorted
from respondents.models import Respondent
from respondents.tests.factories import make_respondents

READING_ORDER = ["PK", "Pre-K", "TK", "K", "k", "Kindergarten", "1", "2nd", "07", "7", "Grade 7", "gr. 8", "9",
                 "10", "11", "12th grade", "13", "Adult 2", "Adult 10", "Ungraded", ""]


def test_grades_sort_k_first_then_one_to_twelve_as_numbers_then_other_text_naturally_and_no_grade_last():
    shuffled = READING_ORDER[:]
    random.Random(7).shuffle(shuffled)
    assert sorted(shuffled, key=grade_sort_key) == READING_ORDER
    assert grades_sorted(["10", "9", "K", "1", "12", "2"]) == ["K", "1", "2", "9", "10", "12"]


def test_a_grade_written_07_or_grade_7_sorts_as_7_and_keeps_its_text():
    assert grade_sort_key("07")[:2] == grade_sort_key("7")[:2] == grade_sort_key("Grade 7")[:2]
    assert grade_sort_key("7") < grade_sort_key("8") < grade_sort_key("10")
    assert grades_sorted(["Grade 7", "07", "7", "7"]) == ["07", "7", "Grade 7"]  # each once, as written


def test_text_that_is_no_grade_number_sorts_after_twelve_in_a_natural_order():
    assert grades_sorted(["Adult 10", "13", "Adult 2", "12", "0"]) == ["12", "0", "13", "Adult 2", "Adult 10"]
    assert grades_sorted(["Grade", "green", "K"]) == ["K", "Grade", "green"]


@pytest.mark.django_db
def test_the_sql_order_ranks_rows_as_the_python_key_does(survey):
    for grade in ["10", "", "K", "7", "07", "PK", "Adult 2", "9"]:
        make_respondents(survey, 1, grade=grade)
    people = Respondent.objects.filter(survey=survey)
    grades = people.values_list("grade", flat=True).distinct()
    ordered = people.annotate(rank=grade_order(grades)).order_by("rank", "pk").values_list("grade", flat=True)
    assert list(ordered) == ["PK", "K", "07", "7", "9", "10", "Adult 2", ""]
    # A grade the list was not told of comes last.
    assert list(people.annotate(rank=grade_order(["7"])).order_by("rank", "pk")[:1].values_list(
        "grade", flat=True)) == ["7"]


@pytest.mark.django_db
def test_rows_of_no_grade_known_are_still_ordered_on_every_database(survey):
    make_respondents(survey, 2, grade="7")
    people = Respondent.objects.filter(survey=survey)
    assert list(people.annotate(rank=grade_order([])).order_by("rank", "pk").values_list("grade", flat=True)) == [
        "7", "7"]
    assert list(people.none().annotate(rank=grade_order(people.none().values_list("grade", flat=True)))) == []
