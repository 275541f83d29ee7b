"""Exports staff ask for: scoped to the requester, written into storage as one ZIP, audited, expired."""
import csv
import io
import zipfile
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.utils import timezone

from accounts.models import AuditEntry, StaffMember
from exports.jobs import (
    WORKER_GONE,
    export_job_file,
    export_job_run,
    export_job_start,
    export_jobs,
    export_jobs_expire,
    export_jobs_sweep,
)
from exports.models import ExportJob
from exports.options import ExportOptions
from respondents.models import District, School
from respondents.tests.factories import login, make_respondents, make_school, make_staff, save_page, scope_of
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(client):
    """Two schools in two districts; at Lincoln (D1) Ana answered page 1, at Adams (D2) Ben did."""
    survey = make_survey()
    ana = make_respondents(survey, 1, school=make_school("LIN", "Lincoln"), grade="7", display_name="Ana Ruiz")
    ben = make_respondents(survey, 1, school=make_school("ADA", "Adams", ("D2", "District Two")), grade="8")
    for person, colour in ((ana, "red"), (ben, "blue")):
        login(client, person)
        assert save_page(client, 1, {"q-colour": colour, "q-pets": ["cat"]}).json()["saved"]
        client.post("/logout/")
    return survey


def unzip(job):
    with job.file.open("rb") as stream, zipfile.ZipFile(io.BytesIO(stream.read())) as bundle:
        return {name: bundle.read(name) for name in bundle.namelist()}


def test_an_analyst_of_a_district_exports_only_its_schools_into_storage_with_a_codebook(answered):
    analyst = scope_of(make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")]))
    job = export_job_start(scope=analyst, survey=answered, format="csv", options=ExportOptions())
    assert job.status == ExportJob.Status.QUEUED and job.rows_total == 1
    job = export_job_run(job_id=job.pk)
    assert job.status == ExportJob.Status.DONE, job.error
    assert default_storage.exists(job.file.name) and job.size == default_storage.size(job.file.name)
    files = unzip(job)
    assert sorted(files) == ["small-codebook.xlsx", "small.csv"]
    rows = list(csv.DictReader(io.StringIO(files["small.csv"].decode())))
    assert [(r["roster_school_code"], r["colour"]) for r in rows] == [("LIN", "red")]
    assert job.expires_at - job.finished_at == timedelta(days=7)


def test_a_whole_state_analyst_gets_every_district_and_never_names(answered):
    analyst = scope_of(make_staff(StaffMember.Role.ANALYST))
    options = ExportOptions(roster_fields=("external_id", "display_name", "school_code"))
    job = export_job_run(job_id=export_job_start(scope=analyst, survey=answered, format="csv",
                                                 options=options).pk)
    rows = list(csv.DictReader(io.StringIO(unzip(job)["small.csv"].decode())))
    assert sorted(r["roster_school_code"] for r in rows) == ["ADA", "LIN"]
    assert "roster_display_name" not in rows[0] and "roster_external_id" in rows[0]


@pytest.mark.parametrize("format, names", [
    ("xlsx", ["small-codebook.xlsx", "small.xlsx"]),
    ("spss", ["small-codebook.xlsx", "small.dat", "small.sps"]),
    ("stata", ["small-codebook.xlsx", "small.dat", "small.do"]),
])
def test_each_format_arrives_as_one_zip_with_its_syntax_and_codebook(answered, format, names):
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    job = export_job_run(job_id=export_job_start(scope=admin, survey=answered, format=format,
                                                 options=ExportOptions()).pk)
    assert sorted(unzip(job)) == names and job.rows_done == 2


def test_coordinators_may_not_export_and_an_unknown_format_is_refused(answered):
    for role, where in ((StaffMember.Role.SCHOOL_COORDINATOR, {"schools": [School.objects.get(code="LIN")]}),
                        (StaffMember.Role.DISTRICT_COORDINATOR, {"districts": [District.objects.get(code="D1")]})):
        with pytest.raises(PermissionDenied):
            export_job_start(scope=scope_of(make_staff(role, **where)), survey=answered, format="csv",
                             options=ExportOptions())
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    with pytest.raises(ValueError, match="Unknown export format 'sas'"):
        export_job_start(scope=admin, survey=answered, format="sas", options=ExportOptions())
    assert not ExportJob.objects.exists()


def test_only_the_requester_downloads_and_every_request_and_download_is_audited(answered):
    mine = scope_of(make_staff(StaffMember.Role.ANALYST, username="mine"))
    theirs = scope_of(make_staff(StaffMember.Role.ANALYST, username="theirs"))
    job = export_job_run(job_id=export_job_start(scope=mine, survey=answered, format="csv",
                                                 options=ExportOptions()).pk)
    assert list(export_jobs(scope=theirs)) == []
    with pytest.raises(PermissionDenied):
        export_job_file(scope=theirs, job=job)
    assert export_job_file(scope=mine, job=job).name == job.file.name
    actions = list(AuditEntry.objects.filter(username="mine").values_list("action", flat=True))
    assert sorted(actions) == ["export_downloaded", "export_requested"]
    requested = AuditEntry.objects.get(action="export_requested")
    assert "CSV" in requested.detail and requested.survey_id == answered.pk


def test_a_requester_who_lost_the_role_gets_a_failed_export_and_no_file(answered):
    user = make_staff(StaffMember.Role.ANALYST)
    job = export_job_start(scope=scope_of(user), survey=answered, format="csv", options=ExportOptions())
    StaffMember.objects.filter(user=user).update(role=StaffMember.Role.SCHOOL_COORDINATOR)
    job = export_job_run(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and "may not do this" in job.error and not job.file


def test_expired_exports_are_deleted_from_storage_and_cannot_be_downloaded(answered):
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    job = export_job_run(job_id=export_job_start(scope=admin, survey=answered, format="csv",
                                                 options=ExportOptions()).pk)
    fresh = export_job_run(job_id=export_job_start(scope=admin, survey=answered, format="csv",
                                                   options=ExportOptions()).pk)
    name = job.file.name
    assert export_jobs_expire(now=timezone.now()) == 0
    assert export_jobs_expire(now=job.expires_at + timedelta(seconds=1)) == 2
    job.refresh_from_db()
    assert job.status == ExportJob.Status.EXPIRED and not job.file and not default_storage.exists(name)
    with pytest.raises(ExportJob.DoesNotExist):
        export_job_file(scope=admin, job=job)
    fresh.refresh_from_db()
    assert fresh.status == ExportJob.Status.EXPIRED


def test_a_running_export_whose_worker_went_away_is_failed_by_the_sweep_and_can_be_asked_again(answered, settings):
    """A killed machine leaves its export 'running' with a heartbeat that stops: the sweep fails it, with no file,
    and the same request asked again is written."""
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    job = export_job_start(scope=admin, survey=answered, format="csv", options=ExportOptions())
    beat = timezone.now() - timedelta(seconds=settings.EXPORT_STALE_SECONDS + 1)
    ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.RUNNING, heartbeat_at=beat)
    alive = export_job_start(scope=admin, survey=answered, format="csv", options=ExportOptions())
    ExportJob.objects.filter(pk=alive.pk).update(status=ExportJob.Status.RUNNING, heartbeat_at=timezone.now())

    assert export_jobs_sweep() == 1
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and job.error == WORKER_GONE and not job.file
    with pytest.raises(ExportJob.DoesNotExist):
        export_job_file(scope=admin, job=job)
    alive.refresh_from_db()
    assert alive.status == ExportJob.Status.RUNNING  # its worker still beats
    # The task delivered again (the broker's redelivery) leaves the failed job alone; a new request is written.
    assert export_job_run(job_id=job.pk).status == ExportJob.Status.FAILED
    again = export_job_run(job_id=export_job_start(scope=admin, survey=answered, format="csv",
                                                   options=ExportOptions()).pk)
    assert again.status == ExportJob.Status.DONE and default_storage.exists(again.file.name)


def test_a_running_export_beats_and_a_second_delivery_of_its_task_leaves_it_alone(answered):
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    job = export_job_start(scope=admin, survey=answered, format="csv", options=ExportOptions())
    job = export_job_run(job_id=job.pk)
    assert job.status == ExportJob.Status.DONE and job.heartbeat_at is not None
    name = job.file.name
    assert export_job_run(job_id=job.pk).file.name == name  # delivered again: nothing written twice


def test_an_export_swept_while_it_was_still_writing_keeps_no_file(answered, settings, monkeypatch):
    """Its heartbeat could not be written (the database away), the sweep failed it, then it finished: the job
    stays failed and the file it wrote is deleted, so nobody downloads an export the page says failed."""
    import exports.jobs as jobs
    admin = scope_of(make_staff(StaffMember.Role.STATE_ADMIN))
    job = export_job_start(scope=admin, survey=answered, format="csv", options=ExportOptions())
    folder = f"exports/{timezone.now():%Y/%m}/"

    def stored():
        return set(default_storage.listdir(folder)[1]) if default_storage.exists(folder) else set()

    before, original, zipped = stored(), jobs.export_zip, []

    def zip_then_swept(*, files, path):
        original(files=files, path=path)
        zipped.append(path)
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error=WORKER_GONE)

    monkeypatch.setattr(jobs, "export_zip", zip_then_swept)
    job = export_job_run(job_id=job.pk)
    assert zipped and job.status == ExportJob.Status.FAILED and job.error == WORKER_GONE and not job.file
    assert stored() == before
