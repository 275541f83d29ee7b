"""Sessions, login-limit counters and Celery's broker through Redis Sentinel, against real servers.

A primary with a password, its replica and three Sentinels run from Debian's binaries on free loopback ports,
configured by production settings (REDIS_SENTINELS). Killing the primary must be a pause: the session store says
"unavailable" until the Sentinels promote the replica, then the same cache objects read the same session from it.
"""
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis
from django.core.cache import caches
from kombu import Connection
from kombu.exceptions import OperationalError

from infra.sessions import SessionStore

REDIS_SERVER = Path("/usr/bin/redis-server")
REDIS_SENTINEL = Path("/usr/bin/redis-sentinel")
MASTER_NAME = "survey"
PASSWORD = "pass;word@sentinel"  # characters a URL must quote
# How long the Sentinels may take to see the primary gone and promote the replica (down-after 1 s: about 2.5 s here).
PROMOTION_SECONDS = 15


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisGroup:
    """A primary, a replica and three Sentinels watching them, each a process of this test run."""

    def __init__(self, folder):
        self.folder = folder
        self.primary_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.processes = {}

    def start(self):
        common = f'bind 127.0.0.1\ndir {self.folder}\nsave ""\nappendonly no\n'
        auth = f'requirepass "{PASSWORD}"\nmasterauth "{PASSWORD}"\n'
        self._run("primary", REDIS_SERVER, f"port {self.primary_port}\n{common}{auth}")
        self._run("replica", REDIS_SERVER,
                  f"port {self.replica_port}\n{common}{auth}replicaof 127.0.0.1 {self.primary_port}\n")
        for number, port in enumerate(self.sentinel_ports):
            self._run(f"sentinel-{number}", REDIS_SENTINEL, (
                f"port {port}\nbind 127.0.0.1\ndir {self.folder}\n"
                f"sentinel monitor {MASTER_NAME} 127.0.0.1 {self.primary_port} 2\n"
                f'sentinel auth-pass {MASTER_NAME} "{PASSWORD}"\n'
                f"sentinel down-after-milliseconds {MASTER_NAME} 1000\n"
                f"sentinel failover-timeout {MASTER_NAME} 5000\n"
            ))

    def _run(self, name, binary, configuration):
        path = self.folder / f"{name}.conf"
        # Sentinels rewrite their configuration file: it must be theirs to write.
        path.write_text(f"{configuration}logfile {self.folder / name}.log\n")
        self.processes[name] = subprocess.Popen([str(binary), str(path)], stdout=subprocess.DEVNULL)

    def ready(self):
        """Whether every Sentinel sees the primary up, the other two Sentinels, and the replica in sync."""
        try:
            for port in self.sentinel_ports:
                with redis.Redis(port=port, socket_timeout=1) as sentinel:
                    master = sentinel.sentinel_master(MASTER_NAME)
                    replicas = sentinel.sentinel_slaves(MASTER_NAME)
                if master["num-other-sentinels"] < 2 or master["is_sdown"] or not any(
                    replica["master-link-status"] == "ok" and not replica["is_sdown"] for replica in replicas
                ):
                    return False
        except redis.RedisError:
            return False
        return True

    def master_port(self):
        """The port of the server the Sentinels name master now."""
        with redis.Redis(port=self.sentinel_ports[0], socket_timeout=1) as sentinel:
            return sentinel.sentinel_get_master_addr_by_name(MASTER_NAME)[1]

    def server(self, port, db):
        """A plain client of one server, to look at what the app wrote there."""
        return redis.Redis(port=port, db=db, password=PASSWORD, socket_timeout=1)

    def logs(self):
        return "\n".join(f"--- {path.name}\n{path.read_text()[-2000:]}" for path in sorted(self.folder.glob("*.log")))

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
            process.wait()


@pytest.fixture(scope="module")
def redis_group(tmp_path_factory):
    missing = [str(binary) for binary in (REDIS_SERVER, REDIS_SENTINEL) if not binary.exists()]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} missing: CI must install Debian's redis-server and redis-sentinel")
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install redis-server redis-sentinel)")
    group = RedisGroup(tmp_path_factory.mktemp("redis-sentinel"))
    try:
        group.start()
        deadline = time.monotonic() + 20
        while not group.ready():
            if time.monotonic() > deadline:
                pytest.fail(f"the Redis group did not come up in 20 s:\n{group.logs()}")
            time.sleep(0.1)
        yield group
    finally:
        group.stop()


@pytest.fixture
def production(redis_group, load_settings, settings, monkeypatch):
    """Production settings for these Sentinels; this test's sessions and login-limit caches are theirs."""
    for name in ("REDIS_SESSIONS_URL", "REDIS_RATELIMIT_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_SENTINELS", ",".join(f"127.0.0.1:{port}" for port in redis_group.sentinel_ports))
    monkeypatch.setenv("REDIS_SENTINEL_MASTER", MASTER_NAME)
    monkeypatch.setenv("REDIS_PASSWORD", PASSWORD)
    loaded = load_settings("production")
    settings.CACHES = {**settings.CACHES, "sessions": loaded["CACHES"]["sessions"],
                       "ratelimit": loaded["CACHES"]["ratelimit"]}
    settings.SESSION_CACHE_ALIAS = "sessions"
    return loaded


def broker(production):
    return Connection(production["CELERY_BROKER_URL"],
                      transport_options=production["CELERY_BROKER_TRANSPORT_OPTIONS"], connect_timeout=2)


def round_trip(connection, body):
    """Publish one message on a queue of its own and consume it; return what came back."""
    with connection.SimpleQueue(f"sentinel-test-{body}") as queue:
        queue.put({"body": body})
        message = queue.get(timeout=5)
        message.ack()
        return message.payload["body"]


def test_a_session_saved_through_the_sentinels_is_read_back_from_the_master_s_db_0(redis_group, production):
    store = SessionStore()
    store["respondent_id"] = 7
    store.save()
    assert SessionStore(store.session_key).load() == {"respondent_id": 7}
    master = redis_group.server(redis_group.master_port(), db=0)
    assert master.exists(caches["sessions"].make_key(store.cache_key))


def test_the_login_limit_counters_count_in_the_master_s_db_3(redis_group, production):
    counters = caches["ratelimit"]
    counters.clear()
    assert counters.add("failures", 1, 60)
    assert counters.incr("failures") == 2
    assert counters.get("failures") == 2
    assert redis_group.server(redis_group.master_port(), db=3).dbsize() == 1


def test_celery_s_broker_url_publishes_and_consumes_through_the_sentinels(redis_group, production):
    with broker(production) as connection:
        assert round_trip(connection, "before") == "before"
    # The queue's binding is in the master's db 1, as with the URL form's default.
    assert redis_group.server(redis_group.master_port(), db=1).exists("_kombu.binding.sentinel-test-before")


def test_a_killed_primary_is_a_pause_after_which_the_same_session_is_read_from_the_promoted_replica(
    redis_group, production,
):
    sessions, counters = caches["sessions"], caches["ratelimit"]
    store = SessionStore()
    store["respondent_id"] = 42
    store.save()
    key = store.session_key
    assert counters.add("kill-failures", 1, 60)
    # A broker connection held across the kill, as a Celery worker's is.
    held = broker(production)
    held_queue = held.SimpleQueue("sentinel-test-held")
    held_queue.put({"body": "before"})
    held_queue.get(timeout=5).ack()
    old_master = redis_group.master_port()
    # Replication is asynchronous: what the replica has not received yet is lost with the primary.
    assert redis_group.server(old_master, db=0).wait(1, 2000) == 1

    primary = redis_group.processes["primary" if old_master == redis_group.primary_port else "replica"]
    primary.send_signal(signal.SIGKILL)
    primary.wait()
    killed = time.monotonic()
    unavailable = []
    while True:
        store = SessionStore(key)
        data = store.load()
        unavailable.append(store.unavailable)
        if not store.unavailable:
            break
        # While the primary is gone the counters count nothing, and raise nothing either.
        assert counters.incr("kill-failures") == 1
        assert time.monotonic() - killed < PROMOTION_SECONDS, f"no promotion:\n{redis_group.logs()}"
        time.sleep(0.1)

    assert unavailable[0], "the first read after the kill finds the store unavailable"
    assert data == {"respondent_id": 42} and store.session_key == key, "the respondent is still logged in"
    assert redis_group.master_port() != old_master
    # The same cache objects (no restart) write to the new master.
    assert caches["sessions"] is sessions and caches["ratelimit"] is counters
    store["page"] = 2
    store.save()
    assert not store.unavailable
    assert SessionStore(key).load() == {"respondent_id": 42, "page": 2}
    assert counters.incr("kill-failures") == 2
    # The held broker connection finds the new master too (after a failed call or two, as a worker reconnects).
    while True:
        try:
            held_queue.put({"body": "after"})
            message = held_queue.get(timeout=5)
            break
        except (redis.RedisError, OperationalError):
            assert time.monotonic() - killed < PROMOTION_SECONDS, "the held broker connection did not recover"
            time.sleep(0.1)
    message.ack()
    assert message.payload == {"body": "after"}
    held_queue.close()
    held.release()
    with broker(production) as connection:
        assert round_trip(connection, "after") == "after"


def test_a_sentinel_that_never_answers_costs_one_timeout_not_retries(redis_group, production, monkeypatch,
                                                                        load_settings, settings):
    """A dead host's Sentinel answers nothing, not even a reset (the lab's `kill`): asked first, it must cost one
    socket timeout (1 s), not redis-py's default three retries with backoff, which outlived gunicorn's 30 s."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # accepts connections (the kernel does), never reads or writes
        ports = [silent.getsockname()[1], *redis_group.sentinel_ports]
        monkeypatch.setenv("REDIS_SENTINELS", ",".join(f"127.0.0.1:{port}" for port in ports))
        settings.CACHES = {**settings.CACHES, "sessions": load_settings("production")["CACHES"]["sessions"]}
        store = SessionStore()
        started = time.monotonic()
        store["respondent_id"] = 8
        store.save()
        assert not store.unavailable and SessionStore(store.session_key).load() == {"respondent_id": 8}
        assert time.monotonic() - started < 5
