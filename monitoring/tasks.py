"""Celery tasks of monitoring (named as they were in ``respondents.tasks``; the beat schedule names them)."""
from celery import shared_task

from infra.db_router import read_from_master, replica_alias
from monitoring.refresh import completion_summaries_refresh


@shared_task(name="respondents.tasks.completion_summaries_refresh_task")
def completion_summaries_refresh_task() -> None:
    """Rebuild the completion summary of every open survey from a replica (celery beat, every minute)."""
    with read_from_master():  # the list of surveys; the counts come from the replica
        completion_summaries_refresh(using=replica_alias())


