"""What the live stack's tests share: control of its components through the project's own scripts, and what the
app asked of each database."""
import os
import subprocess
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from django.db import OperationalError, connections
from django.test.utils import CaptureQueriesContext

from infra.db_router import replica_health
from respondents.models import Answer

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "deploy" / "stack"


def conf():
    """Return deploy/stack.conf's values (with the environment's overrides), as the script sees them."""
    script = f'ROOT="{ROOT}"; set -a; . "{ROOT}/deploy/stack.conf"; env'
    output = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    return dict(line.split("=", 1) for line in output.splitlines() if line.startswith("STACK_"))


class StackCommandFailed(AssertionError):
    """deploy/stack failed; the message holds the end of what it printed."""


def stack(*args):
    """Run deploy/stack with ``args``; return its output. A failure says what the script printed."""
    result = subprocess.run([str(STACK), *args], capture_output=True, text=True)
    if result.returncode:
        printed = (result.stdout + result.stderr).strip().splitlines()[-15:]
        raise StackCommandFailed(f"deploy/stack {' '.join(args)} exited {result.returncode}:\n" + "\n".join(printed))
    return result.stdout


def start_missing():
    """Start whatever component is down (deploy/stack up is harmless for the running ones).

    Right after a fault (the master stopped at once, say) one ``up`` has been
    seen to fail on CI while the restarted components settled, without saying
    why; it is run a second time then, and the first failure is printed so that
    the next occurrence says what it was.
    """
    try:
        stack("up")
    except StackCommandFailed as first:
        print(f"start_missing: {first}; running up again", flush=True)
        time.sleep(2)
        stack("up")


def as_service(*command):
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *command], capture_output=True, text=True, check=True).stdout


def node(role):
    """Return the PostgreSQL node (pg1 or pg2) that is the ``master`` or the ``replica`` now."""
    return stack("node", role).strip()


def pg_ctl(role, *args):
    """Run pg_ctl on the data directory of the master or the replica."""
    values = conf()
    data = Path(values["STACK_DIR"]) / "pg" / node(role)
    return as_service(f"{values['STACK_PG_BIN']}/pg_ctl", "-D", str(data), *args)


def password(name):
    """Return one of the passwords deploy/stack generated (.stack/passwords/NAME)."""
    return (Path(conf()["STACK_DIR"]) / "passwords" / name).read_text().strip()


def redis_cli(*args, authenticated=True):
    env = {**os.environ, "REDISCLI_AUTH": password("redis")} if authenticated else os.environ
    command = ["redis-cli", "-p", conf()["STACK_REDIS_PORT"], *args]
    return subprocess.run(command, capture_output=True, text=True, env=env).stdout


PID_FILES = {
    "memcached": "memcached/memcached.pid",
    "pgbouncer-master": "pgbouncer/master.pid",
    "pgbouncer-replica": "pgbouncer/replica.pid",
}


def stop(component, signal=15):
    """Stop a component (one of PID_FILES) by its pid file and wait until it is gone."""
    pid = int((Path(conf()["STACK_DIR"]) / PID_FILES[component]).read_text().strip())
    os.kill(pid, signal)
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def stop_memcached():
    stop("memcached")


def until_database_answers(alias="default", timeout=30):
    """Reconnect ``alias`` until a query goes through (after a restart of PostgreSQL)."""
    deadline = time.monotonic() + timeout
    while True:
        connections[alias].close()
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute("SELECT 1")
            return
        except OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def nginx_url(path="/"):
    return f"http://127.0.0.1:{conf()['STACK_NGINX_PORT']}{path}"


def http(method, path, *, body=None, headers=None, timeout=10):
    """Send one request through the stack's nginx; return (status, headers, body text). No redirects followed."""
    import http.client

    port = int(conf()["STACK_NGINX_PORT"])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = headers or {}
        chunked = headers.get("Transfer-Encoding") == "chunked"
        connection.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
    finally:
        connection.close()


class WebClient:
    """A client that keeps cookies and posts forms with their CSRF token, as a browser does.

    Through the stack's nginx, or another front (``base_url``: the lab's load
    balancer); or, with ``forwarded_for``, straight to gunicorn as nginx would
    send it a client at that address.
    """

    def __init__(self, forwarded_for=None, base_url=None):
        self.forwarded_for = forwarded_for
        self.base_url = base_url
        import urllib.request
        from http.cookiejar import CookieJar

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def url(self, path):
        return f"{self.base_url}{path}" if self.base_url else nginx_url(path)

    def request(self, method, path, *, data=None, headers=None, timeout=10):
        """Return (status, headers, text); 4xx and 5xx are answers, not exceptions."""
        import urllib.error
        import urllib.parse
        import urllib.request

        body = urllib.parse.urlencode(data, doseq=True).encode() if data is not None else None
        headers = dict(headers or {})
        url = self.url(path)
        if self.forwarded_for:
            url = f"http://127.0.0.1:{conf()['STACK_GUNICORN_PORT']}{path}"
            headers["X-Forwarded-For"] = self.forwarded_for
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode("utf-8", "replace")

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def post_file(self, path, fields, name, filename, content):
        """POST a multipart form with one file, as a browser uploads it; return (status, headers, text)."""
        import urllib.error
        import urllib.request

        from urllib3.filepost import encode_multipart_formdata

        if self.cookie("csrftoken") is None:
            self.request("GET", path)
        token = self.cookie("csrftoken")
        body, content_type = encode_multipart_formdata(
            {"csrfmiddlewaretoken": token, **fields, name: (filename, content)})
        request = urllib.request.Request(self.url(path), data=body, method="POST", headers={
            "Content-Type": content_type, "X-CSRFToken": token, "Referer": self.url(path)})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode("utf-8", "replace")

    def post_form(self, path, fields, headers=None):
        if self.cookie("csrftoken") is None:
            self.request("GET", path)
        token = self.cookie("csrftoken")
        return self.request("POST", path, data={"csrfmiddlewaretoken": token, **fields},
                            headers={"X-CSRFToken": token, "Referer": self.url(path), **(headers or {})})


def app_manage(*args):
    """Run manage.py as the stack's app runs (production settings, the app's own database); return its output."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    return subprocess.run([str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "manage.py"), *args],
                          capture_output=True, text=True, check=True, env=environment, cwd=ROOT).stdout


def forget_login_failures():
    """Empty the running app's login-limit counters (Redis db 3), so one test's failures hold up nobody after it."""
    redis_cli("-n", "3", "FLUSHDB")


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


def answers_on_master(respondent):
    return dict(Answer.objects.using("default").filter(respondent=respondent).values_list("question__code", "value"))
