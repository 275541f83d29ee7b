"""The results page: each role sees the counts of its scope, filters are checked through the scope, small cells
are suppressed (threshold 3 here: the setting)."""
import html
import re

import pytest
from django.test import Client

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff, staff_signed_in
from results.models import ResultsRefresh
from results.tests.helpers import answered
from rosters.services import respondent_restore, respondent_withdraw

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
    for query, field in (("?school=ADA", "school"), ("?district=D2", "district"),
                         ("?school=ADA&district=D2", "district"), ("?district=D1&school=ADA", "school"),
                         ("?school=Adams", "school")):
        response = results_of(client, coordinator, answers, query, status=400)
        assert list(response.context["form"].errors) == [field] and "results" not in response.context
    # Adams's grade 8, asked for from Lincoln's scope: Lincoln has none.
    eighth = results_of(client, coordinator, answers, "?grade=8")
    assert eighth.context["results"].respondents == 0 and "No answers in this selection" in eighth.content.decode()


def test_an_analyst_of_a_district_sees_its_schools_only(client, answers, adams):
    analyst = make_staff(Role.ANALYST, districts=[adams.district])
    response = results_of(client, analyst, answers)
    assert response.context["results"].respondents == 7
    assert figures(response, "colour") == ({"Red": (3, 42.9), "Blue": (4, 57.1)}, 7)
    results_of(client, analyst, answers, "?school=LIN", status=400)


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
    truth = {"Red": 4, "Blue": 7}  # Lincoln's 3 and 3, Adams's 1 and 4
    for label, figure in together.items():
        if figure is not None:  # the two together, less one school shown, is the other: hidden with it
            assert (each["LIN"][label] is None) == (each["ADA"][label] is None)
            assert figure[0] == truth[label]


def test_bad_filters_get_a_clear_answer(client, answers):
    admin = make_staff(Role.STATE_ADMIN)
    assert "Select a valid choice" in results_of(client, admin, answers, "?role=wizard", status=400).content.decode()
    results_of(client, admin, answers, "?page=abc", status=400)
    results_of(client, admin, answers, "?page=99", status=404)
    results_of(client, admin, answers, "?school=NOPE", status=400)
    results_of(client, admin, answers, "?school=LIN&district=D2", status=400)
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


# ---------------------------------------------------------------- school and district pickers (issue 33, point 11)

def test_a_school_or_a_district_is_found_by_its_name_or_its_code_in_any_case(client, answers):
    admin = make_staff(Role.STATE_ADMIN)
    for query in ("?school=lincoln", "?school=lin", "?school=Lincoln+%28LIN%29", "?school=LIN"):
        response = results_of(client, admin, answers, query)
        assert response.context["school"].code == "LIN" and response.context["results"].respondents == 6
        body = response.content.decode()
        assert 'value="Lincoln (LIN)"' in body  # the box says what the text was found to be
        assert "?school=LIN&amp;page=2" in body  # the page's links carry the code
    response = results_of(client, admin, answers, "?district=district+two")
    assert response.context["district"].code == "D2" and response.context["results"].respondents == 7


def test_a_place_outside_the_scope_or_unknown_is_a_message_beside_its_field_never_a_404(client, answers,
                                                                                       coordinator):
    response = results_of(client, coordinator, answers, "?school=Adams", status=400)
    body = html.unescape(response.content.decode())
    assert ('<p class="error" id="id_school-error">No school in your scope has the code or name “Adams”.</p>'
            in body)
    assert 'value="Adams"' in body  # kept, to be mended
    response = results_of(Client(), make_staff(Role.STATE_ADMIN), answers, "?district=D2&school=LIN", status=400)
    assert response.context["form"].errors == {
        "school": ["No school of District Two in your scope has the code or name “LIN”."]}


def test_a_text_several_schools_match_lists_them_to_choose_from_with_the_other_filters_kept(client, answers):
    make_school("LIN2", "Lincoln Heights", ("D1", "District One"))
    admin = make_staff(Role.STATE_ADMIN)
    response = results_of(client, admin, answers, "?school=linc&grade=7", status=400)
    body = html.unescape(response.content.decode())
    assert "Several schools match “linc”: choose one below" in body
    choices = re.findall(r'<li><a href="\?([^"]+)">([^<]+)</a>, District One</li>', body)
    assert choices == [("school=LIN&grade=7", "Lincoln (LIN)"), ("school=LIN2&grade=7", "Lincoln Heights (LIN2)")]
    chosen = results_of(client, admin, answers, "?" + choices[0][0])
    assert chosen.context["school"].code == "LIN" and chosen.context["results"].respondents == 6


# ---------------------------------------------------------------- "No answers in this selection", not "None%"

def test_a_question_nobody_in_the_selection_answered_says_so_instead_of_none_percent(client, answers):
    """Lincoln's people answered no age: its bins were 0 and their percentages None ("None%")."""
    response = results_of(client, make_staff(Role.STATE_ADMIN), answers, "?school=LIN")
    body = response.content.decode()
    age = body[body.index('data-question="age"'):body.index("</figure>", body.index('data-question="age"'))]
    assert "No answers in this selection." in age and "<table" not in age
    assert "None" not in body.replace("is None", "")
    assert "age" not in {chart["code"] for chart in response.context["charts"]}


# ---------------------------------------------------------------- the question index

def test_the_question_index_links_every_question_of_every_page_keeping_the_filters(client, answers):
    admin = make_staff(Role.STATE_ADMIN)
    response = results_of(client, admin, answers, "?district=D1&role=student")
    body = html.unescape(response.content.decode())
    index = body[body.index('id="question-index"'):body.index("</details>", body.index('id="question-index"'))]
    links = re.findall(r'<a href="\?([^"]+)"[^>]*>(?:<span class="code">(\w+)</span> )?([^<]*)</a>', index)
    assert [(query, code) for query, code, _ in links if code] == [
        (f"district=D1&role=student&page={page}#question-{code}", code) for page, code in (
            (1, "colour"), (1, "pets"), (1, "age"), (1, "nickname"), (2, "safe"), (2, "happy"), (2, "born"),
            (3, "story"), (3, "again"))]
    assert ("district=D1&role=student&page=2#question-safe", "safe", "Agree? — I feel safe.") in links
    assert 'href="?district=D1&role=student&page=1" aria-current="page">Page 1: First</a>' in index
    second = results_of(client, admin, answers, "?district=D1&role=student&page=2")
    assert 'id="question-safe"' in second.content.decode()


# ---------------------------------------------------------------- a grid: one table, one stacked 100% chart

@pytest.fixture
def grid_answers(client, settings, survey, lincoln):
    """Seven Lincoln students: safe 4 agree and 3 disagree; happy 6 agree and 1 disagree (hidden, and its
    complement with it); born by none."""
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    for n, person in enumerate(make_respondents(survey, 7, school=lincoln, grade="7", role="student")):
        answered(client, person, (1, {"q-colour": "red"}),
                 (2, {"q-safe": "2" if n < 4 else "1", "q-happy": "1" if n == 0 else "2"}))
    return survey


def test_a_grid_is_one_table_and_one_stacked_chart_its_suppressed_cells_left_out(client, grid_answers):
    response = results_of(client, make_staff(Role.STATE_ADMIN), grid_answers, "?page=2")
    grid = next(chart for chart in response.context["charts"] if chart["code"] == "school")
    assert grid == {"code": "school", "kind": "stacked",
                    "labels": ["I feel safe.", ["I am happy.", "Disagree (suppressed), Agree (suppressed)"]],
                    "series": [{"label": "Disagree", "values": [42.9, None]},
                               {"label": "Agree", "values": [57.1, None]}]}
    assert {chart["code"] for chart in response.context["charts"]} == {"school"}  # no chart per row
    body = response.content.decode()
    table = body[body.index('data-grid="school"'):body.index("</figure>", body.index('data-grid="school"'))]
    assert table.count("<table") == 1 and '<th scope="col" class="number">Disagree</th>' in table
    assert '<td class="number">3 <span class="percent">(42.9%)</span></td>' in table
    happy = table[table.index('id="question-happy"'):table.index("</tr>", table.index('id="question-happy"'))]
    assert happy.count('class="number suppressed"') == 2 and "<td class=\"number\">7</td>" in happy


# ---------------------------------------------------------------- text answers, for those who may export

@pytest.fixture
def nicknames(client, settings, survey, lincoln, adams):
    """Lincoln grade 7: four students who wrote nicknames (Ace twice, some markup, Bo) and one who left it blank;
    Adams grade 8: three students (Cy, Di, Ed); Byrd (District Two) grade 8: two (Fay, Gus), fewer than the
    threshold (3)."""
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    people = make_respondents(survey, 5, school=lincoln, grade="7", role="student", external_id="")
    for person, nickname in zip(people, ["Ace", "<b>Zed</b>", "Ace", "Bo", ""], strict=True):
        answered(client, person, (1, {"q-colour": "red", "q-nickname": nickname}))
    byrd = make_school("BYR", "Byrd", ("D2", "District Two"))
    for school, nicknames in ((adams, ["Cy", "Di", "Ed"]), (byrd, ["Fay", "Gus"])):
        for person, nickname in zip(make_respondents(survey, len(nicknames), school=school, grade="8",
                                                     role="student"), nicknames, strict=True):
            answered(client, person, (1, {"q-colour": "blue", "q-nickname": nickname}))
    return survey


def texts_of(client, user, survey, query="", status=200):
    staff_signed_in(client, user)
    response = client.get(f"/staff/surveys/{survey.slug}/results/texts/nickname/{query}")
    assert response.status_code == status, response.content[:2000]
    return response


def test_an_analyst_reads_what_a_selection_wrote_each_text_once_escaped_and_never_who(client, nicknames):
    analyst = make_staff(Role.ANALYST)
    page = results_of(client, analyst, nicknames, "?school=LIN").content.decode()
    assert f'href="/staff/surveys/{nicknames.slug}/results/texts/nickname/?school=LIN">Read what they wrote' in page
    response = texts_of(client, analyst, nicknames, "?school=LIN")
    texts = response.context["texts"]
    assert [(a.text, a.people) for a in texts.answers] == [("<b>Zed</b>", 1), ("Ace", 2), ("Bo", 1)]
    body = response.content.decode()
    assert "&lt;b&gt;Zed&lt;/b&gt;" in body and "<b>Zed</b>" not in body
    assert "Written by 2 people" in body
    for person in Respondent.objects.all():
        assert person.access_code not in body and person.formatted_access_code not in body
    entry = AuditEntry.objects.get(action=AuditEntry.Action.TEXT_ANSWERS_READ)
    assert entry.username == analyst.username and entry.school.code == "LIN"
    assert entry.detail == "question nickname, Lincoln (LIN): page 1, 3 texts"


def test_text_answers_are_never_listed_for_a_selection_under_the_threshold(client, nicknames):
    admin = make_staff(Role.STATE_ADMIN)
    assert "Read what they wrote" not in results_of(client, admin, nicknames, "?school=BYR").content.decode()
    response = texts_of(client, admin, nicknames, "?school=BYR")
    assert not response.context["texts"].shown and response.context["texts"].answers == ()
    body = response.content.decode()
    assert "Too few respondents" in body and "Fay" not in body and "Gus" not in body
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.TEXT_ANSWERS_READ).exists()


def test_coordinators_may_not_read_text_answers(client, nicknames, coordinator):
    page = results_of(client, coordinator, nicknames).content.decode()
    assert "Read what they wrote" not in page and "shown only to those who may export" in page
    texts_of(client, coordinator, nicknames, status=403)


def test_text_answers_take_the_results_filters_and_refuse_what_is_not_a_text_question(client, nicknames):
    admin = make_staff(Role.STATE_ADMIN)
    assert texts_of(client, admin, nicknames, "?school=Nowhere", status=400).context["form"].errors["school"]
    staff_signed_in(client, admin)
    assert client.get(f"/staff/surveys/{nicknames.slug}/results/texts/colour/").status_code == 404
    assert client.get(f"/staff/surveys/{nicknames.slug}/results/texts/nickname/?number=0").status_code == 400
    second = texts_of(client, admin, nicknames, "?number=2")
    assert second.context["texts"].answers == () and "No more answers." in second.content.decode()


# ---------------------------------------------------------------- the embedded default recounts only when stale

def test_the_embedded_default_recounts_only_when_the_counts_are_stale(client, answers, settings, lincoln):
    admin = make_staff(Role.STATE_ADMIN)

    def made():
        results_of(client, admin, answers)
        return ResultsRefresh.objects.get(survey=answers).refreshed_at

    first = made()
    assert made() == first  # nothing changed: the same counts, and the page says when they were made
    assert "Figures as of" in results_of(client, admin, answers).content.decode()
    person = make_respondents(answers, 1, school=lincoln, grade="7", role="student")
    answered(client, person, (1, {"q-colour": "red"}))
    saved = made()
    assert saved > first
    assert results_of(client, admin, answers).context["results"].respondents == 21
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[person.pk], survey=answers)
    withdrawn = made()
    assert withdrawn > saved and results_of(client, admin, answers).context["results"].respondents == 20
    respondent_restore(scope=COMMAND_LINE, respondent_ids=[person.pk], survey=answers)
    restored = made()
    assert restored > withdrawn and made() == restored
    settings.RESULTS_REFRESH_ON_REQUEST_MAX_AGE = 0
    assert made() > restored  # older than the age allowed


def test_a_page_of_text_answers_reads_a_fixed_number_of_statements(client, nicknames, settings,
                                                                   django_assert_max_num_queries):
    """The user, the staff role and its districts and schools; the survey, the grades, the district, the refresh
    and the counts of the question's page; the texts (one GROUP BY); the audit entry."""
    settings.RESULTS_REFRESH_ON_REQUEST = False
    from results.aggregates import answer_counts_refresh

    answer_counts_refresh(survey=nicknames)
    texts_of(client, make_staff(Role.ANALYST), nicknames, "?district=D1")
    with django_assert_max_num_queries(11) as captured:
        assert client.get(f"/staff/surveys/{nicknames.slug}/results/texts/nickname/?district=D1").status_code == 200
    print(f"text answers: {len(captured)} statements")
