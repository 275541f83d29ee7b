"""The lab itself (deploy/lab): hosts that Ansible reaches over SSH as it reaches real machines, a subnet that
leads nowhere else, and the faults the drills need: kill, start, partition, heal. `make lab-test` runs these
against a lab that `deploy/lab up` made; elsewhere they are skipped.
"""
import json
import subprocess
import time

import pytest

from deploy.lab_hosts import (
    ROOT,
    SECRETS,
    cluster,
    connects,
    hosts,
    in_host,
    lab,
    leader,
    missing_rows,
    redis_role,
    sentinel_primary,
    superuser_query,
    wait_for,
)

pytestmark = pytest.mark.lab


def test_every_host_answers_over_ssh_with_its_own_address():
    for name, address in hosts().items():
        run = lab("ssh", name, "hostname -I")
        assert run.stdout.split() == [address], name


def test_the_hosts_reach_each_other_and_nothing_beyond_the_lab():
    addresses = hosts()
    assert connects("web1", addresses["db1"]) and connects("db3", addresses["lb1"])
    for name in addresses:
        routes = in_host(name, "ip", "route").stdout
        assert "default" not in routes and routes.strip().startswith("10.77.0.0/24"), (name, routes)


def test_the_second_run_of_the_playbook_changes_nothing():
    run = lab("up")
    recap = run.stdout[run.stdout.index("PLAY RECAP"):]
    assert "changed=0" in recap and "failed=0" in recap
    assert all("changed=0" in line for line in recap.splitlines()[1:] if "ok=" in line), recap


def test_a_killed_host_has_no_process_left_and_starts_again_with_its_services():
    addresses = hosts()
    lab("kill", "cache2")
    try:
        assert subprocess.run(["ip", "netns", "pids", "lab-cache2"], capture_output=True, text=True).stdout == ""
        assert not connects("cache1", addresses["cache2"])
    finally:
        lab("start", "cache2")
    assert connects("cache1", addresses["cache2"])
    status = lab("status").stdout
    assert any(line.startswith("cache2") and "sshd up" in line for line in status.splitlines()), status


def test_a_partition_cuts_a_host_off_with_its_processes_alive_and_heal_joins_it_again():
    addresses = hosts()
    lab("partition", "web2")
    try:
        assert not connects("web1", addresses["web2"]) and not connects("lb1", addresses["web2"])
        assert subprocess.run(["ip", "netns", "pids", "lab-web2"], capture_output=True, text=True).stdout.strip()
    finally:
        lab("heal", "web2")
    assert connects("web1", addresses["web2"])


def test_a_partition_from_one_host_cuts_only_the_traffic_between_the_two():
    addresses = hosts()
    lab("partition", "db1", "--from", "db2")
    try:
        assert not connects("db1", addresses["db2"]) and not connects("db2", addresses["db1"])
        assert connects("db1", addresses["db3"]) and connects("db2", addresses["db3"])
    finally:
        lab("heal", "db1")
    assert connects("db1", addresses["db2"]) and connects("db2", addresses["db1"])


# ---------------------------------------------------------------- PostgreSQL under Patroni

def test_three_members_one_leader_and_a_synchronous_standby():
    roles, _ = wait_for(lambda: (lambda c: c if len(c) == 3 and "leader" in c.values() and "sync_standby" in
                                 c.values() else None)(cluster()), 60)
    assert roles and sorted(roles.values()).count("leader") == 1, roles


def test_a_killed_leader_is_replaced_without_a_command_and_comes_back_as_a_replica():
    old = leader()
    assert old, f"no Patroni leader: {cluster()}"
    lab("kill", old)
    try:
        new = leader(other_than=old)
        assert new, f"no new leader 60 s after {old} died"
    finally:
        lab("start", old)
    back, _ = wait_for(lambda: cluster().get(old) in {"replica", "sync_standby"}, 90)
    assert back, cluster()


# ---------------------------------------------------------------- writes through pgbouncer and HAProxy

WRITER = r'''
import json, sys, time
import psycopg2
password, seconds = sys.argv[1], float(sys.argv[2])
# Wall-clock times: the test compares them with when it killed the leader.
acknowledged, failures, started, connection = [], [], time.time(), None
while time.time() - started < seconds:
    at = time.time()
    try:
        if connection is None:
            connection = psycopg2.connect(host="127.0.0.1", port=6432, user="survey", password=password,
                                          dbname="survey", connect_timeout=3)
            connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO lab_probe (written_at) VALUES (now()) RETURNING id")
            acknowledged.append((at, cursor.fetchone()[0]))
    except psycopg2.Error as error:
        failures.append((at, type(error).__name__))
        connection = None
        time.sleep(0.2)
    time.sleep(0.05)
print(json.dumps({"acknowledged": acknowledged, "failures": failures}))
'''


def test_writes_through_pgbouncer_go_on_after_the_leader_is_killed_and_none_acknowledged_is_lost():
    """The app's path to the database (pgbouncer → HAProxy → the Patroni leader) while the leader dies: writes
    fail for a while, then go to the new leader by themselves; with synchronous_mode on, every acknowledged row
    is on every member afterwards."""
    old = leader()
    assert old, f"no Patroni leader: {cluster()}"
    superuser_query(hosts()[old], "CREATE TABLE IF NOT EXISTS lab_probe (id serial PRIMARY KEY, "
                                  "written_at timestamptz); GRANT ALL ON lab_probe, lab_probe_id_seq TO survey")
    password = (SECRETS / "postgres-survey").read_text().strip()
    writer = subprocess.Popen(["ip", "netns", "exec", "lab-web1", "/usr/bin/python3", "-c", WRITER, password, "45"],
                              stdout=subprocess.PIPE, text=True)
    time.sleep(5)
    kill_started = time.time()
    lab("kill", old)
    killed_at = time.time()  # its link is down and every process dead by now
    try:
        result = json.loads(writer.communicate(timeout=120)[0])
    finally:
        lab("start", old)
    before = [at for at, _ in result["acknowledged"] if at < kill_started]
    after = [at for at, _ in result["acknowledged"] if at > killed_at]
    assert before and after, result["failures"][:5]
    print(f"\nleader {old} killed; last write {kill_started - max(before):.1f} s before the kill began, first write "
          f"{min(after) - killed_at:.1f} s after it ended; {len(result['acknowledged'])} acknowledged, "
          f"{len(result['failures'])} failed attempts: {sorted(set(kind for _, kind in result['failures']))}")
    wait_for(lambda: cluster().get(old) in {"replica", "sync_standby"}, 90)
    ids = {str(row_id) for _, row_id in result["acknowledged"]}
    missing = missing_rows("SELECT id FROM lab_probe", ids)  # on every member, the old leader's too
    assert not any(missing.values()), {name: sorted(lacking)[:10] for name, lacking in missing.items() if lacking}


# ---------------------------------------------------------------- memcached

def memcached_version(host, address):
    run = in_host(host, "timeout", "2", "bash", "-c",
                  f"exec 3<>/dev/tcp/{address}/11211; printf 'version\\r\\nquit\\r\\n' >&3; head -1 <&3")
    return run.stdout.strip()


def test_every_memcached_of_the_pool_answers_the_app_hosts_and_only_over_tcp():
    addresses = hosts()
    for cache in ("cache1", "cache2"):
        for app in ("web1", "web2", "worker1"):
            assert memcached_version(app, addresses[cache]).startswith("VERSION "), (app, cache)
    assert "-U 0" in (ROOT / ".lab" / "cache1" / "etc" / "supervisor" / "conf.d" / "memcached.conf").read_text()


# ---------------------------------------------------------------- Redis with Sentinel

def test_a_killed_redis_primary_is_replaced_by_sentinel_and_comes_back_as_a_replica():
    addresses = hosts()
    by_address = {address: name for name, address in addresses.items()}
    old = by_address[sentinel_primary()]
    other = next(name for name in ("cache1", "cache2") if name != old)
    assert redis_role(other).get("role") == "slave"
    lab("kill", old)
    try:
        promoted, waited = wait_for(lambda: sentinel_primary() == addresses[other], 30)
        assert promoted, f"no promotion {waited:.0f} s after {old} died"
        assert redis_role(other).get("role") == "master"
    finally:
        lab("start", old)
    back, _ = wait_for(lambda: redis_role(old).get("master_link_status") == "up", 60)
    assert back and redis_role(old).get("master_host") == addresses[other], redis_role(old)
    # Sentinel rewrote the returning host's own file; Ansible's settings are still included, and left alone.
    assert "include" in (ROOT / ".lab" / old / "etc" / "redis" / "redis.conf").read_text()


# ---------------------------------------------------------------- backups (pgBackRest)

def backup_labels(host):
    run = in_host(host, "runuser", "-u", "postgres", "--", "pgbackrest",
                  f"--config={ROOT}/.lab/{host}/etc/pgbackrest/pgbackrest.conf", "--stanza=survey", "--output=json",
                  "info")
    assert run.returncode == 0, run.stderr
    return [backup["label"] for backup in json.loads(run.stdout)[0]["backup"]]


def test_the_leader_archives_its_wal_and_every_member_has_the_backup_schedule():
    name = leader()
    segment = superuser_query(hosts()[name], "SELECT pg_walfile_name(pg_switch_wal())")[0]
    archived, _ = wait_for(lambda: superuser_query(hosts()[name], "SELECT coalesce(last_archived_wal, '') "
                                                                    "FROM pg_stat_archiver")[0] >= segment, 60)
    assert archived, f"{segment} not archived by {name}"
    status = lab("status").stdout
    for member in cluster():
        assert "cron:RUNNING" in next(line for line in status.splitlines() if line.startswith(member + " "))
        schedule = (ROOT / ".lab" / member / "etc" / "cron.d" / "survey-backup").read_text()
        assert "survey-backup full" in schedule and "survey-backup diff" in schedule


def test_the_scheduled_backup_is_taken_by_the_leader_alone():
    """Every member runs the schedule; bin/survey-backup backs up where Patroni says it leads, nowhere else."""
    name = leader()
    before = backup_labels(name)
    for member, role in cluster().items():
        if member != name:
            run = in_host(member, "runuser", "-u", "postgres", "--", f"{ROOT}/.lab/{member}/usr/local/bin/survey-backup",
                          "incr")
            assert run.returncode == 0, (member, role, run.stdout, run.stderr)
    assert backup_labels(name) == before
    run = in_host(name, "runuser", "-u", "postgres", "--", f"{ROOT}/.lab/{name}/usr/local/bin/survey-backup", "incr")
    assert run.returncode == 0, run.stderr
    after = backup_labels(name)
    assert len(after) == len(before) + 1 and after[-1].endswith("I"), after
