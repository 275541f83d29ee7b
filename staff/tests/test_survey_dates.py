"""A survey's opening and closing times, set by state administrators in the staff area (in the site's zone, named),
"close now", both audited; the survey list shows them. Every time on a staff page names its zone."""
import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import AuditEntry, StaffMember
from respondents.tests.factories import login, make_respondents, make_staff
from staff.tests.helpers import office_signed_in
from surveys.models import Survey

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
PASSWORD = "a long staff passphrase"


@pytest.fixture
def office(client):
    """A state administrator, signed in (the test settings' zone is America/Chicago)."""
    office_signed_in(client)
    return client


def test_a_state_administrator_sets_the_times_in_the_sites_zone_and_the_survey_list_shows_them_with_it(
        office, survey):
    page = office.get(f"/staff/surveys/{survey.slug}/dates/").content.decode()
    assert "Opens (date and time, America/Chicago)" in page and 'type="datetime-local"' in page
    response = office.post(f"/staff/surveys/{survey.slug}/dates/",
                           {"opens_at": "2026-12-01T08:00", "closes_at": "2027-01-15T17:30"})
    assert response.status_code == 302 and response["Location"] == "/staff/"
    survey.refresh_from_db()
    assert survey.opens_at == datetime(2026, 12, 1, 14, 0, tzinfo=UTC)  # 08:00 in Chicago, winter
    assert survey.closes_at == datetime(2027, 1, 15, 23, 30, tzinfo=UTC)
    listed = office.get("/staff/").content.decode()
    assert '<td><time datetime="2026-12-01T08:00:00-06:00">2026-12-01 08:00 CST</time></td>' in listed
    assert ">2027-01-15 17:30 CST</time>" in listed
    entry = AuditEntry.objects.get(action="survey_dates")
    assert entry.survey_id == survey.pk and entry.detail == "opens 2026-12-01 08:00 CST, closes 2027-01-15 17:30 CST"
    again = office.get(f"/staff/surveys/{survey.slug}/dates/").content.decode()
    assert 'value="2026-12-01T08:00"' in again  # shown back in the same zone


def test_a_closing_time_not_after_the_opening_time_is_refused_naming_the_field_and_nothing_changes(office, survey):
    response = office.post(f"/staff/surveys/{survey.slug}/dates/",
                           {"opens_at": "2026-12-01T08:00", "closes_at": "2026-12-01T08:00"})
    text = response.content.decode()
    assert response.status_code == 400 and "The closing time must be after the opening time." in text
    assert 'href="#id_closes_at"' in text  # in the error summary, leading to the field
    survey.refresh_from_db()
    assert survey.opens_at is None and survey.closes_at is None and not AuditEntry.objects.filter(
        action="survey_dates").exists()


def test_a_time_the_zone_skips_or_that_is_not_a_time_is_refused_with_a_message(office, survey):
    # 02:30 on 8 March 2026 does not exist in Chicago: the clocks go from 02:00 to 03:00.
    for value, message in (("2026-03-08T02:30", "may be ambiguous or it may not exist"),
                           ("next tuesday", "Enter a valid date/time.")):
        response = office.post(f"/staff/surveys/{survey.slug}/dates/", {"opens_at": value, "closes_at": ""})
        assert response.status_code == 400 and message in response.content.decode(), value
    survey.refresh_from_db()
    assert survey.opens_at is None


def test_close_now_stops_respondents_at_once_and_is_audited(office, survey):
    person = make_respondents(survey)
    respondent = Client()
    page = office.get(f"/staff/surveys/{survey.slug}/dates/").content.decode()
    assert "Close now" in page
    response = office.post(f"/staff/surveys/{survey.slug}/close/", follow=True)
    assert "is closed: nobody can log in or save any more" in response.content.decode()
    survey.refresh_from_db()
    assert survey.closes_at <= timezone.now() and not survey.is_open()
    refused = respondent.post("/", {"access_code": person.formatted_access_code})
    assert refused.status_code == 403 and "not open" in refused.content.decode()
    assert AuditEntry.objects.get(action="survey_dates").detail.startswith("opens (none), closes ")
    assert "(not taking answers now)" in office.get("/staff/").content.decode()


def test_close_now_of_a_survey_that_opens_later_is_refused_with_a_message(office, survey):
    Survey.objects.filter(pk=survey.pk).update(opens_at=timezone.now() + timezone.timedelta(days=3))
    response = office.post(f"/staff/surveys/{survey.slug}/close/", follow=True)
    assert "It has not opened yet" in response.content.decode()
    survey.refresh_from_db()
    assert survey.closes_at is None


def test_a_respondent_logged_in_before_the_close_cannot_save_after_it(office, survey):
    from respondents.tests.factories import save_page

    person = make_respondents(survey)
    respondent = Client()
    login(respondent, person)
    office.post(f"/staff/surveys/{survey.slug}/close/")
    saved = save_page(respondent, 1, {"q-colour": "red"})
    assert saved.status_code == 403 and saved.json()["saved"] is False


@pytest.mark.parametrize("role", [Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST])
def test_only_state_administrators_change_a_surveys_times(client, survey, role):
    make_staff(role, username="someone")
    client.post("/staff/login/", {"username": "someone", "password": PASSWORD})
    assert client.get(f"/staff/surveys/{survey.slug}/dates/").status_code == 403
    assert client.post(f"/staff/surveys/{survey.slug}/dates/", {"opens_at": "2026-12-01T08:00"}).status_code == 403
    assert client.post(f"/staff/surveys/{survey.slug}/close/").status_code == 403
    assert "/dates/" not in client.get("/staff/").content.decode()
    survey.refresh_from_db()
    assert survey.opens_at is None and survey.closes_at is None


# ---------------------------------------------------------------- every time names its zone

def test_the_times_of_the_audit_log_the_person_and_the_roster_pages_name_their_zone(office, survey, lincoln):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from rosters.models import Roster

    office.post(f"/staff/surveys/{survey.slug}/rosters/new/", {"file": SimpleUploadedFile(
        "r.csv", b"external_id,school_code\ns1,LIN\n")})
    roster = Roster.objects.get()
    office.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/")
    zone = timezone.localtime().strftime("%Z")  # CST or CDT, as of now
    now = timezone.localtime().strftime("%Y-%m-%d")
    audit = office.get("/staff/audit/").content.decode()
    assert re.search(rf"<td><time datetime=\"{now}T[0-9:.]+[-+][0-9:]+\">{now} [0-9:]{{8}} {zone}</time></td>", audit)
    roster_page = office.get(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/").content.decode()
    assert re.search(rf"Applied <time [^>]+>{now} [0-9:]{{5}} {zone}</time>: 1 new", roster_page)
    people = office.get(f"/staff/surveys/{survey.slug}/").content.decode()
    assert re.search(rf"<td><time [^>]+>{now} [0-9:]{{5}} {zone}</time></td>", people)  # the roster's upload time


def test_a_time_at_the_calendars_ends_is_refused_with_a_message_not_a_500(office, survey):
    for value in ("9999-12-31T23:59", "0001-01-01T00:00"):
        response = office.post(f"/staff/surveys/{survey.slug}/dates/", {"opens_at": value, "closes_at": ""})
        assert response.status_code == 400 and "Give a year from 2000 to 2999." in response.content.decode(), value
    survey.refresh_from_db()
    assert survey.opens_at is None
