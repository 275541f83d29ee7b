"""A school's page shows the addresses its respondents logged in from that were refused for too many codes that did
not work (respondents/login_limits.py), and whoever manages the school's people lets them in again."""
import time

import pytest
from django.test import Client

from accounts.models import AuditEntry, StaffMember
from respondents.models import LoginLimitHit
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
SCHOOL_NETWORK = "198.51.100.40"


@pytest.fixture(autouse=True)
def small_limits(settings, monkeypatch):
    """Three failed codes an address, one more per respondent logged in from it; one window ending in 5 minutes."""
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    end = int(time.time()) + 300
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: end)


def code_login(code, address=SCHOOL_NETWORK):
    return Client().post("/", {"access_code": code}, REMOTE_ADDR=address)


@pytest.fixture
def refused(survey, lincoln):
    """Two Lincoln pupils logged in from the school's network, then five codes that did not work: refused."""
    pupils = make_respondents(survey, 3, school=lincoln, grade="7")
    for pupil in pupils[:2]:
        assert code_login(pupil.access_code).status_code == 302
    assert [code_login("ZZZZZ-ZZZZZ").status_code for _ in range(6)] == [400] * 5 + [429]
    return {"hit": LoginLimitHit.objects.get(), "waiting": pupils[2]}


def school_page(client, survey, code="LIN"):
    return client.get(f"/staff/surveys/{survey.slug}/schools/{code}/").content.decode()


def lift_url(survey, hit, code="LIN"):
    return f"/staff/surveys/{survey.slug}/schools/{code}/login-limits/{hit.pk}/lift/"


def test_the_school_page_says_which_address_was_refused_when_and_until_when(client, survey, refused, coordinator):
    signed_in(client, coordinator)
    page = school_page(client, survey)
    assert "Logins refused at a shared address" in page and f"<code>{SCHOOL_NETWORK}</code>" in page
    assert "5 minutes from now" in page
    assert "5 codes that did not work; 2 people had logged in from there, which allowed 5" in page
    assert "Let them in again</button>" in page and "#}" not in page
    assert f'action="{lift_url(survey, refused["hit"])}"' in page


def test_a_school_none_of_whose_respondents_logged_in_there_sees_nothing(client, survey, refused, adams):
    signed_in(client, make_staff(Role.SCHOOL_COORDINATOR, schools=[adams]))
    assert "Logins refused" not in school_page(client, survey, "ADA")


def test_its_coordinator_lets_them_in_again_after_a_confirm_page_and_the_pupils_log_in_at_once(
        client, survey, refused, coordinator):
    hit, waiting = refused["hit"], refused["waiting"]
    signed_in(client, coordinator)
    ask = client.post(lift_url(survey, hit))  # the school page's button: no confirm yet
    assert ask.status_code == 200 and "Let respondents log in from 198.51.100.40 again?" in ask.content.decode()
    assert code_login(waiting.access_code).status_code == 429 and not AuditEntry.objects.filter(
        action="login_limit_lifted").exists()

    done = client.post(lift_url(survey, hit), {"confirm": "on"}, follow=True)
    assert done.redirect_chain[-1][0] == f"/staff/surveys/{survey.slug}/schools/LIN/"
    assert "Logins from 198.51.100.40 are let through again" in done.content.decode()
    assert "Let in again" in done.content.decode() and "Let them in again</button>" not in done.content.decode()
    assert code_login(waiting.access_code).status_code == 302
    hit.refresh_from_db()
    assert hit.lifted_at is not None and hit.lifted_by == "lin-coord" and not hit.is_active
    entry = AuditEntry.objects.get(action="login_limit_lifted")
    assert (entry.username, entry.school.code, entry.survey_id) == ("lin-coord", "LIN", survey.pk)
    assert "respondent logins from 198.51.100.40 let through again before" in entry.detail
    assert "refused after 5 codes that found nobody, with 2 respondents logged in from there" in entry.detail


@pytest.mark.parametrize("role", [Role.STATE_ADMIN, Role.DISTRICT_COORDINATOR])
def test_a_state_administrator_or_the_district_s_coordinator_lifts_it_too(client, survey, refused, lincoln, role):
    staff = make_staff(role, districts=[lincoln.district] if role == Role.DISTRICT_COORDINATOR else ())
    signed_in(client, staff)
    assert client.post(lift_url(survey, refused["hit"]), {"confirm": "on"}).status_code == 302
    assert code_login(refused["waiting"].access_code).status_code == 302


def test_an_analyst_sees_it_but_may_not_lift_it(client, survey, refused):
    signed_in(client, make_staff(Role.ANALYST))
    page = school_page(client, survey)
    assert SCHOOL_NETWORK in page and "Let them in again" not in page
    assert client.post(lift_url(survey, refused["hit"]), {"confirm": "on"}).status_code == 403
    assert code_login(refused["waiting"].access_code).status_code == 429


def test_a_coordinator_of_another_school_cannot_lift_it_by_any_url(client, survey, refused, adams):
    signed_in(client, make_staff(Role.SCHOOL_COORDINATOR, schools=[adams]))
    assert client.post(lift_url(survey, refused["hit"]), {"confirm": "on"}).status_code == 404  # not their school
    assert client.post(lift_url(survey, refused["hit"], "ADA"), {"confirm": "on"}).status_code == 404  # not its hit
    assert code_login(refused["waiting"].access_code).status_code == 429
    assert LoginLimitHit.objects.get().lifted_at is None


def test_a_limit_lifted_or_ended_already_is_said_so_and_nothing_changes(client, survey, refused, coordinator):
    hit = refused["hit"]
    signed_in(client, coordinator)
    client.post(lift_url(survey, hit), {"confirm": "on"})
    again = client.post(lift_url(survey, hit), {"confirm": "on"}, follow=True)
    assert "are no longer refused: the limit was lifted, or it ended by itself" in again.content.decode()
    assert AuditEntry.objects.filter(action="login_limit_lifted").count() == 1
    ended = LoginLimitHit.objects.create(address="198.51.100.41", limited_at=hit.limited_at,
                                         limited_until=hit.limited_at, failures=3, valid_logins=0, ceiling=3)
    ended.schools.add(hit.schools.get())
    assert "Ended" in school_page(client, survey)
    answer = client.post(lift_url(survey, ended), {"confirm": "on"}, follow=True)
    assert "are no longer refused" in answer.content.decode()
    assert AuditEntry.objects.filter(action="login_limit_lifted").count() == 1
