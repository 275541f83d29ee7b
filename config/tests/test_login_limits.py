"""Login limits (config/login_limits.py): failed respondent codes per address; staff sign-ins before hashing."""
import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.contrib.auth.models import User
from django.test import Client, RequestFactory, override_settings

from config.login_limits import client_ip
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("proxies, forwarded, expected", [
    (0, "", "10.0.0.9"),
    (0, "203.0.113.7", "10.0.0.9"),            # no proxy of ours: a client's header is not believed
    (1, "203.0.113.7", "203.0.113.7"),         # nginx appended the real address
    (1, "1.2.3.4, 203.0.113.7", "203.0.113.7"),  # what the client wrote itself comes first and is ignored
    (2, "1.2.3.4, 203.0.113.7, 10.1.1.1", "203.0.113.7"),
    (1, "", "10.0.0.9"),
])
def test_the_client_address_trusts_only_the_hops_our_own_proxies_add(settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


@pytest.fixture(autouse=True)
def one_window(monkeypatch):
    """Keep every count in one window ending 5 minutes from now: django-ratelimit's windows are fixed slots
    of the clock, and a test that crossed a slot's end would see its count start again."""
    import time

    end = int(time.time()) + 300
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: end)


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


@override_settings(LOGIN_LIMITS_ENABLED=False, RATELIMIT_ENABLE=False)
def test_the_limit_can_be_switched_off_for_a_measurement(client):
    assert all(wrong_code(client).status_code == 400 for _ in range(120))


@pytest.fixture
def hashes(monkeypatch):
    """Count every run of the password hasher (the test settings' MD5 one)."""
    calls = []
    for name in ("encode", "verify"):
        original = getattr(MD5PasswordHasher, name)
        monkeypatch.setattr(MD5PasswordHasher, name, lambda self, *a, _o=original, **k: calls.append(1) or _o(self, *a, **k))
    return calls


def admin_login(client, username, password="wrong", **extra):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password}, **extra)


def test_staff_sign_in_from_one_address_is_paused_at_the_tenth_failure_and_then_hashes_nothing(client, hashes):
    for n in range(9):
        assert admin_login(client, f"made-up-{n}").status_code == 200  # the form again, with its error
    assert admin_login(client, "made-up-9").status_code == 429  # the tenth failure pauses sign-in
    hashed = len(hashes)
    assert hashed >= 10
    for n in range(10, 30):
        paused = admin_login(client, f"made-up-{n}")
        assert paused.status_code == 429
    assert len(hashes) == hashed  # not one more hash
    assert int(paused["Retry-After"]) == 15 * 60
    assert "Sign-in paused" in paused.content.decode()


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_one_account_is_paused_after_ten_failures_from_any_addresses(client):
    User.objects.create_user("coordinator", password="the-right-password")
    for n in range(10):
        admin_login(client, "coordinator", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    assert admin_login(client, "coordinator", "the-right-password", HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 429


def test_a_successful_staff_sign_in_is_not_held_up_by_its_own_earlier_typos(client):
    User.objects.create_superuser("admin", "admin@example.org", "the-right-password")
    for _ in range(3):
        admin_login(client, "admin")
    assert admin_login(client, "admin", "the-right-password").status_code == 302
    for _ in range(3):
        admin_login(Client(), "admin")  # counted afresh after the success
    assert admin_login(Client(), "admin", "the-right-password").status_code == 302


def test_counters_that_cannot_be_reached_let_logins_through_instead_of_failing(client, settings):
    settings.CACHES = {**settings.CACHES, "ratelimit": {
        "BACKEND": "config.sessions.CountersRedisCache", "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2},
    }}
    respondent = make_respondents(make_survey())
    assert wrong_code(client).status_code == 400
    assert client.post("/", {"access_code": respondent.access_code}).status_code == 302
    assert admin_login(Client(), "nobody").status_code == 200
