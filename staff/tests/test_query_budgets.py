"""Query budgets of the staff pages: a fixed number of queries whatever the number of schools, people or entries.

Run with ``-s`` to see each page's count (the figures in the issue notes come from here).
"""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import AuditEntry, StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_staff
from rosters.directory import schools_ensure
from rosters.models import Roster
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
PASSWORD = "a long staff passphrase"


@pytest.fixture
def world(client):
    """A state administrator signed in; 40 schools of 4 districts, 5 people in each of 10; a roster applied."""
    survey = make_survey()
    schools = schools_ensure([(f"D{n % 4}", f"District {n % 4}", f"S{n:03d}", f"School {n}") for n in range(40)])
    for school in list(schools.values())[:10]:
        make_respondents(survey, 5, school=school, grade="7")
    for n in range(8):
        make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=list(schools.values())[n:n + 3])
    make_staff(StaffMember.Role.STATE_ADMIN, username="state")
    assert client.post("/staff/login/", {"username": "state", "password": PASSWORD}).status_code == 302
    roster_csv = "external_id,school_code\n" + "".join(f"r{n},S000\n" for n in range(30))
    client.post(f"/staff/surveys/{survey.slug}/rosters/new/",
                {"file": SimpleUploadedFile("r.csv", roster_csv.encode())})
    roster = Roster.objects.latest("pk")
    client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/")
    return {"survey": survey, "roster": Roster.objects.get(pk=roster.pk),
            "person": Respondent.objects.filter(school__code="S001").first()}


PAGES = {
    # page: (path, budget). Every page pays session, user and staff member (a superuser: two), then its own reads.
    "surveys": (lambda w: "/staff/", 3),
    # A page of schools and one of rosters: each counted (two COUNTs), read, and the page's schools' people grouped.
    "survey people (40 schools)": (lambda w: f"/staff/surveys/{w['survey'].slug}/", 8),
    # The search across the scope: its capped count, its page; the codes shown recorded (one INSERT).
    "people search (everyone)": (lambda w: f"/staff/surveys/{w['survey'].slug}/people/", 6),
    "people search (a name)": (lambda w: f"/staff/surveys/{w['survey'].slug}/people/?q=a&by=name", 6),
    # The school and respondent pages also record the codes they show (one INSERT into the audit log); the school's
    # page reads the login limits on its addresses too (one SELECT).
    "school people (35 people)": (lambda w: f"/staff/surveys/{w['survey'].slug}/schools/S000/", 9),
    # The respondent and completion pages also read the definition's pages, to name them (``page_names``): one
    # query with the definition cache cold, as here; none once it is warm.
    "respondent": (lambda w: f"/staff/surveys/{w['survey'].slug}/people/{w['person'].pk}/", 6),
    "roster (applied, 5 missing)": (lambda w: f"/staff/surveys/{w['survey'].slug}/rosters/{w['roster'].pk}/", 6),
    "roster progress (JSON)": (lambda w: f"/staff/surveys/{w['survey'].slug}/rosters/{w['roster'].pk}/progress/", 4),
    # A page of accounts: its count, the accounts with their users, their districts, their schools.
    "staff accounts (10)": (lambda w: "/staff/accounts/", 6),
    "staff accounts found and filtered": (lambda w: "/staff/accounts/?q=a&role=school&active=yes&page=1", 6),
    "audit log": (lambda w: "/staff/audit/", 4),
    # Here the summary is rebuilt on request (the embedded default): three GROUP BYs, DELETE, INSERT (5 queries);
    # elsewhere a completion page reads only the summary's rows of its level: one query.
    "completion (40 schools)": (lambda w: f"/staff/surveys/{w['survey'].slug}/monitoring/", 12),
    "completion of a district (10 schools)": (lambda w: f"/staff/surveys/{w['survey'].slug}/monitoring/?district=D0&sort=-rate", 13),
    "completion of a school": (lambda w: f"/staff/surveys/{w['survey'].slug}/monitoring/?school=S000", 13),
}


@pytest.mark.parametrize("name", PAGES)
def test_each_staff_page_stays_within_its_query_budget(client, world, name):
    path, budget = PAGES[name]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path(world))
    assert response.status_code == 200
    print(f"\n{name}: {len(queries)} queries")
    assert len(queries) <= budget, "\n".join(q["sql"] for q in queries)
    assert AuditEntry.objects.exists()
