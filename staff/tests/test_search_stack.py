"""The search of a survey's people on PostgreSQL (``make test-stack``): each page's query budget whatever the number
of schools and people, and each kind of search served by its index (``respondents/migrations/0016``), so that it
does not read two million rows (``make bench-search`` gives the times at that scale)."""
import pytest
from django.db import connection

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.directory import schools_ensure
from rosters.selectors import PeopleSearch, SearchBy, respondents_search

pytestmark = [pytest.mark.stack, pytest.mark.django_db]
Role = StaffMember.Role


@pytest.fixture
def state(survey):
    """30 schools of 3 districts, 4 named people in each of 10."""
    schools = schools_ensure([(f"D{n % 3}", f"District {n % 3}", f"S{n:03d}", f"School {n}") for n in range(30)])
    for number, school in enumerate(list(schools.values())[:10]):
        for person in range(4):
            make_respondents(survey, school=school, external_id=f"p{number}-{person}", grade=str(7 + person % 2),
                             display_name=f"Name{number} Ruiz")
    return schools


PAGES = {
    # page: (path, budget). Session, user, staff member, survey; then the page's own reads; a page showing codes
    # records them (one INSERT, in a savepoint on the test's transaction).
    "schools, page 1": ("", 9),
    "schools found by district": ("?q=district+1", 9),
    "a school's people": ("schools/S001/", 11),
    "everyone found": ("people/", 8),
    "a name": ("people/?q=ruiz&by=name", 8),
    "an external id": ("people/?q=p1-&by=external_id", 8),
    "a school and grade": ("people/?q=S002&by=school&grade=7", 9),
    "a status, a deep page": ("people/?status=not_started&page=3", 8),
}


@pytest.mark.parametrize("role", [Role.STATE_ADMIN, Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR])
@pytest.mark.parametrize("name", PAGES)
def test_each_search_page_stays_within_its_query_budget_on_postgresql(client, survey, state, role, name,
                                                                       django_assert_max_num_queries):
    scope = {Role.DISTRICT_COORDINATOR: {"districts": [state["S001"].district]},
             Role.SCHOOL_COORDINATOR: {"schools": [state["S001"], state["S002"]]}}.get(role, {})
    signed_in(client, make_staff(role, **scope))
    path, budget = PAGES[name]
    with django_assert_max_num_queries(budget):
        response = client.get(f"/staff/surveys/{survey.slug}/{path}")
    assert response.status_code == 200


def test_the_confirm_page_of_everyone_found_stays_within_its_budget(client, survey, state,
                                                                     django_assert_max_num_queries):
    signed_in(client, make_staff(Role.DISTRICT_COORDINATOR, districts=[state["S001"].district]))
    with django_assert_max_num_queries(9):
        page = client.post(f"/staff/surveys/{survey.slug}/people/act/",
                           {"action": "withdraw", "everyone": "on", "q": "ruiz", "by": "name"})
    assert "Withdraw 12 people?" in page.content.decode()


def only_index(index):
    """Leave ``index`` the one index of respondents that is no constraint's, and price sequential scans out, for
    the rest of the test's transaction (rolled back after it): the plan then shows whether a search can use it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'respondents_respondent' AND indexname "
                       "NOT IN (SELECT conname FROM pg_constraint) AND indexname <> %s", [index])
        for (other,) in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{other}"')
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("ANALYZE respondents_respondent")


@pytest.mark.parametrize("search, index", [
    (PeopleSearch(query="ruiz", by=SearchBy.NAME), "respondent_display_name_trgm"),
    (PeopleSearch(query="p1-", by=SearchBy.EXTERNAL_ID), "respondent_external_id_prefix"),
    (PeopleSearch(status="completed"), "respondent_search_order"),
    (PeopleSearch(), "respondent_search_order"),
])
def test_each_kind_of_search_can_be_served_by_its_index(survey, state, search, index):
    """Django's SQL and the index's expression agree: with the index alone, the plan reads it."""
    only_index(index)
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=search)[:100].explain()
    assert index in plan, plan


def test_a_name_under_three_letters_is_kept_off_the_trigram_index(survey, state):
    only_index("respondent_display_name_trgm")
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=PeopleSearch(query="ru", by=SearchBy.NAME)
                              )[:100].explain()
    assert "respondent_display_name_trgm" not in plan, plan


def test_a_code_is_found_through_the_unique_index_of_codes(survey, state):
    person = Respondent.objects.filter(survey=survey).first()
    only_index("respondents_respondent_pkey")
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=PeopleSearch(
        query=person.formatted_access_code, by=SearchBy.CODE)).explain()
    assert "access_code" in plan and "Index" in plan, plan
