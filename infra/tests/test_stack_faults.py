"""Backing services away for a moment on the live stack: sessions survive a Redis restart, and Redis, pgbouncer or
the master away is answered 503 with Retry-After (infra/faults.py), its retry applied once. Live stack only."""
import uuid

import pytest
from django.conf import settings
from django.test import Client

from deploy.tests import stack
from deploy.tests.stack import answers_on_master
from respondents.models import PageSave
from respondents.tests.factories import save_page

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_sessions_survive_a_restart_of_redis(taker, respondent):
    save_page(taker, 1, {"q-colour": "red"})
    stack.redis_cli("shutdown")
    stack.start_missing()
    response = taker.get("/take/")
    assert response.status_code == 200
    assert response.context["definition"].number == 2


def test_with_redis_down_respondents_are_asked_to_try_again_and_stay_logged_in(taker, respondent):
    save_page(taker, 1, {"q-colour": "red"})
    save_id = uuid.uuid4()
    stack.redis_cli("shutdown")
    try:
        page = taker.get("/take/")
        assert page.status_code == 503 and page["Retry-After"] == "2" and "busy for a moment" in page.content.decode()
        refused = save_page(taker, 2, {"q-safe": "1"}, save_id=save_id)
        assert refused.status_code == 503 and refused["Retry-After"] == "2" and refused.json()["saved"] is False
        assert settings.SESSION_COOKIE_NAME not in refused.cookies  # the cookie is kept, not deleted
        relogin = Client().post("/", {"access_code": respondent.access_code})
        assert relogin.status_code == 503 and relogin["Retry-After"] == "2"
    finally:
        stack.start_missing()
    # The same session, read again: not logged out; the save survey.js retries is applied once.
    retried = save_page(taker, 2, {"q-safe": "1"}, save_id=save_id)
    assert retried.status_code == 200 and retried.json()["saved"] is True
    assert answers_on_master(respondent)["colour"] == "red" and answers_on_master(respondent)["safe"] == "1"
    assert PageSave.objects.using("default").filter(respondent=respondent, save_id=save_id).count() == 1
    assert taker.get("/take/").context["definition"].number == 3


def test_with_pgbouncer_down_a_save_gets_503_and_its_retry_is_applied_once(taker, respondent):
    assert taker.get("/take/").status_code == 200  # the connection to pgbouncer is open
    save_id = uuid.uuid4()
    stack.stop("pgbouncer-master")
    try:
        refused = save_page(taker, 1, {"q-colour": "blue"}, save_id=save_id)
        assert refused.status_code == 503 and refused["Retry-After"] == "2" and refused.json()["saved"] is False
        page = taker.get("/take/page/1/")
        assert page.status_code == 503
    finally:
        stack.start_missing()
    retried = save_page(taker, 1, {"q-colour": "blue"}, save_id=save_id)
    assert retried.status_code == 200 and retried.json()["saved"] is True
    assert answers_on_master(respondent)["colour"] == "blue"
    assert PageSave.objects.using("default").filter(respondent=respondent, save_id=save_id).count() == 1


def test_with_the_master_stopped_a_save_gets_503_not_500(taker, respondent):
    assert taker.get("/take/").status_code == 200
    stack.pg_ctl("master", "stop", "-m", "immediate", "-w")
    try:
        refused = save_page(taker, 1, {"q-colour": "red"})
        assert refused.status_code == 503 and refused.json()["saved"] is False
    finally:
        stack.start_missing()
        stack.until_database_answers("default")
    assert save_page(taker, 1, {"q-colour": "red"}).json()["saved"] is True
