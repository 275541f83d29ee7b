"""Sessions on shared school computers: revocable, gone with the browser, ended when idle, with a warning."""
import time

import pytest
from django.conf import settings
from django.test import Client, override_settings

from config.settings.local import checkout_secret_key
from respondents.tests.factories import login, save_page
from taking.respondent_session import SEEN_KEY, activity_resolution

pytestmark = pytest.mark.django_db

AJAX = {"X-Requested-With": "XMLHttpRequest"}


def set_seen(client, seconds_ago):
    session = client.session
    session[SEEN_KEY] = int(time.time()) - seconds_ago
    session.save()


def test_logging_out_ends_the_session_so_a_copied_cookie_no_longer_works(taker):
    cookie = taker.cookies[settings.SESSION_COOKIE_NAME].value
    taker.post("/logout/")
    thief = Client()
    thief.cookies[settings.SESSION_COOKIE_NAME] = cookie
    assert thief.get("/take/")["Location"] == "/"
    assert save_page(thief, 1, {"q-colour": "red"}).status_code == 401


def test_the_session_cookie_ends_when_the_browser_closes(client, respondent):
    cookie = login(client, respondent).cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["max-age"] == "" and cookie["expires"] == ""
    assert cookie["httponly"] and cookie["samesite"] == "Lax"


def test_an_idle_session_ends_and_the_person_is_told_why(taker):
    set_seen(taker, settings.SESSION_IDLE_TIMEOUT_SECONDS + 1)
    response = taker.get("/take/", follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "logged out after 60 minutes without activity" in response.content.decode()
    assert "respondent_id" not in taker.session
    assert taker.get("/take/")["Location"] == "/"


def test_an_idle_ajax_save_gets_401_with_the_reason_and_saves_nothing(taker):
    from respondents.models import Answer

    set_seen(taker, settings.SESSION_IDLE_TIMEOUT_SECONDS + 1)
    response = save_page(taker, 1, {"q-colour": "red"})
    assert response.status_code == 401 and response.json()["login_url"] == "/"
    assert "without activity" in response.json()["errors"]["__all__"][0]
    assert not Answer.objects.exists()


def test_a_request_renews_the_last_seen_time_only_when_it_is_older_than_the_resolution(taker):
    set_seen(taker, 5)
    before = taker.session[SEEN_KEY]
    taker.get("/take/")
    assert taker.session[SEEN_KEY] == before  # not rewritten: most requests write no session
    set_seen(taker, activity_resolution() + 1)
    taker.get("/take/")
    assert taker.session[SEEN_KEY] >= int(time.time()) - 1


def test_keep_alive_renews_the_session_and_says_how_long_the_page_may_idle(taker):
    set_seen(taker, settings.SESSION_IDLE_TIMEOUT_SECONDS - 10)
    response = taker.post("/take/keep-alive/", headers=AJAX)
    assert response.json() == {"logged_in": True, "idle_seconds": settings.SESSION_IDLE_TIMEOUT_SECONDS - 60}
    assert taker.session[SEEN_KEY] >= int(time.time()) - 1
    assert taker.get("/take/").status_code == 200


def test_keep_alive_after_the_timeout_is_too_late(taker):
    set_seen(taker, settings.SESSION_IDLE_TIMEOUT_SECONDS + 1)
    assert taker.post("/take/keep-alive/", headers=AJAX).status_code == 401


def test_the_page_counts_the_idle_time_less_the_resolution_and_warns_before(taker):
    html = taker.get("/take/").content.decode()
    assert f'data-idle-seconds="{settings.SESSION_IDLE_TIMEOUT_SECONDS - 60}"' in html
    assert f'data-idle-warning-seconds="{settings.SESSION_IDLE_WARNING_SECONDS}"' in html
    assert "logged out after 60 minutes without activity" in html  # said to people without JavaScript too


@override_settings(SESSION_IDLE_TIMEOUT_SECONDS=20 * 60)
def test_the_idle_timeout_is_a_setting(taker):
    set_seen(taker, 20 * 60 + 1)
    assert "logged out after 20 minutes" in taker.get("/take/", follow=True).content.decode()


def test_the_pages_idle_logout_says_why(taker):
    response = taker.post("/logout/", {"reason": "idle"}, follow=True)
    assert "logged out after 60 minutes without activity" in response.content.decode()
    assert taker.get("/take/")["Location"] == "/"


def test_a_session_from_before_idle_timeouts_starts_counting_instead_of_ending(taker):
    session = taker.session
    del session[SEEN_KEY]
    session.save()
    assert taker.get("/take/").status_code == 200
    assert SEEN_KEY in taker.session


def test_each_checkout_makes_and_keeps_its_own_secret_key(tmp_path):
    first = checkout_secret_key(tmp_path / "a")
    assert first == checkout_secret_key(tmp_path / "a") and len(first) >= 50
    assert checkout_secret_key(tmp_path / "b") != first
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o600
