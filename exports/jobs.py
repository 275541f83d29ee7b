"""Response exports staff ask for in the staff area: queued, written by Celery from a replica, kept in storage.

``export_job_start`` records what was asked (format and options, from the
staff member's scope) and audits it; ``export_job_run`` (the Celery task)
writes the export's files with ``exports.writers.export_write`` into a
scratch folder, reading a replica in pages, with the progress on the job
row; bundles them into one ZIP and saves it through Django's default
storage: the file system on the embedded default, an S3 bucket on the stack
(django-storages). Only the person who asked may download it
(``export_job_file``, audited), through a short-lived link the staff screens
make; ``export_jobs_expire`` (celery beat, hourly) deletes exports older than
``EXPORT_RETENTION_DAYS``.

Who exports: state administrators and analysts (an analyst named to some
districts gets only their schools). Coordinators manage people and never
download answers. Access codes are never exported; a scope that may not see
codes (an analyst) never gets names either, whatever the options say.
"""
import logging
import tempfile
import time
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.files import File
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import Scope, staff_scope
from exports.models import ExportJob
from exports.writers import ExportOptions, export_write, export_zip
from surveys.models import Survey

logger = logging.getLogger(__name__)


# Roster fields only a scope that may see codes gets (analysts never see who is who by name).
NAMED_FIELDS = frozenset({"display_name"})


def export_options_for(*, scope: Scope, options: ExportOptions) -> ExportOptions:
    """``options`` as ``scope`` may have them: without names for a scope that may not see codes."""
    if scope.can_see_codes:
        return options
    return replace(options, roster_fields=tuple(f for f in options.roster_fields if f not in NAMED_FIELDS))


def export_job_start(*, scope: Scope, survey: Survey, format: str, options: ExportOptions) -> ExportJob:
    """Queue an export of ``survey`` in ``format`` with ``options`` (ExportOptions) for Celery, audited; return
    the ExportJob (the caller queues its task)."""
    scope.require("can_export")
    if format not in ExportJob.Format.values:
        raise ValueError(f"Unknown export format '{format}': one of {', '.join(ExportJob.Format.values)}.")
    options = export_options_for(scope=scope, options=options)
    with transaction.atomic(durable=True):
        job = ExportJob.objects.create(
            survey=survey, requested_by_id=scope.requester_id(), requested_from=scope.address, format=format,
            options=asdict(options), rows_total=scope.respondents(survey).count())
        audit_record(scope=scope, action=Action.EXPORT_REQUESTED, survey=survey,
                     detail=f"{job.get_format_display()}: {options.describe()} (export {job.pk})")
    return job


def export_job_run(*, job_id: int, using: str | None = None) -> ExportJob:
    """Write a queued ExportJob's files from database ``using`` (a replica), ZIP them into storage, and mark it
    done (or failed, with the reason); return the job."""
    job = ExportJob.objects.select_related("survey", "requested_by").get(pk=job_id)
    if job.status != ExportJob.Status.QUEUED:
        return job
    ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.RUNNING)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] > 0.5 or done == total:
            last[0] = time.monotonic()
            ExportJob.objects.filter(pk=job.pk).update(rows_done=done, rows_total=total)

    try:
        # The scope as it is now: someone whose role was taken away since gets nothing.
        scope = staff_scope(user=job.requested_by, address=job.requested_from)
        scope.require("can_export")
        options = export_options_for(scope=scope, options=ExportOptions(**job.options))
        with tempfile.TemporaryDirectory(prefix="export-") as scratch:
            folder = Path(scratch) / "files"
            folder.mkdir()
            result = export_write(survey=job.survey, format=job.format, options=options, directory=folder,
                                  using=using, school_ids=scope.school_ids, progress=progress)
            bundle = Path(scratch) / f"{job.survey.slug}-{job.format}.zip"
            export_zip(files=result.files, path=bundle)
            with open(bundle, "rb") as stream:
                job.file.save(bundle.name, File(stream), save=False)
            size = bundle.stat().st_size
        now = timezone.now()
        with transaction.atomic(durable=True):
            ExportJob.objects.filter(pk=job.pk).update(
                status=ExportJob.Status.DONE, file=job.file.name, size=size, rows_done=result.respondent_count,
                rows_total=result.respondent_count, finished_at=now,
                expires_at=now + timedelta(days=settings.EXPORT_RETENTION_DAYS))
    except Exception as error:  # the reason goes to the person's page; the trace to the log
        logger.exception("export %s failed", job.pk)
        if job.file:
            job.file.delete(save=False)
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error=_reason(error),
                                                   finished_at=timezone.now())
    job.refresh_from_db()
    return job


def export_jobs(*, scope: Scope) -> QuerySet[ExportJob]:
    """The exports a staff member asked for (only theirs), newest first."""
    return ExportJob.objects.filter(requested_by_id=scope.user_id).select_related("survey").order_by("-created_at")


def export_job_file(*, scope: Scope, job: ExportJob) -> FieldFile:
    """The stored file of ``job`` for its requester to download, audited; raise PermissionDenied for anyone
    else, ExportJob.DoesNotExist when it is not ready or has expired."""
    if job.requested_by_id != scope.user_id:
        raise PermissionDenied("only the person who asked for an export downloads it")
    if job.status != ExportJob.Status.DONE or (job.expires_at and job.expires_at <= timezone.now()):
        raise ExportJob.DoesNotExist(f"export {job.pk} is {job.get_status_display().lower()}")
    audit_record(scope=scope, action=Action.EXPORT_DOWNLOADED, survey=job.survey,
                 detail=f"{job.get_format_display()} (export {job.pk}, {job.rows_done} respondents)")
    return job.file


def export_jobs_expire(*, now: datetime | None = None) -> int:
    """Delete the files of exports past their expiry from storage and mark them expired; return how many."""
    now = now or timezone.now()
    count = 0
    for job in ExportJob.objects.filter(status=ExportJob.Status.DONE, expires_at__lte=now):
        if job.file:
            job.file.delete(save=False)
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.EXPIRED, file="")
        count += 1
    return count


def _reason(error: BaseException) -> str:
    return (str(error) or error.__class__.__name__)[:2000]
