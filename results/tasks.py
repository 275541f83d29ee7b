"""Celery tasks of results."""
from celery import shared_task

from infra.db_router import read_from_master, replica_alias
from results.aggregates import answer_counts_refresh_open


@shared_task(name="results.tasks.answer_counts_refresh_task")
def answer_counts_refresh_task() -> None:
    """Rebuild the answer counts of every open survey from a replica (celery beat, every RESULTS_REFRESH_SECONDS)."""
    with read_from_master():  # the list of surveys; the counts come from the replica
        answer_counts_refresh_open(using=replica_alias())
