"""Staff sign-in limits (staff/sign_in_limits.py): paused per account and address, slowed per account and per
address, a browser that signed in before trusted; all before the password is hashed."""
import time

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings

from accounts.models import AuditEntry, StaffMember
from respondents.tests.factories import make_respondents, make_school, make_staff
from staff.sign_in_limits import StaffSignInDelayBackend, StaffSignInMiddleware
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


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


PASSWORD = "a long staff passphrase"  # factories.make_staff's


OWNER = "192.0.2.10"  # the account owner's own address


GUESSER = "203.0.113.66"


@pytest.fixture
def stateadm(db):
    return make_staff(StaffMember.Role.STATE_ADMIN, username="stateadm")


@pytest.fixture
def clock(monkeypatch):
    """The staff login limits' clock, standing still until a test moves it on: a wait passes without sleeping."""
    class Clock:
        now = time.time()

        def advance(self, seconds):
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr("staff.sign_in_limits._now", lambda: clock.now)
    return clock


def sign_in(client, username, password="wrong", *, address, path="/staff/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def told_to_wait(answer):
    """A slowed attempt's answer (a paused one says 15 minutes)."""
    return answer.status_code == 429 and int(answer["Retry-After"]) <= 60


def guess(username, *, address, clock, path="/staff/login/"):
    """One wrong password for ``username`` from ``address`` in a new browser, after whatever wait it is told."""
    answer = sign_in(Client(), username, address=address, path=path)
    while told_to_wait(answer):
        clock.advance(int(answer["Retry-After"]))
        answer = sign_in(Client(), username, address=address, path=path)
    return answer


def test_ten_failures_from_one_address_pause_that_account_there_and_nothing_else(stateadm, coordinator):
    answers = [sign_in(Client(), "stateadm", address=GUESSER).status_code for _ in range(10)]
    assert answers == [200] * 9 + [429]  # the form again, with its error; the tenth failure pauses
    paused = sign_in(Client(), "stateadm", PASSWORD, address=GUESSER)
    assert paused.status_code == 429 and int(paused["Retry-After"]) == 15 * 60
    assert "signing in to it from here is paused: try again in 15 minutes" in paused.content.decode()
    # The owner at their own address, and another account at the guesser's, sign in at once.
    assert sign_in(Client(), "stateadm", PASSWORD, address=OWNER).status_code == 302
    assert sign_in(Client(), "lin-coord", PASSWORD, address=GUESSER).status_code == 302


def test_failures_on_one_account_from_many_addresses_make_each_next_attempt_wait_twice_as_long_up_to_a_minute(
        stateadm, clock):
    for n in range(5):
        assert sign_in(Client(), "stateadm", address=f"198.51.100.{n}").status_code == 200
    waits = []
    for n in range(5, 14):
        answer = sign_in(Client(), "stateadm", address=f"198.51.100.{n}")
        assert answer.status_code == 429
        waits.append(int(answer["Retry-After"]))
        clock.advance(waits[-1] - 0.5)
        assert sign_in(Client(), "stateadm", address=f"198.51.100.{n}").status_code == 429  # not yet
        clock.advance(0.5)
        assert sign_in(Client(), "stateadm", address=f"198.51.100.{n}").status_code == 200  # checked, wrong
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_an_attempt_told_to_wait_is_answered_before_any_password_is_hashed_and_does_not_lengthen_the_wait(
        stateadm, clock, hashes):
    for n in range(6):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
    hashed = len(hashes)
    for n in range(20):
        answer = sign_in(Client(), "stateadm", PASSWORD if n % 2 else "wrong", address=f"198.51.100.{100 + n}")
        assert answer.status_code == 429 and answer["Retry-After"] == "2"
    assert len(hashes) == hashed  # not one more hash
    page = answer.content.decode()
    assert "Sign-in paused" in page and "Too many failed sign-ins for this account" in page
    assert "try again in 2 seconds" in page and "A browser that has signed in to this account before" in page


def test_eleven_failures_from_other_addresses_hold_the_owner_up_a_minute_at_most_not_fifteen(stateadm, clock):
    for n in range(11):
        assert guess("stateadm", address=f"198.51.100.{n}", clock=clock).status_code == 200
    owner = Client()
    answer = sign_in(owner, "stateadm", PASSWORD, address=OWNER)
    assert answer.status_code == 429 and answer["Retry-After"] == "60"
    assert "try again in 60 seconds" in answer.content.decode()
    clock.advance(60)
    assert sign_in(owner, "stateadm", PASSWORD, address=OWNER).status_code == 302
    # Signing in forgets the account's failures: the next guess is not held up.
    assert sign_in(Client(), "stateadm", address="198.51.100.99").status_code == 200


def test_a_browser_that_signed_in_before_is_neither_slowed_nor_paused_by_others_failures(stateadm, clock):
    owner = Client()
    signed_in = sign_in(owner, "stateadm", PASSWORD, address=OWNER)
    cookie = signed_in.cookies["staff_device"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and int(cookie["max-age"]) == 90 * 24 * 3600
    owner.post("/staff/logout/")
    for n in range(30):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
    for _ in range(10):
        guess("stateadm", address=OWNER, clock=clock)  # someone else at the owner's own address
    assert sign_in(Client(), "stateadm", PASSWORD, address=OWNER).status_code == 429  # a new browser there
    assert sign_in(owner, "stateadm", PASSWORD, address=OWNER).status_code == 302
    assert AuditEntry.objects.latest("id").detail == "trusted browser"


def test_a_device_cookie_trusts_a_browser_only_for_its_own_account_and_only_as_signed(stateadm, coordinator, clock):
    owner = Client()
    sign_in(owner, "stateadm", PASSWORD, address=OWNER)
    owner.post("/staff/logout/")
    for n in range(6):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
        guess("lin-coord", address=f"198.51.100.{n}", clock=clock)
    assert told_to_wait(sign_in(owner, "lin-coord", PASSWORD, address=OWNER))  # trusted for stateadm only
    forged = Client()
    forged.cookies["staff_device"] = owner.cookies["staff_device"].value[:-2] + "xx"
    assert told_to_wait(sign_in(forged, "stateadm", PASSWORD, address=OWNER))
    assert sign_in(owner, "stateadm", PASSWORD, address=OWNER).status_code == 302


def test_a_trusted_browser_is_trusted_no_more_after_ten_failures_of_its_own(stateadm, clock):
    owner = Client()
    sign_in(owner, "stateadm", PASSWORD, address=OWNER)
    owner.post("/staff/logout/")
    for n in range(6):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
    assert [sign_in(owner, "stateadm", address=OWNER).status_code for _ in range(10)] == [200] * 10
    assert told_to_wait(sign_in(owner, "stateadm", PASSWORD, address=OWNER))


def test_one_address_guessing_many_accounts_is_slowed_from_the_twentieth_failure_without_hashing(
        coordinator, clock, hashes):
    for n in range(20):
        assert sign_in(Client(), f"made-up-{n}", address=GUESSER).status_code == 200
    hashed = len(hashes)
    for username in ("made-up-20", "lin-coord"):
        answer = sign_in(Client(), username, PASSWORD, address=GUESSER)
        assert answer.status_code == 429 and answer["Retry-After"] == "1"
        assert "Too many failed sign-ins from this network" in answer.content.decode()
    assert len(hashes) == hashed
    assert sign_in(Client(), "lin-coord", PASSWORD, address=OWNER).status_code == 302  # not held up elsewhere


def test_the_admin_sign_in_goes_through_the_same_limits(clock):
    User.objects.create_superuser("admin", "admin@example.org", PASSWORD)
    for n in range(3):
        guess("admin", address=f"198.51.100.{n}", clock=clock, path="/admin/login/")
        guess("admin", address=f"198.51.100.{n}", clock=clock)
    assert told_to_wait(sign_in(Client(), "admin", PASSWORD, address=OWNER))
    answer = sign_in(Client(), "admin", PASSWORD, address=OWNER, path="/admin/login/")
    assert told_to_wait(answer)
    clock.advance(int(answer["Retry-After"]))
    signed_in = sign_in(Client(), "admin", PASSWORD, address=OWNER, path="/admin/login/")
    assert signed_in.status_code == 302 and "staff_device" in signed_in.cookies


def test_while_one_attempt_on_a_slowed_account_is_checked_another_is_told_to_wait_a_second(stateadm, clock):
    for n in range(5):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
    clock.advance(1)
    checking = RequestFactory().post("/staff/login/", REMOTE_ADDR="198.51.100.50")
    assert StaffSignInDelayBackend().authenticate(checking, username="stateadm", password="wrong") is None
    answer = sign_in(Client(), "stateadm", PASSWORD, address=OWNER)
    assert answer.status_code == 429 and answer["Retry-After"] == "1"
    StaffSignInMiddleware(lambda request: HttpResponse())(checking)  # that attempt is answered
    assert sign_in(Client(), "stateadm", PASSWORD, address=OWNER).status_code == 302


def test_staff_sign_ins_are_audited_with_what_the_limits_made_of_them(stateadm, clock):
    for n in range(5):
        sign_in(Client(), "stateadm", address=f"198.51.100.{n}")
    sign_in(Client(), "stateadm", address="198.51.100.5")
    clock.advance(1)
    sign_in(Client(), "stateadm", address="198.51.100.5")
    for _ in range(10):
        guess("stateadm", address=GUESSER, clock=clock)
    sign_in(Client(), "stateadm", PASSWORD, address=GUESSER)
    clock.advance(60)
    sign_in(Client(), "stateadm", PASSWORD, address=OWNER)
    entries = list(AuditEntry.objects.order_by("id").values_list("action", "address", "detail"))
    assert entries[:7] == [("sign_in_failed", f"198.51.100.{n}", "") for n in range(4)] + [
        ("sign_in_failed", "198.51.100.4", "account slowed: 5 failures, 1 s before the next attempt"),
        ("sign_in_failed", "198.51.100.5", "refused before the password check: account slowed, 1 s to wait"),
        ("sign_in_failed", "198.51.100.5", "account slowed: 6 failures, 2 s before the next attempt"),
    ]
    # The tenth failure from one address: counted, and the pause it starts.
    assert set(entries[-4:-2]) == {
        ("sign_in_failed", GUESSER, "account slowed: 16 failures, 60 s before the next attempt"),
        ("sign_in_failed", GUESSER, "paused for this account from this address for 15 minutes after 10 failures"),
    }
    assert entries[-2:] == [
        ("sign_in_failed", GUESSER, "refused before the password check: paused for this account from this address"),
        ("sign_in", OWNER, ""),
    ]


@override_settings(LOGIN_LIMITS_ENABLED=False, AXES_ENABLED=False)
def test_the_staff_limits_can_be_switched_off_for_a_measurement(stateadm):
    for n in range(30):
        assert sign_in(Client(), "stateadm", address=f"198.51.100.{n % 3}").status_code == 200
    signed_in = sign_in(Client(), "stateadm", PASSWORD, address=OWNER)
    assert signed_in.status_code == 302 and "staff_device" not in signed_in.cookies


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
        "BACKEND": "infra.sessions.CountersRedisCache", "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2},
    }}
    from django.core.cache import caches

    respondent = make_respondents(make_survey(), school=make_school("UNR", "Unreached"))
    assert client.post("/", {"access_code": "ZZZZZ-ZZZZZ"}).status_code == 400
    assert client.post("/", {"access_code": respondent.access_code}).status_code == 302
    assert caches["ratelimit"].get_many(["respondent-login:valid:x"]) == {}  # what raises a ceiling: nothing
    assert admin_login(Client(), "nobody").status_code == 200
    User.objects.create_superuser("admin", "admin@example.org", PASSWORD)
    for n in range(12):
        assert sign_in(Client(), "admin", address=f"198.51.100.{n}").status_code == 200
    signed_in = sign_in(Client(), "admin", PASSWORD, address=OWNER)
    assert signed_in.status_code == 302 and "staff_device" in signed_in.cookies


def test_a_device_cookie_signed_before_the_limits_left_config_still_trusts_its_browser(stateadm, clock):
    """The limits moved from config/login_limits.py to staff/sign_in_limits.py (issue 34); the cookies signed then,
    with that module's salt, must keep their browsers trusted (another salt would sign every trusted browser out)."""
    from django.core import signing

    browser = Client()
    browser.cookies["staff_device"] = signing.dumps(["stateadm", "a-nonce-from-before"],
                                                    salt="config.login_limits.staff-device")
    for n in range(6):
        guess("stateadm", address=f"198.51.100.{n}", clock=clock)
    assert told_to_wait(sign_in(Client(), "stateadm", PASSWORD, address=OWNER))  # an untrusted browser waits
    assert sign_in(browser, "stateadm", PASSWORD, address=OWNER).status_code == 302
