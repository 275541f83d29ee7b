"""Celery tasks of the staff area: thin, they take ids and call a service (in-process on the embedded default)."""
from celery import shared_task

from config.db_router import read_from_master, replica_alias
from respondents.export_jobs import export_job_run, export_jobs_expire
from respondents.monitoring import completion_summaries_refresh
from respondents.rosters import roster_apply, roster_check
from respondents.slips import slips_job_run


@shared_task(acks_late=True)
def roster_check_task(roster_id):
    """Check an uploaded roster (the dry run). Reads the master: the roster was written a moment ago."""
    with read_from_master():
        roster_check(roster_id=roster_id)


@shared_task(acks_late=True)
def roster_apply_task(roster_id):
    """Apply a roster its uploader confirmed."""
    with read_from_master():
        roster_apply(roster_id=roster_id)


@shared_task(acks_late=True)
def slips_job_task(job_id, login_url):
    """Render a big school's code slips."""
    with read_from_master():
        slips_job_run(job_id=job_id, login_url=login_url)


@shared_task
def completion_summaries_refresh_task():
    """Rebuild the completion summary of every open survey from a replica (celery beat, every minute)."""
    with read_from_master():  # the list of surveys; the counts come from the replica
        completion_summaries_refresh(using=replica_alias())


@shared_task(acks_late=True)
def export_job_task(job_id):
    """Write an export a staff member asked for: the job row from the master, the answers from a replica."""
    with read_from_master():
        export_job_run(job_id=job_id, using=replica_alias())


@shared_task
def export_jobs_expire_task():
    """Delete exports past EXPORT_RETENTION_DAYS from storage (celery beat, hourly)."""
    with read_from_master():
        export_jobs_expire()
