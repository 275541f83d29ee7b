"""What the results pages read besides the counts: the grades offered, the question index, whether the counts are
stale, and the texts a selection wrote (only for those who may export, only where its count is shown, as the counts
count them)."""
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent, School
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of
from results.aggregates import answer_counts_refresh
from results.models import ResultsRefresh
from results.selectors import answer_counts_stale, question_index, results_grades, text_answers
from results.tests.helpers import answered
from rosters.services import respondent_restore, respondent_withdraw
from surveys.services import survey_create
from surveys.tests.factories import replicated, small_document

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


def test_the_grade_filter_offers_the_counted_grades_in_grade_order_pk_and_k_first_then_as_numbers(survey, lincoln):
    for grade in ("10", "PK", "9", "K", "12", "07", "Adult", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade)
    make_respondents(survey, 1, school=lincoln, grade="11")  # not started: not counted, not offered
    Respondent.objects.exclude(grade="11").update(status=Respondent.Status.IN_PROGRESS)
    answer_counts_refresh(survey=survey)
    assert results_grades(survey=survey) == ["PK", "K", "07", "9", "10", "12", "Adult"]


def test_the_question_index_lists_every_page_s_questions_a_grid_s_rows_with_its_prompt(survey):
    index = question_index(survey=survey)
    assert [(page.number, page.title) for page in index] == [(1, "First"), (2, "Second"), (3, "Third")]
    assert [(q.code, q.prompt, q.heading) for q in index[1].questions] == [
        ("safe", "I feel safe.", "Agree?"), ("happy", "I am happy.", "Agree?"), ("born", "Birthday?", "")]


def test_the_counts_are_stale_when_none_are_made_an_answer_is_saved_or_someone_is_withdrawn_or_restored(
        client, survey, lincoln, settings):
    person = make_respondents(survey, 1, school=lincoln, grade="7", role="student")
    assert answer_counts_stale(survey=survey, max_age=300)
    answer_counts_refresh(survey=survey)
    assert not answer_counts_stale(survey=survey, max_age=300)
    answered(client, person, (1, {"q-colour": "red"}))
    assert answer_counts_stale(survey=survey, max_age=300)
    answer_counts_refresh(survey=survey)
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[person.pk], survey=survey)
    assert answer_counts_stale(survey=survey, max_age=300)
    answer_counts_refresh(survey=survey)
    respondent_restore(scope=COMMAND_LINE, respondent_ids=[person.pk], survey=survey)
    assert answer_counts_stale(survey=survey, max_age=300)
    answer_counts_refresh(survey=survey)
    assert not answer_counts_stale(survey=survey, max_age=300)
    ResultsRefresh.objects.filter(survey=survey).update(refreshed_at=timezone.now() - timedelta(seconds=301))
    assert answer_counts_stale(survey=survey, max_age=300)
    answer_counts_refresh(survey=survey)
    settings.RESULTS_SUPPRESSION_THRESHOLD += 1  # suppressed with another threshold
    assert answer_counts_stale(survey=survey, max_age=300)


@pytest.fixture
def conditional(client, settings, lincoln, adams):
    """The small survey with the nickname asked only of those who chose red. Lincoln grade 7: Ace, Ace, Bo and Cy
    (red), one who wrote "Dee" then chose blue (kept, no longer asked), one blank, one withdrawn (Eve); Adams
    grade 8: three Zeds; Byrd grade 8: two (Yo), under the threshold of 3."""
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    document = small_document(slug="conditional")
    nickname = next(q for q in document["pages"][0]["questions"] if q["code"] == "nickname")
    nickname["show_if"] = {"op": "equals", "q": "colour", "value": "red"}
    survey = replicated(survey_create(document=document))
    people = make_respondents(survey, 7, school=lincoln, grade="7", role="student")
    for person, nickname in zip(people, ["Ace", "Bo", "Ace", "Cy", "Dee", "", "Eve"], strict=True):
        answered(client, person, (1, {"q-colour": "red", "q-nickname": nickname}))
    answered(client, people[4], (1, {"q-colour": "blue", "q-nickname": "Dee"}))
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[people[6].pk], survey=survey)
    for person in make_respondents(survey, 3, school=adams, grade="8", role="student"):
        answered(client, person, (1, {"q-colour": "red", "q-nickname": "Zed"}))
    byrd = make_school("BYR", "Byrd", ("D2", "District Two"))
    for person in make_respondents(survey, 2, school=byrd, grade="8", role="student"):
        answered(client, person, (1, {"q-colour": "red", "q-nickname": "Yo"}))
    answer_counts_refresh(survey=survey)
    return survey


def texts(page):
    return [(answer.text, answer.people) for answer in page.answers]


def test_texts_are_those_the_counts_count_each_once_in_order_a_page_at_a_time(conditional, lincoln):
    scope = scope_of(make_staff(Role.ANALYST))
    whole = text_answers(scope=scope, survey=conditional, code="nickname", school=lincoln)
    assert whole.shown and whole.result.answered == 4 and whole.page == 1
    assert texts(whole) == [("Ace", 2), ("Bo", 1), ("Cy", 1)] and not whole.more
    first = text_answers(scope=scope, survey=conditional, code="nickname", school=lincoln, per_page=2)
    second = text_answers(scope=scope, survey=conditional, code="nickname", school=lincoln, per_page=2, number=2)
    assert (texts(first), first.more, texts(second), second.more) == ([("Ace", 2), ("Bo", 1)], True, [("Cy", 1)],
                                                                       False)
    # The whole state holds Byrd's two: under the threshold alone, counted in the whole.
    assert texts(text_answers(scope=scope, survey=conditional, code="nickname")) == [
        ("Ace", 2), ("Bo", 1), ("Cy", 1), ("Yo", 2), ("Zed", 3)]
    assert texts(text_answers(scope=scope, survey=conditional, code="nickname", grade="7", role="student")) == [
        ("Ace", 2), ("Bo", 1), ("Cy", 1)]


def test_texts_always_asked_are_read_by_the_database_as_the_counts_are(client, survey, lincoln, settings):
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    people = make_respondents(survey, 4, school=lincoln, grade="7", role="student")
    for person, nickname in zip(people, ["Bo", "Ace", "", "Bo"], strict=True):
        answered(client, person, (1, {"q-colour": "red", "q-nickname": nickname}))
    answered(client, make_respondents(survey, 1, school=lincoln), (1, {"q-colour": "red", "q-nickname": "Al"}))
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[Respondent.objects.latest("pk").pk], survey=survey)
    answer_counts_refresh(survey=survey)
    scope = scope_of(make_staff(Role.STATE_ADMIN))
    page = text_answers(scope=scope, survey=survey, code="nickname", per_page=1, number=2)
    assert texts(page) == [("Bo", 2)] and not page.more


def test_no_text_is_listed_for_a_selection_whose_count_is_hidden_nor_to_a_scope_that_may_not_export(
        conditional, adams, lincoln, coordinator):
    scope = scope_of(make_staff(Role.STATE_ADMIN))
    small = text_answers(scope=scope, survey=conditional, code="nickname", school=School.objects.get(code="BYR"))
    assert not small.shown and small.result is None and small.answers == ()
    # Adams's three: shown alone, but its district less Adams is Byrd's two, so one of them is hidden.
    district = text_answers(scope=scope, survey=conditional, code="nickname", district=adams.district)
    alone = text_answers(scope=scope, survey=conditional, code="nickname", school=adams)
    assert not (district.shown and alone.shown)
    for hidden in (page for page in (district, alone) if not page.shown):
        assert hidden.result is not None and hidden.result.answered is None and hidden.answers == ()
    with pytest.raises(PermissionDenied):
        text_answers(scope=scope_of(coordinator), survey=conditional, code="nickname", school=lincoln)
    assert text_answers(scope=scope, survey=conditional, code="colour") is None  # not a text question


def test_texts_saved_after_the_counts_were_made_wait_for_the_next_counts(client, conditional, lincoln):
    scope = scope_of(make_staff(Role.ANALYST))
    late = make_respondents(conditional, 1, school=lincoln, grade="7", role="student")
    answered(client, late, (1, {"q-colour": "red", "q-nickname": "Abe"}))
    page = text_answers(scope=scope, survey=conditional, code="nickname", school=lincoln)
    assert texts(page) == [("Ace", 2), ("Bo", 1), ("Cy", 1)] and page.result.answered == 4
    answer_counts_refresh(survey=conditional)
    page = text_answers(scope=scope, survey=conditional, code="nickname", school=lincoln)
    assert texts(page) == [("Abe", 1), ("Ace", 2), ("Bo", 1), ("Cy", 1)] and page.result.answered == 5
