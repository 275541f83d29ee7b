"""Pages named as the survey's definition names them, wherever staff see them: the completion page's chart and
tables and the respondent's page; what a bar of the drop-off chart counts when pages can be skipped."""
import json
import re

import pytest

from respondents.tests.factories import login, make_respondents, save_page
from respondents.tests.factories import staff_signed_in as signed_in
from surveys.tests.factories import make_demo_survey, make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def stopped(client, lincoln):
    """The demo survey (page 5, "Your teaching", only for teachers), taken at Lincoln: a student gone on from
    page 4 to page 6 (the teachers' page skipped) and a teacher gone on from page 4 to page 5."""
    survey = make_demo_survey()
    student = make_respondents(survey, 1, school=lincoln, grade="7", role="student")
    teacher = make_respondents(survey, 1, school=lincoln, role="teacher")
    for person, role, to in ((student, "student", 6), (teacher, "teacher", 5)):
        login(client, person)
        assert save_page(client, 1, {"q-role": role}).json()["next_page"] == 2
        save_page(client, 2, {"q-safety": "3"})
        save_page(client, 3)
        assert save_page(client, 4).json()["next_page"] == to
        client.post("/logout/")
    return survey, student, teacher


def test_the_drop_off_chart_names_the_definition_s_pages_marks_the_teachers_page_and_says_what_a_bar_counts(
        client, stopped, coordinator):
    survey, student, _teacher = stopped
    login(client, student)
    assert "Page 5 of 12" in client.get("/take/page/6/").content.decode()  # what the student sees on page 6
    client.post("/logout/")
    signed_in(client, coordinator)
    page = client.get(f"/staff/surveys/{survey.slug}/monitoring/?school=LIN").content.decode()
    stops = page[page.index('data-chart="stops"'):]
    stops = stops[:stops.index("</figure>")]
    assert ('<th scope="row">Page 5 — Your teaching (conditional)</th><td class="number">1</td>'
            '<td>only if you chose “Teacher” for “Which best describes you?”</td>') in stops
    assert '<th scope="row">Page 6 — Classmates</th><td class="number">1</td><td>to everyone</td>' in stops
    assert "whose last save took them to that page" in stops
    assert "a respondent's “Page X of Y” counts only the pages shown to them" in stops
    charts = json.loads(re.search(r'id="monitoring-charts" type="application/json">(.*?)</script>', page,
                                  re.S).group(1))
    assert charts["stops"]["labels"][4:] == ["Page 5 — Your teaching (conditional)", "Page 6 — Classmates"]
    assert charts["stops"]["values"][4:] == [1, 1]
    assert charts["stops"]["notes"][4:] == ["Shown only if you chose “Teacher” for “Which best describes you?”", ""]
    # The tables' median page is named the same way.
    assert '<td class="number">Page 6 — Classmates</td>' in page  # the students' group
    assert "(median: Page 5 — Your teaching (conditional))" in page  # of the school: pages 5 and 6


def test_a_survey_without_conditional_pages_does_not_explain_skipped_pages(client, lincoln, coordinator):
    from respondents.models import Respondent

    survey = make_survey()
    person = make_respondents(survey, 1, school=lincoln, grade="7")
    Respondent.objects.filter(pk=person.pk).update(status="in_progress", current_page=2)
    signed_in(client, coordinator)
    page = client.get(f"/staff/surveys/{survey.slug}/monitoring/?school=LIN").content.decode()
    assert '<th scope="row">Page 2 — Second</th><td class="number">1</td></tr>' in page
    assert "(conditional)" not in page and "Page X of Y" not in page


def test_the_respondent_s_page_names_the_page_they_resume_on_and_its_condition(client, stopped, coordinator):
    survey, student, teacher = stopped
    signed_in(client, coordinator)
    page = client.get(f"/staff/surveys/{survey.slug}/people/{teacher.pk}/").content.decode()
    assert "<dt>Page</dt><dd>Page 5 — Your teaching (conditional)" in page
    assert "Shown only if you chose “Teacher” for “Which best describes you?”." in page
    page = client.get(f"/staff/surveys/{survey.slug}/people/{student.pk}/").content.decode()
    assert "<dt>Page</dt><dd>Page 6 — Classmates <span" in page and "Shown only if" not in page


def breadcrumbs(page):
    return re.search(r'<nav aria-label="Breadcrumb" class="breadcrumbs">(.*?)</nav>', page, re.S).group(1)


def test_each_role_s_completion_opens_on_its_own_level_and_the_breadcrumbs_lead_back_to_it(
        client, lincoln, adams, coordinator):
    from accounts.models import StaffMember
    from respondents.tests.factories import make_school, make_staff

    survey = make_survey()
    jefferson = make_school("JEF", "Jefferson", ("D1", "District One"))
    for school in (lincoln, adams, jefferson):
        make_respondents(survey, 2, school=school, grade="7")
    base = f"/staff/surveys/{survey.slug}/monitoring/"
    survey_crumbs = (f'<a href="/staff/">Surveys</a> › <a href="/staff/surveys/{survey.slug}/">Small survey</a> › ')

    signed_in(client, coordinator)  # Lincoln's only
    page = client.get(base).content.decode()
    assert "<h1>Lincoln: completion</h1>" in page and breadcrumbs(page) == survey_crumbs + "Completion"
    client.logout()

    signed_in(client, make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln, adams]))
    page = client.get(base).content.decode()
    assert "<h1>Your schools: completion</h1>" in page and "Your schools by school:" in page
    assert 'href="?school=ADA"' in page and 'href="?school=LIN"' in page and "?district=" not in page
    assert breadcrumbs(page) == survey_crumbs + "Completion"
    page = client.get(f"{base}?school=ADA").content.decode()
    assert breadcrumbs(page) == survey_crumbs + f'<a href="{base}">Completion</a> › Adams'
    client.logout()

    signed_in(client, make_staff(StaffMember.Role.DISTRICT_COORDINATOR, districts=[lincoln.district]))
    page = client.get(base).content.decode()
    assert "<h1>District One: completion</h1>" in page and 'href="?school=JEF"' in page
    page = client.get(f"{base}?school=JEF").content.decode()
    assert breadcrumbs(page) == survey_crumbs + f'<a href="{base}">Completion</a> › Jefferson'
    client.logout()

    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN))
    page = client.get(base).content.decode()
    assert "<h1>Small survey: completion</h1>" in page and 'href="?district=D2"' in page
    page = client.get(f"{base}?school=JEF").content.decode()
    assert breadcrumbs(page) == survey_crumbs + (f'<a href="{base}">Completion</a> › '
                                                 f'<a href="{base}?district=D1">District One</a> › Jefferson')
