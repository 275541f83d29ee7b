"""The answer counts: each kind of question counted by school, grade and role, rolled up exactly, the latest answer
once, withdrawn people and questions not asked left out."""
import pytest

from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from results.aggregates import Bins, answer_counts_refresh, answer_counts_refresh_open, number_bins
from results.models import AnswerCount, ResultsRefresh
from results.tests.helpers import answered
from rosters.services import respondent_withdraw
from surveys.models import Question
from surveys.services import survey_create
from surveys.tests.factories import make_screener_survey, replicated, small_document

pytestmark = pytest.mark.django_db
Level = AnswerCount.Level
Cell = AnswerCount.Cell


def counts(survey, code, *, level=Level.STATE, cell=Cell.VALUE, **where):
    """{value: count} of question ``code`` at ``level``, of every grade and role unless ``where`` names one."""
    question = Question.objects.get(survey=survey, code=code)
    rows = AnswerCount.objects.filter(survey=survey, level=level, question=question, cell=cell,
                                      every_grade="grade" not in where, every_role="role" not in where, **where)
    found = dict(rows.values_list("value", "count"))
    assert len(found) == rows.count(), "one row a value in a selection"
    return found


def mean_row(survey, code, *, level=Level.STATE, **where):
    return AnswerCount.objects.get(survey=survey, level=level, question__code=code, cell=Cell.MEAN, every_grade=True,
                                   every_role=True, **where)


@pytest.fixture
def answers(client, survey, lincoln, adams):
    """Lincoln grade 7: three students (red/cat dog/age 12, blue/dog/age 14, red, who changed from blue) and a
    teacher (blue, nickname, pets fish); Adams grade 8: one student (red/cat, age 40), and one who is withdrawn
    after answering; one not started."""
    return answers_given(client, survey, lincoln, adams)


def answers_given(client, survey, lincoln, adams):
    ana, ben, cy = make_respondents(survey, 3, school=lincoln, grade="7", role="student")
    teacher = make_respondents(survey, 1, school=lincoln, grade="7", role="teacher")
    dee, gone = make_respondents(survey, 2, school=adams, grade="8", role="student")
    make_respondents(survey, 1, school=adams, grade="8", role="student")
    answered(client, ana, (1, {"q-colour": "red", "q-pets": ["cat", "dog"], "q-age": "12"}),
             (2, {"q-safe": "2", "q-happy": "1", "q-born": "2014-03-04"}))
    answered(client, ben, (1, {"q-colour": "blue", "q-pets": ["dog"], "q-age": "14"}))
    answered(client, cy, (1, {"q-colour": "blue"}))
    answered(client, cy, (1, {"q-colour": "red", "q-nickname": ""}))  # saved again: the latest counts
    answered(client, teacher, (1, {"q-colour": "blue", "q-pets": ["fish"], "q-nickname": "Mx T"}))
    answered(client, dee, (1, {"q-colour": "red", "q-pets": ["cat"], "q-age": "40"}))
    answered(client, gone, (1, {"q-colour": "blue", "q-pets": ["cat"], "q-age": "90"}))
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[gone.pk], survey=survey)
    return survey


def test_a_single_choice_counts_each_respondent_s_latest_answer_once_and_leaves_the_withdrawn_out(answers):
    answer_counts_refresh(survey=answers)
    assert counts(answers, "colour") == {"red": 3, "blue": 2}
    assert counts(answers, "colour", level=Level.SCHOOL, school__code="LIN", role="student") == {"red": 2, "blue": 1}
    assert counts(answers, "colour", level=Level.SCHOOL, school__code="ADA") == {"red": 1}


def test_a_multiple_choice_counts_each_choice_and_those_who_answered(answers):
    answer_counts_refresh(survey=answers)
    assert counts(answers, "pets") == {"cat": 2, "dog": 2, "fish": 1}
    assert counts(answers, "pets", cell=Cell.ANSWERED) == {"": 4}


def test_a_grid_counts_each_row_and_text_and_dates_only_how_many_answered(answers):
    answer_counts_refresh(survey=answers)
    assert counts(answers, "safe") == {"2": 1}
    assert counts(answers, "happy") == {"1": 1}
    assert counts(answers, "nickname", cell=Cell.ANSWERED) == {"": 1}  # a blank answer is not an answer
    assert counts(answers, "born", cell=Cell.ANSWERED) == {"": 1}
    # What was written is never stored.
    assert not AnswerCount.objects.filter(value="Mx T").exists()


def test_a_number_is_counted_in_bins_from_its_minimum_and_maximum_with_its_answers_added_up(answers):
    answer_counts_refresh(survey=answers)
    age = Question.objects.get(survey=answers, code="age")  # min 5, max 99
    bins = Bins.from_json(ResultsRefresh.objects.get(survey=answers).bins[str(age.pk)])
    assert bins == Bins(low=0, width=10, bins=10, integer=True)
    assert counts(answers, "age") == {"1": 2, "4": 1}  # 12 and 14 in 10–19, 40 in 40–49 (90 withdrawn)
    mean = mean_row(answers, "age")
    assert (mean.count, mean.total) == (3, 12 + 14 + 40)
    assert counts(answers, "age", cell=Cell.ANSWERED) == {"": 3}


def test_every_selection_adds_up_its_parts_and_a_rebuild_replaces_them(answers):
    first = answer_counts_refresh(survey=answers)
    assert answer_counts_refresh(survey=answers) == first
    rows = AnswerCount.objects.filter(survey=answers)
    for level in (Level.DISTRICT, Level.STATE):  # every grade and role of a place: its schools' added up
        assert sum(rows.filter(level=level, every_grade=True, every_role=True).values_list("count", flat=True)) == sum(
            rows.filter(level=Level.SCHOOL, every_grade=True, every_role=True).values_list("count", flat=True))
    for level in (Level.SCHOOL, Level.DISTRICT, Level.STATE):  # every grade's and role's: each's added up
        everyone = sum(rows.filter(level=level, every_grade=True, every_role=True).values_list("count", flat=True))
        for every in ({"every_grade": True}, {"every_role": True}, {}):
            groups = rows.filter(level=level, every_grade=every.get("every_grade", False),
                                 every_role=every.get("every_role", False))
            assert sum(groups.values_list("count", flat=True)) == everyone
    assert counts(answers, "colour", level=Level.DISTRICT, district__code="D2") == {"red": 1}
    assert counts(answers, "colour", level=Level.SCHOOL, school__code="LIN", grade="7") == {"red": 2, "blue": 2}
    people = rows.filter(level=Level.STATE, cell=Cell.RESPONDENTS, every_grade=True, every_role=True)
    # The not started and the withdrawn are not counted.
    assert dict(people.values_list("value", "count")) == {Respondent.Status.IN_PROGRESS: 5, "": 5}


def test_questions_with_skip_logic_are_counted_by_the_flow_as_the_others_are_by_the_database(client, lincoln, adams):
    """The pets and age questions with a show_if that every one of these people meets: counted person by person
    through the flow (``_asked_entries``), they come out as the GROUP BYs count them without one."""
    always = {"op": "answered", "q": "colour"}
    document = small_document(slug="conditional")
    for question in document["pages"][0]["questions"]:
        if question["code"] in {"pets", "age"}:
            question["show_if"] = always
    survey = replicated(survey_create(document=document))
    answers_given(client, survey, lincoln, adams)
    answer_counts_refresh(survey=survey)
    assert counts(survey, "pets") == {"cat": 2, "dog": 2, "fish": 1}
    assert counts(survey, "pets", cell=Cell.ANSWERED) == {"": 4}
    assert counts(survey, "pets", level=Level.SCHOOL, school=lincoln, role="teacher") == {"fish": 1}
    assert counts(survey, "age") == {"1": 2, "4": 1}
    assert mean_row(survey, "age").total == 12 + 14 + 40


def test_a_question_not_asked_with_the_answers_given_now_is_not_counted(client, lincoln):
    survey = make_screener_survey()  # page 2 (colour) only for those who consent
    stays, leaves = make_respondents(survey, 2, school=lincoln, grade="7", role="student")
    answered(client, stays, (1, {"q-consent": "yes"}), (2, {"q-colour": "red"}))
    answered(client, leaves, (1, {"q-consent": "yes"}), (2, {"q-colour": "blue"}))
    answered(client, leaves, (1, {"q-consent": "no"}))  # colour is kept, but no longer asked
    answer_counts_refresh(survey=survey)
    assert counts(survey, "consent") == {"yes": 1, "no": 1}
    assert counts(survey, "colour") == {"red": 1}
    assert counts(survey, "colour", level=Level.SCHOOL, school=lincoln) == {"red": 1}


def test_a_grade_with_a_tab_a_line_break_or_a_backslash_is_kept_as_it_is(client, survey, lincoln):
    grade = "7\tA\\B\nC"  # a roster may hold anything; COPY's text format needs them escaped
    person = make_respondents(survey, 1, school=lincoln, grade=grade, role="student")
    answered(client, person, (1, {"q-colour": "red"}))
    answer_counts_refresh(survey=survey)
    assert counts(survey, "colour", level=Level.STATE, grade=grade) == {"red": 1}
    assert counts(survey, "colour", level=Level.SCHOOL, grade=grade, school=lincoln) == {"red": 1}


def test_the_periodic_refresh_rebuilds_every_open_survey(answers):
    from results.tasks import answer_counts_refresh_task

    answer_counts_refresh_task()
    assert ResultsRefresh.objects.filter(survey=answers).exists()
    assert answer_counts_refresh_open() == 1


@pytest.mark.parametrize(("low", "high", "integer", "expected", "labels"), [
    (5, 99, True, Bins(0, 10, 10, True), ["0–9", "90–99"]),
    (0, 5, True, Bins(0, 1, 6, True), ["0", "5"]),
    (0, 24, False, Bins(0, 2.5, 10, False), ["0 to under 2.5", "22.5 to under 25"]),
    (7, 7, True, Bins(7, 1, 1, True), ["7", "7"]),
    (-3.5, 2, False, Bins(-4, 1, 7, False), ["-4 to under -3", "2 to under 3"]),
])
def test_number_bins_have_a_round_width_and_cover_every_answer(low, high, integer, expected, labels):
    bins = number_bins(low=low, high=high, integer=integer)
    assert bins == expected
    assert [bins.label(0), bins.label(bins.bins - 1)] == labels
    assert bins.index(low) == 0 and bins.index(high) == bins.bins - 1
