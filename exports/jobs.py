"""Response exports staff ask for: recorded and audited, written by Celery from a replica, kept in storage, expired.

Read next: ``docs/architecture.md``, "Response exports" (*Jobs*); who may export and download:
``docs/operations.md``, "Exports from the staff area".
"""
import logging
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.files import File
from django.db import connection, transaction
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import Scope, staff_scope
from exports.filters import NO_FILTER, ExportFilter, export_filter_apply, export_filter_check
from exports.models import ExportJob
from exports.options import ExportOptions
from exports.writers import export_write, export_zip
from surveys.models import Survey

logger = logging.getLogger(__name__)


# Roster fields only a scope that may see codes gets (analysts never see who is who by name).
NAMED_FIELDS = frozenset({"display_name"})


def export_options_for(*, scope: Scope, options: ExportOptions) -> ExportOptions:
    """``options`` as ``scope`` may have them: without names for a scope that may not see codes."""
    if scope.can_see_codes:
        return options
    return replace(options, roster_fields=tuple(f for f in options.roster_fields if f not in NAMED_FIELDS))


def export_respondents_count(*, scope: Scope, survey: Survey, export_filter: ExportFilter = NO_FILTER,
                             deidentified: bool = False) -> int:
    """How many respondents an export of ``survey`` by ``scope`` with ``export_filter`` holds (one COUNT): the
    respondents of the scope the filter keeps, without the withdrawn when ``deidentified`` (the export then also
    leaves out the schools under ``EXPORT_SMALL_SCHOOL_MIN``, which this count does not)."""
    scope.require("can_export")
    respondents = scope.respondents(survey)
    if deidentified:
        respondents = respondents.filter(withdrawn_at=None)
    return export_filter_apply(respondents, export_filter).count()


def export_job_start(*, scope: Scope, survey: Survey, format: str, options: ExportOptions,
                     export_filter: ExportFilter = NO_FILTER) -> ExportJob:
    """Queue an export of ``survey`` in ``format`` with ``options`` (ExportOptions) of the respondents
    ``export_filter`` keeps for Celery, audited; return the ExportJob (the caller queues its task). Raise
    ExportFilterError for a filter the scope may not use (exports/filters.py)."""
    scope.require("can_export")
    if format not in ExportJob.Format.values:
        raise ValueError(f"Unknown export format '{format}': one of {', '.join(ExportJob.Format.values)}.")
    options = export_options_for(scope=scope, options=options)
    export_filter_check(scope=scope, export_filter=export_filter, deidentified=options.deidentified)
    with transaction.atomic(durable=True):
        job = ExportJob.objects.create(
            survey=survey, requested_by_id=scope.requester_id(), requested_from=scope.address, format=format,
            options=asdict(options), filter=export_filter.as_dict(),
            rows_total=export_respondents_count(scope=scope, survey=survey, export_filter=export_filter,
                                                deidentified=options.deidentified))
        audit_record(scope=scope, action=Action.EXPORT_REQUESTED, survey=survey,
                     detail=f"{job.get_format_display()}: {options.describe()}; filter: {export_filter.describe()} "
                            f"[{export_filter.as_options() or 'none'}] (export {job.pk}, {job.rows_total} "
                            f"respondents)")
    return job


def export_job_run(*, job_id: int, using: str | None = None) -> ExportJob:
    """Write a queued ExportJob's files from database ``using`` (a replica), ZIP them into storage, and mark it
    done (or failed, with the reason); return the job."""
    job = ExportJob.objects.select_related("survey", "requested_by").get(pk=job_id)
    if job.status != ExportJob.Status.QUEUED:
        return job
    # Taken from QUEUED only: a second delivery of the task (the broker's, after a worker it thought dead) finds
    # the job running, or finished, and leaves it.
    if not ExportJob.objects.filter(pk=job.pk, status=ExportJob.Status.QUEUED).update(
            status=ExportJob.Status.RUNNING, heartbeat_at=timezone.now()):
        job.refresh_from_db()
        return job
    with _heartbeat(job.pk):
        _export_job_write(job, using)
    job.refresh_from_db()
    return job


@contextmanager
def _heartbeat(job_id: int) -> Iterator[None]:
    """While the block runs, a thread marks the job alive every EXPORT_HEARTBEAT_SECONDS (on a connection of its
    own): the progress callback alone would fall silent while the ZIP is made or sent to storage."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.EXPORT_HEARTBEAT_SECONDS):
                ExportJob.objects.filter(pk=job_id, status=ExportJob.Status.RUNNING).update(
                    heartbeat_at=timezone.now())
        except Exception:  # a database away for a moment: the next beat, or the sweep, tells
            logger.warning("export %s: heartbeat not written", job_id, exc_info=True)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"export-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _export_job_write(job: ExportJob, using: str | None) -> None:
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
        # Checked again: a school taken out of the scope since is refused, never exported nor left out silently.
        export_filter_check(scope=scope, export_filter=job.export_filter, deidentified=options.deidentified)
        with tempfile.TemporaryDirectory(prefix="export-") as scratch:
            folder = Path(scratch) / "files"
            folder.mkdir()
            result = export_write(survey=job.survey, format=job.format, options=options, directory=folder,
                                  using=using, school_ids=scope.school_ids, export_filter=job.export_filter,
                                  progress=progress)
            bundle = Path(scratch) / f"{job.survey.slug}-{job.format}.zip"
            export_zip(files=result.files, path=bundle)
            with open(bundle, "rb") as stream:
                job.file.save(bundle.name, File(stream), save=False)
            size = bundle.stat().st_size
        now = timezone.now()
        with transaction.atomic(durable=True):
            finished = ExportJob.objects.filter(pk=job.pk, status=ExportJob.Status.RUNNING).update(
                status=ExportJob.Status.DONE, file=job.file.name, size=size, rows_done=result.respondent_count,
                rows_total=result.respondent_count, finished_at=now,
                expires_at=now + timedelta(days=settings.EXPORT_RETENTION_DAYS))
        if not finished:  # swept meanwhile (its heartbeat could not be written): the person asks again
            job.file.delete(save=False)
    except Exception as error:  # the reason goes to the person's page; the trace to the log
        logger.exception("export %s failed", job.pk)
        if job.file:
            job.file.delete(save=False)
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error=_reason(error),
                                                   finished_at=timezone.now())


# What the person who asked reads when the machine writing their export went away.
WORKER_GONE = "The export stopped: the machine writing it went away. Ask for it again."


def export_jobs_sweep(*, now: datetime | None = None) -> int:
    """Fail every running export whose heartbeat is older than EXPORT_STALE_SECONDS (its worker is gone); return
    how many. The job has no file (one is named only when it is done), so nothing half-written is ever offered."""
    now = now or timezone.now()
    stale = ExportJob.objects.filter(status=ExportJob.Status.RUNNING,
                                     heartbeat_at__lt=now - timedelta(seconds=settings.EXPORT_STALE_SECONDS))
    failed = stale.update(status=ExportJob.Status.FAILED, error=WORKER_GONE, finished_at=now, file="")
    if failed:
        logger.warning("%s running exports had lost their worker: failed", failed)
    return failed


def export_jobs(*, scope: Scope) -> QuerySet[ExportJob]:
    """The exports a staff member asked for (only theirs), newest first."""
    return (ExportJob.objects.filter(requested_by_id=scope.user_id).select_related("survey")
            .order_by("-created_at", "-pk"))


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
