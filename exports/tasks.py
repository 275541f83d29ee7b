"""Celery tasks of exports (named as they were in ``respondents.tasks``; the beat schedule names them)."""
from celery import shared_task

from exports.jobs import export_job_run, export_jobs_expire, export_jobs_sweep
from infra.db_router import read_from_master, replica_alias


@shared_task(name="respondents.tasks.export_job_task", acks_late=True)
def export_job_task(job_id: int) -> None:
    """Write an export a staff member asked for: the job row from the master, the answers from a replica."""
    with read_from_master():
        export_job_run(job_id=job_id, using=replica_alias())


@shared_task(name="respondents.tasks.export_jobs_expire_task")
def export_jobs_expire_task() -> None:
    """Delete exports past EXPORT_RETENTION_DAYS from storage (celery beat, hourly)."""
    with read_from_master():
        export_jobs_expire()




@shared_task(name="respondents.tasks.export_jobs_sweep_task")
def export_jobs_sweep_task() -> None:
    """Fail the exports whose worker went away (celery beat, every 30 s)."""
    with read_from_master():
        export_jobs_sweep()
