"""What the one-box stack (deploy/stack) leaves open and shut: nginx's limits and its 413, the bench floor off,
every service refusing a client without its password, memcached on loopback only, secrets readable by their owner,
a stale pidfile that does not stop a start. Runs only against the live stack (`make test-stack`)."""
import re
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from deploy.tests import stack
from deploy.tests.stack import AJAX

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



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


def test_nginx_answers_a_flood_of_staff_login_posts_itself_with_429():
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    statuses = [stack.http("POST", "/admin/login/", body=b"username=x&password=y", headers=form)[0] for _ in range(40)]
    assert statuses.count(429) >= 40 - 21 - 5  # a burst of 20, one a second after it
    status, headers, text = stack.http("POST", "/admin/login/", body=b"username=x", headers=form)
    assert status == 429 and headers["Retry-After"] == "60" and "Please wait a minute" in text


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
