"""The results page: each role sees the counts of its scope, filters are checked through the scope, small cells
are suppressed (threshold 3 here: the setting)."""
import pytest

from accounts.models import StaffMember
from respondents.tests.factories import make_respondents, make_school, make_staff, staff_signed_in
from results.tests.helpers import answered

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


@pytest.fixture
def answers(client, settings, survey, lincoln, adams):
    """District One: Lincoln's grade 7, six students (red x3, blue x3; all chose cat, one dog too); Jefferson's
    grade 7, four students (red) and three teachers (blue). District Two: Adams's grade 8, four students (blue, age
    12); Byrd's grade 8, three students (red, age 14). Only the dog is a count under the threshold (3)."""
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    jefferson = make_school("JEF", "Jefferson", ("D1", "District One"))
    byrd = make_school("BYR", "Byrd", ("D2", "District Two"))
    for n, person in enumerate(make_respondents(survey, 6, school=lincoln, grade="7", role="student")):
        answered(client, person, (1, {"q-colour": "blue" if n >= 3 else "red",
                                      "q-pets": ["cat", "dog"] if n == 0 else ["cat"]}))
    for person in make_respondents(survey, 4, school=jefferson, grade="7", role="student"):
        answered(client, person, (1, {"q-colour": "red"}))
    for person in make_respondents(survey, 3, school=jefferson, grade="7", role="teacher"):
        answered(client, person, (1, {"q-colour": "blue"}))
    for person in make_respondents(survey, 4, school=adams, grade="8", role="student"):
        answered(client, person, (1, {"q-colour": "blue", "q-age": "12"}))
    for person in make_respondents(survey, 3, school=byrd, grade="8", role="student"):
        answered(client, person, (1, {"q-colour": "red", "q-age": "14"}))
    return survey


def results_of(client, user, survey, query="", status=200):
    staff_signed_in(client, user)
    response = client.get(f"/staff/surveys/{survey.slug}/results/{query}")
    assert response.status_code == status, response.content[:2000]
    return response


def figures(response, code):
    """{label: (count, percent)} of question ``code``, None for a suppressed cell, and how many answered."""
    question = next(q for q in response.context["results"].questions if q.code == code)
    return {c.label: None if c.suppressed else (c.count, c.percent) for c in question.cells}, question.answered


def test_a_state_administrator_sees_the_whole_state_with_a_small_multiple_choice_cell_alone_hidden(client, answers):
    response = results_of(client, make_staff(Role.STATE_ADMIN), answers)
    assert response.context["results"].respondents == 20
    assert figures(response, "colour") == ({"Red": (10, 50.0), "Blue": (10, 50.0)}, 20)
    # dog (1) is under 3; a multiple choice's cells do not add up to a total, so cat stays.
    assert figures(response, "pets") == ({"Cat": (6, 100.0), "Dog": None, "Fish": (0, 0.0)}, 6)
    body = response.content.decode()
    assert 'class="number suppressed"' in body and "fewer than 3 people is not shown" in body
    assert "Figures as of" in body
    # The chart never carries a suppressed count.
    pets = next(chart for chart in response.context["charts"] if chart["code"] == "pets")
    assert pets["values"] == [6, None, 0] and pets["labels"][1] == "Dog (suppressed)"


def test_a_small_cell_and_its_complement_are_hidden_and_never_given_away_by_the_school_s_other_figures(
        client, answers):
    """One of Byrd's students more, blue: Byrd's 1 blue is hidden, and its 3 red with it (4 - 3 would give it);
    District Two's figures are Adams's and Byrd's added up, so they are hidden too (less Adams's, they give Byrd's
    away), and the state's figures are then kept from giving District Two's back."""
    byrd = make_school("BYR", "Byrd", ("D2", "District Two"))
    answered(client, make_respondents(answers, 1, school=byrd, grade="8", role="student"), (1, {"q-colour": "blue"}))
    analyst = make_staff(Role.ANALYST)
    assert figures(results_of(client, analyst, answers, "?school=BYR"), "colour")[0] == {"Red": None, "Blue": None}
    assert figures(results_of(client, analyst, answers, "?district=D2"), "colour")[0] == {"Red": None, "Blue": None}
    whole = figures(results_of(client, analyst, answers), "colour")[0]
    district_one = figures(results_of(client, analyst, answers, "?district=D1"), "colour")[0]
    assert not (whole["Red"] and district_one["Red"]), "the state less District One would be District Two"


def test_a_number_question_shows_its_bins_and_mean_only_for_enough_answers(client, answers):
    response = results_of(client, make_staff(Role.STATE_ADMIN), answers)
    age = next(q for q in response.context["results"].questions if q.code == "age")
    assert age.answered == 7 and age.mean == 12.86
    assert [(c.label, c.count) for c in age.cells if c.count] == [("10–19", 7)]
    response = results_of(client, make_staff(Role.STATE_ADMIN), answers, "?school=LIN")
    age = next(q for q in response.context["results"].questions if q.code == "age")
    assert age.answered == 0 and age.mean is None


def test_a_group_under_the_threshold_shows_nothing_but_too_few(client, answers, lincoln):
    answered(client, make_respondents(answers, 1, school=lincoln, grade="7", role="teacher"), (1, {"q-colour": "red"}))
    response = results_of(client, make_staff(Role.STATE_ADMIN), answers, "?school=LIN&role=teacher")
    assert response.context["results"].too_few
    assert not response.context["results"].questions and response.context["charts"] == []
    assert "Too few respondents" in response.content.decode()


def test_a_school_coordinator_sees_only_their_school_whatever_the_url_says(client, answers, coordinator):
    response = results_of(client, coordinator, answers)
    assert response.context["results"].respondents == 6
    assert figures(response, "colour") == ({"Red": (3, 50.0), "Blue": (3, 50.0)}, 6)
    for query in ("?school=ADA", "?district=D2", "?school=ADA&district=D2", "?district=D1&school=ADA"):
        results_of(client, coordinator, answers, query, status=404)
    # Adams's grade 8, asked for from Lincoln's scope: Lincoln has none.
    eighth = results_of(client, coordinator, answers, "?grade=8")
    assert eighth.context["results"].respondents == 0 and "No answers yet" in eighth.content.decode()


def test_an_analyst_of_a_district_sees_its_schools_only(client, answers, adams):
    analyst = make_staff(Role.ANALYST, districts=[adams.district])
    response = results_of(client, analyst, answers)
    assert response.context["results"].respondents == 7
    assert figures(response, "colour") == ({"Red": (3, 42.9), "Blue": (4, 57.1)}, 7)
    results_of(client, analyst, answers, "?school=LIN", status=404)


def test_a_coordinator_s_own_schools_together_are_suppressed_over_the_schools_as_the_state_s_figures_left_them(
        client, answers, lincoln, adams):
    """A coordinator of Lincoln and Adams (a part of each district): their schools together are a selection only
    they have, added up from the two schools' figures, and it never gives a hidden one away: one more Adams student
    (red) is a small cell there, hidden with its complement."""
    answered(client, make_respondents(answers, 1, school=adams, grade="8", role="student"), (1, {"q-colour": "red"}))
    both = make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln, adams])
    mine = results_of(client, both, answers)
    assert mine.context["results"].respondents == 11
    together = figures(mine, "colour")[0]
    each = {code: figures(results_of(client, both, answers, f"?school={code}"), "colour")[0]
            for code in ("LIN", "ADA")}
    assert each["ADA"] == {"Red": None, "Blue": None}
    for label, figure in together.items():
        if figure is not None:  # the two together, less one school shown, is the other: shown too
            assert (each["LIN"][label] is None) == (each["ADA"][label] is None)
            assert figure[0] == sum(school[label][0] for school in each.values() if school[label]) or (
                each["LIN"][label] is None)


def test_bad_filters_get_a_clear_answer(client, answers):
    admin = make_staff(Role.STATE_ADMIN)
    assert "Select a valid choice" in results_of(client, admin, answers, "?role=wizard", status=400).content.decode()
    results_of(client, admin, answers, "?page=abc", status=400)
    results_of(client, admin, answers, "?page=99", status=404)
    results_of(client, admin, answers, "?school=NOPE", status=404)
    results_of(client, admin, answers, "?school=LIN&district=D2", status=404)
    results_of(client, admin, answers, "?school=" + "x" * 300, status=400)


def test_later_pages_are_reached_from_the_first_and_the_survey_pages_link_to_the_results(client, answers):
    admin = make_staff(Role.STATE_ADMIN)
    first = results_of(client, admin, answers, "?district=D1").content.decode()
    assert "?district=D1&amp;page=2" in first
    second = results_of(client, admin, answers, "?district=D1&page=2")
    assert [q.code for q in second.context["results"].questions] == ["safe", "happy", "born"]
    assert second.context["results"].questions[0].heading == "Agree?"
    people = client.get(f"/staff/surveys/{answers.slug}/").content.decode()
    assert f"/staff/surveys/{answers.slug}/results/" in people
    monitoring = client.get(f"/staff/surveys/{answers.slug}/monitoring/?district=D1").content.decode()
    assert f"/staff/surveys/{answers.slug}/results/?district=D1" in monitoring


@pytest.mark.parametrize(("who", "query", "budget"), [
    ("state", "", 7), ("state", "?district=D1", 8), ("state", "?school=LIN&grade=7&role=student", 8),
    ("coordinator", "", 9), ("analyst", "?district=D2", 11),
])
def test_the_results_page_reads_a_fixed_number_of_statements(client, answers, settings, coordinator, adams, who,
                                                             query, budget, django_assert_max_num_queries):
    """The embedded default's count, the counts rebuilt beforehand (docs/architecture.md, "Staff pages"): the
    session, the user, the staff role, the scope's schools; the survey, the districts and grades of the filters,
    the refresh, the counts (one GROUP BY) and, for a scope of some schools, the districts it covers whole."""
    settings.RESULTS_REFRESH_ON_REQUEST = False
    from results.aggregates import answer_counts_refresh

    answer_counts_refresh(survey=answers)
    user = {"state": make_staff(Role.STATE_ADMIN), "coordinator": coordinator,
            "analyst": make_staff(Role.ANALYST, districts=[adams.district])}[who]
    url = f"/staff/surveys/{answers.slug}/results/{query}"
    results_of(client, user, answers, query)  # signed in; the definition read once, as any page does
    with django_assert_max_num_queries(budget) as captured:
        assert client.get(url).status_code == 200
    print(f"{who} {query or '(unfiltered)'}: {len(captured)} statements")


def test_the_first_view_of_new_answers_offers_their_grades_and_takes_one(client, answers):
    """On the embedded default the counts are rebuilt on request: before the grades offered are read, so a grade
    answered since the last view is offered and accepted at once."""
    admin = make_staff(Role.STATE_ADMIN)
    response = results_of(client, admin, answers, "?grade=8")
    assert ("8", "8") in response.context["form"].fields["grade"].widget.choices
    assert figures(response, "colour")[1] == 7
