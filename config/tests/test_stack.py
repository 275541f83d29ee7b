"""The production topology, for real: PostgreSQL master and streaming replica through
pgbouncer, memcached, Redis sessions. Runs only against the live stack
(`make test-stack`); components are stopped and restarted through deploy/stack.

Tests are transactional: rows are committed, so the replica really has them
(or really has not, yet).
"""
import re
import subprocess
import time
import uuid
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from accounts.models import AuditEntry
from config.db_router import ReplicaRouter, read_from_master, replica_alias, replica_health
from config.tests import stack
from respondents.models import Answer, PageSave, Respondent
from respondents.sql import table
from respondents.tests.factories import login, make_respondents, save_page
from surveys.caching import clear_definition_cache
from surveys.models import Choice, Page, Question
from surveys.tests.factories import make_demo_survey, make_survey

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]

AJAX = {"X-Requested-With": "XMLHttpRequest"}
# The router's own bookkeeping on the replica, not the app's reads.
BOOKKEEPING = ("pg_is_in_recovery", "pg_last_wal_replay_lsn", "pg_current_wal_lsn")


@contextmanager
def by_database():
    """Capture the app's SQL per database: ``(master, replica)`` lists of statements.

    BEGIN and COMMIT are counted: through pgbouncer each is a round trip. A
    stopped replica is not captured (capturing would connect to it).
    """
    replica_health.forget()
    replica_up = replica_health.is_healthy("replica")  # the check itself is not what is measured
    seen = ([], [])
    with ExitStack() as stack_:
        captures = [(stack_.enter_context(CaptureQueriesContext(connections["default"])), seen[0])]
        if replica_up:
            captures.append((stack_.enter_context(CaptureQueriesContext(connections["replica"])), seen[1]))
        yield seen
    for captured, into in captures:
        into.extend(q["sql"] for q in captured.captured_queries if not any(b in q["sql"] for b in BOOKKEEPING))


def tables(statements):
    return " ".join(statements)


@pytest.fixture
def respondent():
    return make_respondents(make_survey())


@pytest.fixture
def taker(respondent):
    client = Client()
    login(client, respondent)
    return client


def answers_on_master(respondent):
    return dict(Answer.objects.using("default").filter(respondent=respondent).values_list("question__code", "value"))


# ---------------------------------------------------------------- routing

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


# ---------------------------------------------------------------- caching

def test_the_second_view_of_a_page_reads_its_definition_from_memcached(taker):
    assert settings.CACHES["default"]["BACKEND"].endswith("PyMemcacheCache")
    clear_definition_cache()
    with by_database() as (master, replica):
        taker.get("/take/page/2/", headers=AJAX)
    assert "surveys_" in tables(replica)
    with by_database() as (master, replica):
        taker.get("/take/page/2/", headers=AJAX)
    assert "surveys_" not in tables(master) + tables(replica)


def test_a_changed_definition_is_never_served_stale(taker, respondent):
    choice = Choice.objects.get(question__survey=respondent.survey, value="blue")
    for round_ in range(10):
        assert 'value="blue"' in taker.get("/take/page/1/").content.decode()  # cached now
        choice.label = f"Blue, take {round_}"
        choice.save()  # on the master; invalidated on commit and after the replica replays it
        html = taker.get("/take/page/1/").content.decode()
        assert f"Blue, take {round_}" in html, f"stale label in round {round_}"


def test_with_memcached_down_pages_still_work(taker, respondent):
    stack.stop_memcached()
    try:
        assert taker.get("/take/").status_code == 200
        assert save_page(taker, 1, {"q-colour": "red"}).json()["saved"] is True
        assert "Favourite colour?" in taker.get("/take/page/1/", headers=AJAX).content.decode()
    finally:
        stack.start_missing()
    assert answers_on_master(respondent)["colour"] == "red"


# ---------------------------------------------------------------- durability

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


# ---------------------------------------------------------------- sessions in Redis

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


# ---------------------------------------------------------------- the database away for a moment

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


# ---------------------------------------------------------------- query budgets per database

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


# ---------------------------------------------------------------- nginx

def test_the_stack_does_not_serve_the_bench_floor_unless_make_bench_asks():
    """/bench/floor/ lets anyone write rows: off in deploy/stack.conf; bench/survey_bench.py turns it on for its run."""
    assert stack.conf()["STACK_BENCH_FLOOR_VIEWS"] == "0"
    status, _, _ = stack.http("GET", "/bench/floor/")
    assert status == 404


@pytest.mark.parametrize("chunked", [False, True])
def test_nginx_answers_a_body_over_the_limit_with_djangos_413_in_json_or_html(chunked):
    limit = int(stack.conf()["STACK_REQUEST_BODY_MAX_BYTES"])
    assert limit == settings.REQUEST_BODY_MAX_BYTES  # one limit for both
    body = b"a=" + b"x" * limit
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if chunked:
        body = iter([body])  # http.client sends an iterable chunked
        headers["Transfer-Encoding"] = "chunked"
    status, answer_headers, text = stack.http("POST", "/take/page/1/", body=body, headers={**headers, **AJAX})
    assert status == 413 and answer_headers["Content-Type"] == "application/json"
    assert "Shorten your longest answers" in text
    status, answer_headers, text = stack.http("POST", "/", body=b"a=" + b"x" * limit, headers=headers)
    assert status == 413 and "Too much to send at once" in text and "<html" in text


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


def test_nginx_answers_a_flood_of_staff_login_posts_itself_with_429():
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    statuses = [stack.http("POST", "/admin/login/", body=b"username=x&password=y", headers=form)[0] for _ in range(40)]
    assert statuses.count(429) >= 40 - 21 - 5  # a burst of 20, one a second after it
    status, headers, text = stack.http("POST", "/admin/login/", body=b"username=x", headers=form)
    assert status == 429 and headers["Retry-After"] == "60" and "Please wait a minute" in text


def test_staff_sign_in_on_the_stack_pauses_an_account_at_the_tenth_failure_from_one_address_only():
    """Counted in Redis for every gunicorn worker: the account is paused at that address, not at another."""
    account = f"nobody-{uuid.uuid4().hex[:8]}"
    web = stack.WebClient(forwarded_for=f"203.0.113.{uuid.uuid4().int % 250}")
    elsewhere = stack.WebClient(forwarded_for=f"198.51.100.{uuid.uuid4().int % 250}")
    try:
        statuses = [web.post_form("/admin/login/", {"username": account, "password": "wrong"})[0] for _ in range(12)]
        assert statuses[:9] == [200] * 9 and statuses[9:] == [429] * 3
        assert elsewhere.post_form("/admin/login/", {"username": account, "password": "wrong"})[0] == 200
    finally:
        stack.forget_login_failures()


# ---------------------------------------------------------------- locked doors

@pytest.mark.parametrize("port_name", ["STACK_PG1_PORT", "STACK_PG2_PORT",
                                       "STACK_PGBOUNCER_MASTER_PORT", "STACK_PGBOUNCER_REPLICA_PORT"])
def test_postgresql_and_pgbouncer_refuse_a_client_without_the_password(port_name):
    import psycopg2

    port = stack.conf()[port_name]
    for user, secret in [("survey", None), ("survey", "wrong"), ("postgres", None), ("replicator", "wrong")]:
        with pytest.raises(psycopg2.OperationalError, match="password|SASL authentication failed"):
            psycopg2.connect(host="127.0.0.1", port=port, user=user, password=secret, dbname="survey", connect_timeout=3)
    with psycopg2.connect(host="127.0.0.1", port=port, user="survey", password=stack.password("survey"),
                          dbname="survey") as db, db.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_redis_refuses_a_client_without_the_password_and_keeps_it_off_the_command_line():
    assert "NOAUTH" in stack.redis_cli("get", "x", authenticated=False)
    assert stack.redis_cli("ping").strip() == "PONG"
    pid = (Path(stack.conf()["STACK_DIR"]) / "run" / "redis.pid").read_text().strip()
    assert stack.password("redis") not in Path(f"/proc/{pid}/cmdline").read_text()


def test_memcached_listens_on_loopback_tcp_only():
    port = f"{int(stack.conf()['STACK_MEMCACHED_PORT']):04X}"
    listening = [line.split()[1] for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
                 if line.split()[1].endswith(":" + port) and line.split()[3] == "0A"]
    assert listening == ["0100007F:" + port]
    assert not any(line.split()[1].endswith(":" + port) for line in Path("/proc/net/udp").read_text().splitlines()[1:])
    assert not any(line.split()[1].endswith(":" + port) for line in Path("/proc/net/tcp6").read_text().splitlines()[1:])


def test_the_stacks_secrets_are_readable_by_their_owner_only():
    stack_dir = Path(stack.conf()["STACK_DIR"])
    assert (stack_dir / "passwords").stat().st_mode & 0o777 == 0o700
    for path in [*(stack_dir / "passwords").iterdir(), stack_dir / "pgpass", stack_dir / "pg" / "pgpass",
                 stack_dir / "secret_key", stack_dir / "redis" / "redis.conf", stack_dir / "pgbouncer" / "userlist.txt",
                 stack_dir / "run" / "app.env"]:
        assert path.stat().st_mode & 0o077 == 0, path


# ---------------------------------------------------------------- the router's own gaps

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


def test_export_reads_the_replica(respondent, tmp_path):
    taker = Client()
    login(taker, respondent)
    save_page(taker, 1, {"q-colour": "red"})
    from surveys.tests.factories import replicated

    replicated(None)
    with by_database() as (master, replica):
        call_command("export_responses", "small", "--output", str(tmp_path / "out.csv"))
    assert table(Answer) in tables(replica)
    # The master only records the export in the audit log; every read is the replica's.
    assert table(AuditEntry) in tables(master)
    assert table(Answer) not in tables(master) and table(Respondent) not in tables(master)
    assert "red" in (tmp_path / "out.csv").read_text()


# ---------------------------------------------------------------- deployment checks

def test_check_deploy_reports_nothing_with_tls_settings_on(monkeypatch):
    # Set by conftest.py for Playwright in the test process only; never in deployment.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE")
    secure = {"SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SECURE_SSL_REDIRECT": True,
              "SECURE_HSTS_SECONDS": 60 * 60 * 24 * 30}
    with override_settings(**secure):
        call_command("check", "--deploy", "--fail-level", "WARNING")


def test_the_save_id_is_honoured_across_the_stack(taker, respondent):
    save_id = uuid.uuid4()
    first = save_page(taker, 1, {"q-colour": "red"}, save_id=save_id)
    again = save_page(taker, 1, {"q-colour": "blue"}, save_id=save_id)
    assert first.json() == again.json()
    assert answers_on_master(respondent)["colour"] == "red"


def test_a_replica_lagging_past_the_threshold_is_not_read(taker):
    with override_settings(REPLICA_MAX_LAG_SECONDS=-1):  # any replica counts as too far behind
        with by_database() as (master, replica):
            assert taker.get("/take/").status_code == 200
        assert table(Respondent) in tables(master) and not replica
        assert replica_alias() == "default"
    replica_health.forget()


def test_the_celery_worker_answers_over_the_redis_broker():
    from config.celery import app

    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        replies = app.control.ping(timeout=2)
    assert replies and all(reply for answer in replies for reply in answer.values())
    assert app.conf.broker_url.startswith("redis://")


@pytest.mark.parametrize("component", ["celery", "gunicorn"])
def test_a_pidfile_naming_an_unreaped_killed_process_does_not_stop_a_start(component):
    """Where PID 1 does not reap orphans, a worker killed with kill -9 stays a zombie: kill -0 still
    answers for its PID. Celery and gunicorn then refused to start over its pidfile (the drill's
    Celery fault on CI). deploy/stack counts a zombie as dead and starts the component anyway."""
    pidfile = Path(stack.conf()["STACK_DIR"]) / "run" / f"{component}.pid"
    stack.stack("stop", component)
    zombie = subprocess.Popen(["true"])  # never waited for while the check runs: a zombie
    try:
        for _ in range(50):
            if Path(f"/proc/{zombie.pid}/stat").read_text().split()[2] == "Z":
                break
            time.sleep(0.1)
        pidfile.write_text(f"{zombie.pid}\n")
        stack.stack("start", component)
        assert int(pidfile.read_text()) != zombie.pid
        assert re.search(rf"^{component}\s+\d+\s+\S+\s+up", stack.stack("status"), re.MULTILINE)
    finally:
        zombie.wait()
        stack.start_missing()


@pytest.mark.django_db(transaction=True)
def test_a_write_refused_by_a_read_only_server_is_the_fault_that_passes():
    """What a demoted leader answers a write on a connection made before (PostgreSQL's own error, through Django)
    is what RetryableFaultMiddleware answers 503: config/faults.read_only_server."""
    from django.db import InternalError, connection, transaction

    from config.faults import read_only_server

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

    from config import db_router

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
