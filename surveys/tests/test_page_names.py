"""Pages named as staff see them: the definition's number and title, a conditional page marked with its
condition."""
import pytest

from surveys.page_names import page_name, page_names
from surveys.tests.factories import make_demo_survey

pytestmark = pytest.mark.django_db


def test_pages_are_named_by_the_definition_s_number_and_title_and_a_conditional_page_by_its_condition():
    names = page_names(survey=make_demo_survey())
    teaching, classmates = names[5], names[6]
    assert (str(teaching), teaching.label) == ("Page 5 — Your teaching", "Page 5 — Your teaching (conditional)")
    assert teaching.shown_if == "you chose “Teacher” for “Which best describes you?”"
    assert (classmates.label, classmates.conditional) == ("Page 6 — Classmates", False)
    assert page_name(names, 40).label == "Page 40"  # a page the definition no longer has
