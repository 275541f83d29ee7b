"""Respondent login limits at the login view (taking/login_limits.py): failed codes counted per address, room for a
school's typos, never a successful login; an address refused until its window ends or it is forgiven."""

import pytest
from django.test import Client, override_settings

from respondents.models import LoginLimitHit
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("one_window")]


def wrong_code(client, **extra):
    return client.post("/", {"access_code": "ZZZZZ-ZZZZZ"}, **extra)


def test_the_default_allows_100_failed_codes_from_an_address_then_answers_429(client, respondent):
    assert [wrong_code(client).status_code for _ in range(100)] == [400] * 100
    blocked = client.post("/", {"access_code": respondent.access_code})  # even a right code: no lookup
    assert blocked.status_code == 429
    assert 295 <= int(blocked["Retry-After"]) <= 300
    assert "Please wait 5 minutes, then try again" in blocked.content.decode()
    assert "respondent_id" not in client.session


@override_settings(RESPONDENT_LOGIN_FAILURE_RATE="3/10m")
def test_successful_logins_never_count(respondent):
    for _ in range(10):
        assert Client().post("/", {"access_code": respondent.access_code}).status_code == 302


@override_settings(RESPONDENT_LOGIN_FAILURE_RATE="3/10m")
def test_a_blank_submission_is_not_a_failed_code(client, respondent):
    for _ in range(5):
        assert client.post("/", {"access_code": ""}).status_code == 400
    assert client.post("/", {"access_code": respondent.access_code}).status_code == 302


@override_settings(RESPONDENT_LOGIN_FAILURE_RATE="3/10m", TRUSTED_PROXY_COUNT=1)
def test_another_school_behind_another_address_is_not_held_up(client, respondent):
    for _ in range(3):
        wrong_code(client, HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert wrong_code(client, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 429
    other = client.post("/", {"access_code": respondent.access_code}, HTTP_X_FORWARDED_FOR="198.51.100.2")
    assert other.status_code == 302


def test_a_school_address_that_logged_in_500_pupils_has_room_for_600_failed_codes_and_a_guesser_keeps_100(
        lincoln):
    survey = make_survey()
    school, guesser = "198.51.100.30", "203.0.113.30"
    for pupil in make_respondents(survey, 500, school=lincoln, grade="7"):
        assert Client().post("/", {"access_code": pupil.access_code}, REMOTE_ADDR=school).status_code == 302
    assert {wrong_code(Client(), REMOTE_ADDR=school).status_code for _ in range(600)} == {400}
    refused = wrong_code(Client(), REMOTE_ADDR=school)
    assert refused.status_code == 429 and "Too many codes that did not work" in refused.content.decode()
    assert [wrong_code(Client(), REMOTE_ADDR=guesser).status_code for _ in range(101)] == [400] * 100 + [429]
    hits = {hit.address: hit for hit in LoginLimitHit.objects.all()}
    assert (hits[school].failures, hits[school].valid_logins, hits[school].ceiling) == (600, 500, 600)
    assert list(hits[school].schools.all()) == [lincoln]
    assert (hits[guesser].failures, hits[guesser].valid_logins, list(hits[guesser].schools.all())) == (100, 0, [])


@override_settings(RESPONDENT_LOGIN_FAILURE_RATE="3/10m")
def test_a_guesser_logging_in_again_and_again_with_their_own_code_gains_one_guess(respondent):
    for _ in range(20):
        assert Client().post("/", {"access_code": respondent.access_code}).status_code == 302
    assert [wrong_code(Client()).status_code for _ in range(5)] == [400] * 4 + [429]


@override_settings(RESPONDENT_LOGIN_FAILURE_RATE="3/10m")
def test_an_address_refused_is_refused_even_a_right_code_until_it_is_forgiven(respondent):
    from respondents.login_limits import address_login_forgive

    for _ in range(3):
        wrong_code(Client())
    assert Client().post("/", {"access_code": respondent.access_code}).status_code == 429
    address_login_forgive(address="127.0.0.1")
    assert Client().post("/", {"access_code": respondent.access_code}).status_code == 302


@override_settings(LOGIN_LIMITS_ENABLED=False, RATELIMIT_ENABLE=False)
def test_the_limit_can_be_switched_off_for_a_measurement(client):
    assert all(wrong_code(client).status_code == 400 for _ in range(120))
