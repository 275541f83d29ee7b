import pytest
from django.utils import timezone

from respondents.models import Respondent
from respondents.selectors import answers_for_questions, respondent_answers
from respondents.tests.factories import login, make_respondents, save_page
from surveys.selectors import page_definition
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(client):
    survey = make_survey()
    respondent = make_respondents(survey)
    login(client, respondent)
    assert save_page(client, 1, {"q-colour": "red", "q-age": "12"}).json()["saved"]
    assert save_page(client, 2, {"q-safe": "2"}).json()["saved"]
    return survey, respondent


def test_respondent_answers_reads_the_respondent_and_the_answers_in_one_query(answered, django_assert_num_queries):
    survey, respondent = answered
    questions = page_definition(survey=survey, number=1).answerable.values()
    with django_assert_num_queries(1):
        state, saved, facts = respondent_answers(respondent_id=respondent.pk, questions=questions, survey=survey,
                                                 codes={"safe"})
    assert (state.id, state.access_code, state.current_page) == (respondent.pk, respondent.access_code, 3)
    assert state.status == Respondent.Status.IN_PROGRESS and not state.is_completed and not state.is_withdrawn
    assert (saved, facts) == answers_for_questions(respondent_id=respondent.pk, questions=questions, survey=survey,
                                                   codes={"safe"})
    assert sorted(saved.values()) == ["", "", "12", "red"] and facts == {"safe": "2"}


def test_respondent_answers_of_a_respondent_without_answers_or_questions(answered):
    survey, _ = answered
    fresh = make_respondents(survey)
    state, saved, facts = respondent_answers(respondent_id=fresh.pk, questions=(), survey=survey)
    assert state.id == fresh.pk and state.status == Respondent.Status.NOT_STARTED and (saved, facts) == ({}, {})


def test_respondent_answers_says_withdrawn_and_completed_and_none_for_a_row_that_is_gone(answered):
    survey, respondent = answered
    Respondent.objects.filter(pk=respondent.pk).update(withdrawn_at=timezone.now(), status=Respondent.Status.COMPLETED)
    state, _, _ = respondent_answers(respondent_id=respondent.pk, questions=(), survey=survey)
    assert state.is_withdrawn and state.is_completed
    assert respondent_answers(respondent_id=respondent.pk + 1000, questions=(), survey=survey) == (None, {}, {})
