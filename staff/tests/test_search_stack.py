"""The search of a survey's people on PostgreSQL (``make test-stack``): each page's query budget whatever the number
of schools and people, and each kind of search served by its index (``respondents/migrations/0016`` and ``0017``,
and the pattern index of codes), so that it does not read two million rows (``make bench-search`` gives the times at
that scale)."""
import pytest
from django.db import connection

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from infra.sql import table
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
    "the one box": ("people/?q=ruíz", 8),
    "a code's start": ("people/?q=Z2&by=code", 8),
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
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname "
                       "NOT IN (SELECT conname FROM pg_constraint) AND indexname <> %s",
                       [Respondent._meta.db_table, index])
        for (other,) in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{other}"')
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"ANALYZE {table(Respondent)}")


@pytest.mark.parametrize("search, index", [
    (PeopleSearch(query="ruíz", by=SearchBy.NAME), "respondent_display_name_folded_trgm"),
    (PeopleSearch(query="ru", by=SearchBy.NAME), "respondent_display_name_folded_trgm"),  # a word's start
    (PeopleSearch(query="r", by=SearchBy.NAME), "respondent_display_name_folded_trgm"),
    (PeopleSearch(query="p1-", by=SearchBy.EXTERNAL_ID), "respondent_external_id_prefix"),
    (PeopleSearch(status="completed"), "respondent_search_order"),
    (PeopleSearch(), "respondent_search_order"),
])
def test_each_kind_of_search_can_be_served_by_its_index(survey, state, search, index):
    """Django's SQL and the index's expression agree: with the index alone, the plan reads it."""
    only_index(index)
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=search)[:100].explain()
    assert index in plan, plan


def code_prefix_index():
    """The ``varchar_pattern_ops`` index Django made beside the unique one of access codes (its name has a hash)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexdef "
                       "LIKE '%%(access_code varchar_pattern_ops)%%'", [Respondent._meta.db_table])
        return cursor.fetchone()[0]


def test_the_start_of_a_code_is_found_through_the_codes_pattern_index_which_the_unique_one_cannot_serve(
        survey, state):
    """The databases are C.UTF-8, which PostgreSQL does not take for C: the unique b-tree of codes orders them but
    cannot serve ``LIKE 'ABC%'``; the pattern index Django made with it can."""
    person = Respondent.objects.filter(survey=survey).first()
    search = PeopleSearch(query=person.formatted_access_code[:7].lower(), by=SearchBy.CODE)
    with connection.cursor() as cursor:
        cursor.execute("SELECT datcollate FROM pg_database WHERE datname = current_database()")
        assert cursor.fetchone()[0] not in ("C", "POSIX")
    index = code_prefix_index()
    only_index(index)
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=search)[:100].explain()
    assert index in plan and "~>=~" in plan, plan  # an index range: (access_code)::text ~>=~ 'ABCDEF'
    with connection.cursor() as cursor:
        cursor.execute(f'DROP INDEX "{index}"')  # the unique index alone: the LIKE is a filter, row by row
    plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=search)[:100].explain()
    assert "~>=~" not in plan and "~~" in plan, plan


def test_the_one_box_reads_the_indexes_of_names_ids_and_codes_at_once(survey, state):
    """"Anything": each of its matches on its own index, the rows of any of them (a BitmapOr), not the table."""
    code = code_prefix_index()
    indexes = ["respondent_display_name_folded_trgm", "respondent_external_id_prefix", code]
    with connection.cursor() as cursor:
        # Enough people in the survey that reading all of them is no plan (40 are read whole, by any index).
        cursor.execute(f"INSERT INTO {table(Respondent)} (survey_id, school_id, external_id, access_code, grade, "
                       "role, language, display_name, status, current_page) SELECT %s, %s, 'x' || n, "
                       "'Y' || lpad(n::text, 9, '0'), '7', 'student', 'en', 'Person ' || n, 'not_started', 1 "
                       "FROM generate_series(1, 30000) AS n", [survey.pk, state["S005"].pk])
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname "
                       "NOT IN (SELECT conname FROM pg_constraint) AND indexname <> ALL(%s)",
                       [Respondent._meta.db_table, indexes])
        for (other,) in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{other}"')
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"ANALYZE {table(Respondent)}")
    for typed in ("Z2A", "ab"):  # a code's start (and a name and an id), one and two letters
        plan = respondents_search(scope=COMMAND_LINE, survey=survey, search=PeopleSearch(query=typed))[:100].explain()
        assert "BitmapOr" in plan and all(index in plan for index in indexes), plan


def test_a_name_is_found_with_its_accents_aside_as_postgresql_folds_them(survey, state):
    school = list(state.values())[20]
    for external_id, name in [("a-1", "María García"), ("a-2", "GARCÍA Muñoz"), ("a-3", "garcía"),
                              ("a-4", "Ærø Łódź")]:
        make_respondents(survey, school=school, external_id=external_id, display_name=name)
    found = [p.external_id for p in respondents_search(scope=COMMAND_LINE, survey=survey,
                                                       search=PeopleSearch(query="garcia", by=SearchBy.NAME))]
    assert found == ["a-1", "a-2", "a-3"]
    assert [p.external_id for p in respondents_search(scope=COMMAND_LINE, survey=survey,
                                                      search=PeopleSearch(query="AERO lodz"))] == ["a-4"]
