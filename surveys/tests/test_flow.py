"""What applies to a respondent: the compiled rules of a survey, the pages and questions they lead to."""
import pytest

from surveys.flow import Route
from surveys.selectors import survey_flow
from surveys.tests.factories import make_demo_survey, make_survey

pytestmark = pytest.mark.django_db

TEACHER = {"role": "teacher"}
STUDENT = {"role": "student"}


@pytest.fixture
def demo():
    return survey_flow(survey=make_demo_survey())


def test_a_survey_without_rules_asks_everything_and_reads_nothing():
    flow = survey_flow(survey=make_survey())
    assert not flow.conditional and not flow.reads and not flow.ruled_pages
    assert flow.route(2).pages == (1, 2, 3)
    assert all(not codes for codes in flow.page_reads.values())
    assert all(flow.asks(code, {}) for code in flow.questions)


def test_the_pages_that_apply_follow_the_role(demo):
    everyone = tuple(n for n in range(1, 14) if n != 5)
    assert demo.pages(demo.effective(STUDENT)) == everyone
    assert demo.pages(demo.effective(TEACHER)) == tuple(range(1, 14))
    assert demo.pages(demo.effective({})) == everyone


def test_a_question_is_asked_when_its_rule_and_its_pages_rule_hold(demo):
    teacher = demo.effective(TEACHER)
    assert demo.asks("grade_taught", teacher) and not demo.asks("grade", teacher)
    assert demo.asks("teach_years", teacher) and demo.asks("teach_time", teacher)  # a grid row on the teachers' page
    student = demo.effective(STUDENT)
    assert not demo.asks("teach_years", student) and not demo.asks("teach_time", student)
    assert demo.asks("overall_why", {"overall": "2"}) and not demo.asks("overall_why", {"overall": "4"})


def test_an_answer_to_a_question_not_asked_reads_as_blank(demo):
    # A former teacher's saved answers stay, but a student's rules read them as blank.
    stored = {"role": "student", "teach_years": "12", "years_at_school": "3"}
    codes = demo.reads | {"teach_years"}
    answers = demo.effective(stored, codes=codes)
    assert answers["teach_years"] == "" and answers["years_at_school"] == "3"
    assert demo.effective({**stored, "role": "teacher"}, codes=codes)["teach_years"] == "12"


def test_reads_holds_every_code_a_rule_reads_and_what_decides_those(demo):
    # teach_years' constraint reads years_at_school; teach_years is read by nothing, but is decided by role.
    assert {"role", "overall", "years_at_school"} <= demo.reads
    assert "teach_years" not in demo.reads


def test_a_page_page_reads_the_rules_answers_that_are_not_on_its_page(demo):
    assert demo.page_reads[1] == frozenset()          # role is on the page itself
    assert demo.page_reads[2] == {"role"}             # the teachers' page: where Next leads
    assert demo.page_reads[5] == {"role", "years_at_school"}
    assert demo.page_reads[13] == {"role"}            # overall is on the page itself


def test_a_grid_row_takes_its_grids_rule_and_its_own(demo):
    assert [q.code for q in demo.questions.values() if q.reads_own_page] == [
        "grade", "grade_taught", "grade_child", "overall_why"]
    assert demo.questions["teach_time"].rules == ()  # the page's rule is the page's, not the row's


def test_a_route_goes_back_and_on_to_the_nearest_page_that_applies():
    route = Route(number=4, pages=(1, 2, 3, 4, 6, 7))
    assert (route.previous, route.next, route.shown_number, route.shown_count) == (3, 6, 4, 6)
    assert route.progress == 50 and not route.is_first and not route.is_last
    assert Route(number=7, pages=(1, 2, 3, 4, 6, 7)).is_last
    assert Route(number=1, pages=(1, 3)).previous == 1 and Route(number=3, pages=(1, 3)).next == 3


def test_a_page_that_does_not_apply_resolves_to_the_next_that_does_else_the_last():
    route = Route(number=5, pages=(1, 2, 3, 4, 6, 7))
    assert route.resolve(5) == 6
    assert route.resolve(9) == 7
    assert route.shown_number == 5  # counted as if it applied


def test_the_compiled_flow_is_kept_per_definition(demo):
    survey = make_survey(slug="another")
    assert survey_flow(survey=survey) is survey_flow(survey=survey)


def test_a_calculation_is_computed_where_the_walk_reaches_it_and_the_session_keeps_only_answers():
    import json

    from surveys.services import survey_create

    people = {"fn": "add", "args": [{"q": "adults"}, {"q": "children"}]}
    flow = survey_flow(survey=survey_create(document={"slug": "calc", "title": "Calc", "status": "open", "pages": [
        {"questions": [
            {"code": "adults", "kind": "integer", "prompt": "Adults"},
            {"code": "has_children", "kind": "single", "prompt": "Children?",
             "choices": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]},
            {"code": "children", "kind": "integer", "prompt": "How many?",
             "show_if": {"op": "equals", "q": "has_children", "value": "yes"}},
            {"code": "people", "kind": "calculate", "calculation": people},
            {"code": "big", "kind": "note", "prompt": "Big!", "show_if": {"op": "gt", "q": "people", "value": 5}}]},
        {"show_if": {"op": "gt", "q": "people", "value": 5},
         "questions": [{"code": "rooms", "kind": "integer", "prompt": "Rooms"}]},
        {"questions": [{"code": "end", "kind": "short_text", "prompt": "End"}]}]}))
    stored = {"adults": "2", "has_children": "yes", "children": "4"}
    assert flow.effective(stored)["people"] == "6" and flow.pages(flow.effective(stored)) == (1, 2, 3)
    # A question not asked reads as blank, so the sum is blank too, and page 2 does not apply.
    answers = flow.effective({**stored, "has_children": "no"})
    assert answers["people"] == "" and flow.pages(answers) == (1, 3)
    # What the session keeps for page 2's rule: the answers the calculation reads, never the calculation.
    assert flow.page_reads[2] == {"adults", "has_children", "children"} and "people" not in flow.session_codes
    # Page 1 decides page 2: survey.js walks it, computing the calculation where it stands; the note reads it live.
    walk = json.loads(flow.route_scripts[1])["order"]
    assert ["people", 1, [], people] in walk and json.loads(flow.route_scripts[1])["kinds"]["people"] == "decimal"
    assert json.loads(flow.script_calculations[1]) == [["people", people, []]]
