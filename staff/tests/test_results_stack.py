"""The results page on PostgreSQL (the stack's master and replica through pgbouncer): its statements, counted on
every database, stay fixed whatever the survey's size; a coordinator reads only their school's rows."""
from contextlib import ExitStack

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from accounts.models import StaffMember
from bench.results_bench import NEW_STATIC, static_as_it_is
from respondents.tests.factories import make_respondents, make_school, make_staff, staff_signed_in
from results.aggregates import answer_counts_refresh
from results.tests.helpers import answered
from surveys.tests.factories import make_survey, replicated

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]
Role = StaffMember.Role
# The embedded default's budgets (staff/tests/test_results_page.py), on PostgreSQL too.
BUDGETS = [("state", "", 7), ("state", "?district=D1", 8), ("state", "?school=LIN&grade=7", 8),
           ("state", "?grade=7", 7), ("coordinator", "", 9)]


@pytest.fixture
def world(client, settings):
    """Three schools of two districts, 12 respondents who answered page 1; the counts rebuilt."""
    # The stack's collected static files are those of the checkout it serves, which may lack this one's.
    static_as_it_is(NEW_STATIC)
    settings.RESULTS_REFRESH_ON_REQUEST = False
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    survey = make_survey()
    schools = [make_school("LIN", "Lincoln"), make_school("JEF", "Jefferson"),
               make_school("ADA", "Adams", ("D2", "District Two"))]
    for n, school in enumerate(schools):
        for m, person in enumerate(make_respondents(survey, 4, school=school, grade="7", role="student")):
            answered(client, person, (1, {"q-colour": "red" if (n + m) % 3 else "blue", "q-pets": ["cat"],
                                          "q-age": str(10 + m)}))
    answer_counts_refresh(survey=survey)
    replicated(None)
    return survey, {"state": make_staff(Role.STATE_ADMIN),
                    "coordinator": make_staff(Role.SCHOOL_COORDINATOR, schools=[schools[0]])}


@pytest.mark.parametrize(("who", "query", "budget"), BUDGETS)
def test_the_results_page_stays_within_its_budget_on_postgresql(client, world, who, query, budget):
    survey, users = world
    staff_signed_in(client, users[who])
    url = f"/staff/surveys/{survey.slug}/results/{query}"
    assert client.get(url).status_code == 200  # the definition read once, as any page does
    with ExitStack() as stack:
        captured = [stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections]
        response = client.get(url)
    statements = sum(len(c.captured_queries) for c in captured)
    print(f"{who} {query or '(unfiltered)'}: {statements} statements")
    assert response.status_code == 200
    assert statements <= budget
    if who == "coordinator":
        assert response.context["results"].respondents == 4
