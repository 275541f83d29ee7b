"""The survey-taking views on the live stack: a saved page survives an immediate stop of the master, their query
budgets per database, the save id honoured through pgbouncer, and failed codes counted in Redis for every worker.
Runs only against the live stack (`make test-stack`)."""
import uuid

import pytest
from django.db import connections
from django.test import Client

from deploy.tests import stack
from deploy.tests.stack import AJAX, answers_on_master, by_database
from respondents.models import PageSave, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_demo_survey

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_a_saved_page_survives_an_immediate_stop_of_the_master(taker, respondent):
    response = save_page(taker, 1, {"q-colour": "blue", "q-nickname": "Durable"})
    assert response.status_code == 200 and response.json()["saved"] is True
    stack.pg_ctl("master", "stop", "-m", "immediate", "-w")  # no shutdown checkpoint: crash recovery
    try:
        stack.start_missing()
    finally:
        stack.until_database_answers("default")
    assert answers_on_master(respondent) == {"colour": "blue", "pets": "", "age": "", "nickname": "Durable"}
    assert Respondent.objects.using("default").get(pk=respondent.pk).current_page == 2


def test_query_budgets_of_the_survey_taking_views_on_master_and_replica(respondent):
    """The production budgets of docs/architecture.md, with a warm cache."""
    survey = make_demo_survey()
    respondent = make_respondents(survey)
    client = Client()
    login(client, respondent)
    for number in range(1, 14):  # warm the definition cache
        client.get(f"/take/page/{number}/", headers=AJAX)
    client.get("/take/complete/")

    def measure(request):
        with by_database() as (master, replica):
            response = request()
        return len(master), len(replica), response

    assert measure(lambda: login(Client(), respondent))[:2] == (0, 1)
    assert measure(lambda: client.get("/take/"))[:2] == (0, 2)
    assert measure(lambda: client.get("/take/page/3/", headers=AJAX))[:2] == (0, 1)  # the respondent with its answers
    # A save: one statement (the UPDATE of the respondent, the INSERT ... ON CONFLICT of the answers and the INSERT
    # into the save log, as data-modifying CTEs), in place of BEGIN, those three and COMMIT.
    assert measure(lambda: save_page(client, 1, {"q-role": "student"}))[:2] == (1, 0)
    # Pinned after the save: the respondent's own reads go to the master.
    assert measure(lambda: client.get("/take/page/2/", headers=AJAX))[:2] == (1, 0)
    required = {f"q-{c}": "1" for c in ("safe_hallways", "safe_outside", "safe_travel", "safe_classroom")}
    save_page(client, 2, required)
    save_page(client, 8, {f"q-{c}": "2" for c in ("ins_explain", "ins_apply", "ins_revise", "ins_discuss", "ins_ready")})
    master, replica, response = measure(lambda: save_page(client, 13, {"q-recommend": "yes"}, nav="finish"))
    # Finishing adds the read of missing required answers and the UPDATE that completes.
    assert (master, replica) == (7, 0) and response.json()["completed"] is True
    assert measure(lambda: client.get("/take/complete/"))[:2] == (1, 0)


def test_the_same_save_id_sent_twice_at_once_is_applied_once_and_answered_alike(respondent):
    """Two requests with one save_id, in flight together: the second waits for the row lock, then replays."""
    import threading

    clients = [Client(), Client()]
    for client in clients:
        login(client, respondent)
    save_id = uuid.uuid4()
    start, responses = threading.Barrier(2), [None, None]

    def send(index, colour):
        start.wait()
        try:
            responses[index] = save_page(clients[index], 1, {"q-colour": colour}, save_id=save_id)
        finally:
            connections.close_all()

    for _ in range(5):  # the race is won either way; each round is a new save_id
        threads = [threading.Thread(target=send, args=(i, c)) for i, c in enumerate(["red", "blue"])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        bodies = [r.json() for r in responses]
        assert [r.status_code for r in responses] == [200, 200], bodies
        assert bodies[0] == bodies[1]
        assert PageSave.objects.using("default").filter(respondent=respondent, save_id=save_id).count() == 1
        assert answers_on_master(respondent)["colour"] in ("red", "blue")
        save_id = uuid.uuid4()


def test_failed_codes_are_counted_in_redis_for_every_worker_then_answered_429():
    web = stack.WebClient(forwarded_for=f"198.51.100.{uuid.uuid4().int % 250}")
    try:
        statuses = [web.post_form("/", {"access_code": "ZZZZZ-ZZZZZ"})[0] for _ in range(100)]
        assert statuses == [400] * 100  # spread over gunicorn's workers, counted once in Redis
        status, headers, text = web.post_form("/", {"access_code": "ZZZZZ-ZZZZZ"})
        assert status == 429 and 0 < int(headers["Retry-After"]) <= 600
        assert "Too many codes that did not work" in text
        assert stack.redis_cli("-n", "3", "DBSIZE").strip() != "0"
    finally:
        stack.forget_login_failures()


def test_the_save_id_is_honoured_across_the_stack(taker, respondent):
    save_id = uuid.uuid4()
    first = save_page(taker, 1, {"q-colour": "red"}, save_id=save_id)
    again = save_page(taker, 1, {"q-colour": "blue"}, save_id=save_id)
    assert first.json() == again.json()
    assert answers_on_master(respondent)["colour"] == "red"
