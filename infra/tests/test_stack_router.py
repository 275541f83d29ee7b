"""The router on the live stack (infra/db_router.py): reads from the streaming replica until a client writes,
then the master; the replica stopped, lost mid-request or lagging is not read; its own gaps in django-balancer.
Runs only against the live stack (`make test-stack`); components are stopped and restarted through deploy/stack.
Tests are transactional: rows are committed, so the replica really has them (or really has not, yet)."""

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client
from django.test.utils import override_settings

from deploy.tests import stack
from deploy.tests.stack import AJAX, answers_on_master, by_database, tables
from infra.db_router import ReplicaRouter, read_from_master, replica_alias, replica_health
from infra.sql import table
from respondents.models import Answer, Respondent
from respondents.tests.factories import login, save_page
from surveys.caching import clear_definition_cache
from surveys.models import Page, Question

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_a_client_reads_the_replica_until_it_writes_and_then_the_master(taker):
    with by_database() as (master, replica):
        assert taker.get("/take/").status_code == 200
    assert table(Respondent) in tables(replica) and not master

    with by_database() as (master, replica):
        response = save_page(taker, 1, {"q-colour": "red"})
    assert response.json()["saved"] is True
    # One statement writes it all (data-modifying CTEs); the router sees it write, and pins.
    assert [s.split()[0] for s in master] == ["WITH"] and "INSERT INTO" in master[0]
    assert "respondents_" not in tables(replica)
    cookie = response.cookies[settings.MASTER_PINNING_KEY]
    assert cookie["max-age"] == settings.MASTER_PINNING_SECONDS and cookie["httponly"] and cookie["samesite"] == "Lax"

    with by_database() as (master, replica):
        html = taker.get("/take/page/1/", headers=AJAX).content.decode()
    assert table(Respondent) in tables(master) and table(Answer) in tables(master)
    assert "respondents_" not in tables(replica)
    assert 'value="red" checked' in html


def test_definitions_are_read_from_the_replica_inside_survey_views_even_when_pinned(taker):
    save_page(taker, 1, {"q-colour": "red"})  # pinned from here on
    clear_definition_cache()
    with by_database() as (master, replica):
        assert taker.get("/take/page/2/", headers=AJAX).status_code == 200
    assert table(Page) in tables(replica) and table(Question) in tables(replica)
    assert "surveys_" not in tables(master)
    assert table(Respondent) in tables(master)


def test_a_login_reads_nothing_from_the_master(respondent):
    with by_database() as (master, replica):
        login(Client(), respondent)
    assert not master and table(Respondent) in tables(replica)


def test_the_router_falls_back_to_the_master_while_the_replica_is_stopped(taker, respondent):
    stack.pg_ctl("replica", "stop", "-m", "fast", "-w")
    try:
        replica_health.forget()
        with by_database() as (master, _):
            assert taker.get("/take/").status_code == 200
            assert save_page(taker, 1, {"q-colour": "blue"}).json()["saved"] is True
            assert taker.get("/take/page/2/", headers=AJAX).status_code == 200
        assert table(Respondent) in tables(master)
        assert replica_alias() == "default"
    finally:
        stack.start_missing()
    assert stack.stack("status")  # everything is back up
    assert answers_on_master(respondent)["colour"] == "blue"


def test_a_replica_lost_in_the_middle_of_a_request_is_answered_from_the_master(taker):
    replica_health.forget()
    assert replica_health.is_healthy("replica")  # believed healthy for the next few seconds
    taker.get("/take/")  # the replica connection is open
    stack.pg_ctl("replica", "stop", "-m", "immediate", "-w")
    try:
        assert taker.get("/take/").status_code == 200
        assert taker.get("/take/page/2/", headers=AJAX).status_code == 200
    finally:
        stack.start_missing()


def test_the_router_keeps_its_pool_as_a_list_and_relates_rows_across_databases(respondent):
    router = ReplicaRouter()
    assert router.pool == ["replica"]
    on_replica = Respondent.objects.using("replica").get(pk=respondent.pk)
    assert router.allow_relation(on_replica, respondent) is True


def test_assigning_a_foreign_key_does_not_pin_the_thread(respondent):
    from balancer import pinning

    pinning.unpin_thread()
    Answer(respondent=respondent, question=respondent.survey.questions.first(), value="x")
    assert not pinning.thread_is_pinned()
    with read_from_master():
        assert pinning.thread_is_pinned()
    assert not pinning.thread_is_pinned()


def test_a_request_that_writes_nothing_sets_no_pinning_cookie(taker):
    response = taker.get("/take/")
    assert settings.MASTER_PINNING_KEY not in response.cookies


def test_a_replica_lagging_past_the_threshold_is_not_read(taker):
    with override_settings(REPLICA_MAX_LAG_SECONDS=-1):  # any replica counts as too far behind
        with by_database() as (master, replica):
            assert taker.get("/take/").status_code == 200
        assert table(Respondent) in tables(master) and not replica
        assert replica_alias() == "default"
    replica_health.forget()


@pytest.mark.django_db(transaction=True)
def test_a_write_refused_by_a_read_only_server_is_the_fault_that_passes():
    """What a demoted leader answers a write on a connection made before (PostgreSQL's own error, through Django)
    is what RetryableFaultMiddleware answers 503: infra/faults.read_only_server."""
    from django.db import InternalError, connection, transaction

    from infra.faults import read_only_server

    with pytest.raises(InternalError) as refused, transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(f"UPDATE {table(Respondent)} SET status = status WHERE false")
    assert read_only_server(refused.value)


def test_a_standby_the_replica_alias_does_not_reach_still_counts_as_behind(monkeypatch):
    """On several machines the replica alias reaches one replica of several (HAProxy): whether every replica has
    replayed a change is asked of the master too (pg_stat_replication), so a lagging one the alias did not reach
    is not taken for caught up (the lab drill saw a definition cached from such a replica)."""
    import psycopg2

    from infra import db_router

    values = stack.conf()
    port = values["STACK_PG2_PORT"] if stack.node("replica") == "pg2" else values["STACK_PG1_PORT"]
    replica = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres",
                               password=stack.password("postgres"))
    replica.autocommit = True
    try:
        with replica.cursor() as cursor:
            cursor.execute("SELECT pg_wal_replay_pause()")
        with connections["default"].cursor() as cursor:
            cursor.execute("CREATE TEMP TABLE behind (n int); INSERT INTO behind VALUES (1)")
        position = db_router.master_wal_position()
        monkeypatch.setattr(db_router, "replica_aliases", lambda: [])  # the alias reached another, caught-up replica
        assert not db_router.replicas_caught_up(position, timeout=0.5)
    finally:
        with replica.cursor() as cursor:
            cursor.execute("SELECT pg_wal_replay_resume()")
        replica.close()
    assert db_router.replicas_caught_up(position, timeout=10)
