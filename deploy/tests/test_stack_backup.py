"""Backups on the live stack: pgBackRest archives the master's WAL into MinIO (over HTTPS, encrypted) and takes
backups there; deploy/stack restore refuses what it cannot do before touching anything. The restore itself, under
load and with a recount, is `make restore-drill` (CI runs it short): a restore stops the master the tests use.
"""
import re
import subprocess
import time

import boto3
import psycopg2
import pytest
from django.conf import settings

from deploy.tests import stack

pytestmark = [pytest.mark.stack]


def master_query(sql):
    values = stack.conf()
    port = values["STACK_PG1_PORT"] if stack.node("master") == "pg1" else values["STACK_PG2_PORT"]
    with psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres",
                          password=stack.password("postgres")) as db, db.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()


def test_the_master_archives_each_wal_segment_into_the_repository():
    segment, = master_query("SELECT pg_walfile_name(pg_switch_wal())")
    deadline = time.monotonic() + 60
    while (master_query("SELECT last_archived_wal FROM pg_stat_archiver")[0] or "") < segment:
        assert time.monotonic() < deadline, f"WAL segment {segment} was not archived within 60 s"
        time.sleep(0.5)
    failed, = master_query("SELECT failed_count FROM pg_stat_archiver")
    assert failed == 0
    archived = boto3.client("s3", endpoint_url=settings.AWS_S3_ENDPOINT_URL, region_name="us-east-1").list_objects_v2(
        Bucket=stack.conf()["STACK_S3_BACKUP_BUCKET"], Prefix="stack/archive/survey/")
    assert any(segment in item["Key"] for item in archived.get("Contents", []))


def test_a_backup_is_listed_with_its_wal_and_stored_encrypted():
    output = stack.stack("backup", "incr")
    assert re.search(r"^Backup done in \d+ s\.$", output, re.M)
    listing = stack.stack("backups")
    assert "status: ok" in listing and "cipher: aes-256-cbc" in listing
    assert re.search(r"wal archive min/max \(15\): [0-9A-F]{24}/[0-9A-F]{24}", listing)
    label = re.findall(r"(?:full|diff|incr) backup: (\S+)", listing)[-1]
    # An incremental one, or a full one when the repository had none yet (a fresh stack: pgBackRest's rule).
    assert re.search(rf"(?:incr|full) backup: {label}\n\s+timestamp start/stop: .+\n\s+wal start/stop: [0-9A-F]{{24}} / "
                     r"[0-9A-F]{24}", listing)
    # What MinIO holds is ciphertext: the manifest does not show its own section names.
    client = boto3.client("s3", endpoint_url=settings.AWS_S3_ENDPOINT_URL, region_name="us-east-1")
    manifest = client.get_object(Bucket=stack.conf()["STACK_S3_BACKUP_BUCKET"],
                                 Key=f"stack/backup/survey/{label}/backup.manifest")["Body"].read()
    assert b"[backup]" not in manifest and b"backup-label" not in manifest


@pytest.mark.parametrize("arguments, refusal", [
    ((), "usage: deploy/stack restore --to"),
    (("--to",), "usage: deploy/stack restore --to"),
    (("--to", "yesterday"), "is not a moment with its time zone"),
    (("--to", "2026-11-26 10:00:00"), "is not a moment with its time zone"),
    (("--to", "2999-01-01 00:00:00+00"), "is in the future"),
])
def test_restore_refuses_a_moment_it_cannot_use_and_touches_nothing(arguments, refusal):
    before = stack.stack("pid", "master").strip()
    run = subprocess.run([str(stack.STACK), "restore", *arguments], capture_output=True, text=True)
    assert run.returncode == 1 and refusal in run.stderr
    assert stack.stack("pid", "master").strip() == before  # the master was not stopped
