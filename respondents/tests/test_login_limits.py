"""Failed codes per address with room for a school's typos (respondents/login_limits.py), against the counters' own
cache: local memory in the test settings, the stack's Redis (db 4) under config.settings.stack_test."""
import time

import pytest
from django.core.cache import caches
from django.utils import timezone

from respondents.login_limits import (
    address_login_failed,
    address_login_forgive,
    address_login_succeeded,
    address_logins,
    login_ceiling,
)
from respondents.models import LoginLimitHit
from respondents.tests.factories import make_school

pytestmark = pytest.mark.django_db
SCHOOL = "198.51.100.20"


def fail(address, times=1):
    for _ in range(times):
        address_login_failed(logins=address_logins(address=address))


def log_in(address, respondent_id, school_id=None):
    address_login_succeeded(logins=address_logins(address=address), respondent_id=respondent_id, school_id=school_id)


@pytest.mark.parametrize("valid, ceiling", [(0, 100), (1, 101), (500, 600), (899, 999), (900, 1000), (50_000, 1000)])
def test_the_ceiling_is_the_rate_s_count_and_one_more_per_respondent_logged_in_at_most_a_thousand(valid, ceiling):
    assert login_ceiling(base=100, valid=valid) == ceiling


def test_a_maximum_below_the_rate_s_count_leaves_the_rate_s_count(settings):
    settings.RESPONDENT_LOGIN_FAILURE_MAX = 50
    assert login_ceiling(base=100, valid=10) == 100


def test_an_address_waits_from_its_ceiling_until_the_window_ends(settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    fail(SCHOOL, 2)
    assert address_logins(address=SCHOOL).wait == 0
    fail(SCHOOL)
    assert 295 <= address_logins(address=SCHOOL).wait <= 300
    assert address_logins(address="198.51.100.21").wait == 0  # another address


def test_each_respondent_who_logged_in_from_the_address_gives_it_room_for_one_more(settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    for respondent_id in (1, 2):
        log_in(SCHOOL, respondent_id)
    fail(SCHOOL, 4)
    assert address_logins(address=SCHOOL).wait == 0
    fail(SCHOOL)
    logins = address_logins(address=SCHOOL)
    assert (logins.failures, logins.valid, logins.ceiling) == (5, 2, 5) and logins.wait > 0


def test_a_respondent_logging_in_again_and_again_counts_once_so_a_guessers_own_code_buys_one_guess(
        settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    for _ in range(20):
        log_in(SCHOOL, 7)
    fail(SCHOOL, 3)
    assert address_logins(address=SCHOOL).ceiling == 4
    fail(SCHOOL)
    assert address_logins(address=SCHOOL).wait > 0


def test_the_room_stops_at_the_maximum(settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    settings.RESPONDENT_LOGIN_FAILURES_PER_LOGIN = 2
    settings.RESPONDENT_LOGIN_FAILURE_MAX = 8
    for respondent_id in range(5):
        log_in(SCHOOL, respondent_id)
    fail(SCHOOL, 7)
    assert address_logins(address=SCHOOL).wait == 0
    fail(SCHOOL)
    assert address_logins(address=SCHOOL).wait > 0


def test_a_new_window_forgets_the_failures_and_the_logins_of_the_last(settings):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "2/2s"
    time.sleep(address_logins(address=SCHOOL).seconds_left + 0.2)  # the start of a window
    log_in(SCHOOL, 1)
    fail(SCHOOL, 3)  # 2 + 1 allowed
    assert address_logins(address=SCHOOL).wait > 0
    # Past the window's end and the second its own keys outlive it.
    time.sleep(address_logins(address=SCHOOL).seconds_left + 1.2)
    fail(SCHOOL, 2)
    logins = address_logins(address=SCHOOL)
    assert (logins.failures, logins.valid) == (2, 0) and logins.wait > 0


def test_the_first_refusal_of_a_window_is_recorded_once_with_the_schools_that_logged_in_there(settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    lincoln, adams = make_school("LIN", "Lincoln"), make_school("ADA", "Adams", ("D2", "District Two"))
    other = make_school("OTH", "Other")
    log_in(SCHOOL, 1, lincoln.pk)
    log_in(SCHOOL, 2, lincoln.pk)
    log_in(SCHOOL, 3, adams.pk)
    log_in(SCHOOL, 4)  # a respondent of no school
    log_in("198.51.100.99", 5, other.pk)  # elsewhere
    fail(SCHOOL, 6)
    assert not LoginLimitHit.objects.exists()
    before = timezone.now()
    fail(SCHOOL)
    fail(SCHOOL)  # refused already: still one hit in the window
    hit = LoginLimitHit.objects.get()
    assert (hit.address, hit.failures, hit.valid_logins, hit.ceiling) == (SCHOOL, 7, 4, 7)
    assert {school.code for school in hit.schools.all()} == {"LIN", "ADA"}
    assert before <= hit.limited_at <= timezone.now()
    assert 295 <= (hit.limited_until - hit.limited_at).total_seconds() <= 300
    assert hit.is_active and hit.minutes_left == 5 and hit.lifted_at is None


def test_forgiving_an_address_lets_it_through_at_once_and_a_later_refusal_is_recorded_again(settings, one_window):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    fail(SCHOOL, 3)
    assert address_logins(address=SCHOOL).wait > 0 and LoginLimitHit.objects.count() == 1
    assert address_login_forgive(address=SCHOOL) == 3
    assert address_logins(address=SCHOOL).wait == 0
    fail(SCHOOL, 2)
    assert address_logins(address=SCHOOL).wait == 0
    fail(SCHOOL)
    assert address_logins(address=SCHOOL).wait > 0
    assert list(LoginLimitHit.objects.order_by("pk").values_list("failures", flat=True)) == [3, 3]


def test_with_the_limits_off_nothing_is_counted_or_refused(settings):
    settings.RATELIMIT_ENABLE = False
    assert address_logins(address=SCHOOL) is None
    address_login_failed(logins=None)
    address_login_succeeded(logins=None, respondent_id=1, school_id=None)
    assert address_login_forgive(address=SCHOOL) == 0


@pytest.fixture
def counter_calls(monkeypatch):
    """The calls made to the counters' cache (the outermost only: local memory's get_many is its gets)."""
    counters, calls, inside = caches["ratelimit"], [], []

    def counting(name, original):
        def counted(*args, **kwargs):
            if not inside:
                calls.append(name)
            inside.append(1)
            try:
                return original(*args, **kwargs)
            finally:
                inside.pop()
        return counted

    for name in ("add", "get", "get_many", "set", "incr", "delete", "touch"):
        monkeypatch.setattr(counters, name, counting(name, getattr(counters, name)))
    return calls


def test_a_login_costs_what_it_did_plus_three_counter_calls_for_a_respondent_new_to_the_window_and_one_after(
        settings, one_window, counter_calls, django_assert_num_queries):
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    log_in(SCHOOL, 1, 10)  # the window's first login and the address's first school
    del counter_calls[:]

    with django_assert_num_queries(0):
        log_in(SCHOOL, 2, 10)
    # django-ratelimit's read of the failures, as before; then the respondent's mark, the count, the schools read.
    assert counter_calls == ["add", "get", "add", "incr", "get"]
    del counter_calls[:]
    log_in(SCHOOL, 2, 10)  # counted in this window already
    assert counter_calls == ["add", "get", "add"]
    del counter_calls[:]
    fail(SCHOOL, 2)  # under the rate's count: as before (read, then count)
    assert counter_calls == ["add", "get", "add", "incr"] * 2
    del counter_calls[:]
    fail(SCHOOL)  # at the rate's count: one read more, of what raises the ceiling
    assert counter_calls == ["add", "get", "add", "incr", "get_many"]


def test_a_hit_the_database_cannot_take_is_recorded_by_the_next_refusal_and_the_login_refused_meanwhile(
        settings, one_window, monkeypatch, client):
    """The database away at the failure that reaches the ceiling: that failure is refused as any (429, never a 500),
    and the next refused attempt records the hit."""
    from django.db import DatabaseError

    from respondents import login_limits

    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    school = make_school("LIN", "Lincoln")
    log_in("127.0.0.1", 1, school.pk)
    real = login_limits.login_limit_hit_record

    def away(**kwargs):
        raise DatabaseError("the database is away")

    monkeypatch.setattr(login_limits, "login_limit_hit_record", away)
    for _ in range(4):  # the fourth reaches the ceiling (3, and 1 for the respondent who logged in), answered as any
        assert client.post("/", {"access_code": "ZZZZZ-ZZZZZ"}).status_code == 400
    assert client.post("/", {"access_code": "ZZZZZ-ZZZZZ"}).status_code == 429
    assert not LoginLimitHit.objects.exists()
    monkeypatch.setattr(login_limits, "login_limit_hit_record", real)
    assert client.post("/", {"access_code": "ZZZZZ-ZZZZZ"}).status_code == 429
    [hit] = LoginLimitHit.objects.all()
    assert (hit.address, list(hit.schools.all())) == ("127.0.0.1", [school])
