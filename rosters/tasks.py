"""Celery tasks of rosters and slips: thin, they take ids and call a service. Their names are the ones they had
in ``respondents.tasks``, so that a queued task survives the release that moved them."""
from celery import shared_task

from infra.db_router import read_from_master
from rosters.importing import roster_apply, roster_check
from rosters.slips import slips_job_run


@shared_task(name="respondents.tasks.roster_check_task", acks_late=True)
def roster_check_task(roster_id: int) -> None:
    """Check an uploaded roster (the dry run). Reads the master: the roster was written a moment ago."""
    with read_from_master():
        roster_check(roster_id=roster_id)


@shared_task(name="respondents.tasks.roster_apply_task", acks_late=True)
def roster_apply_task(roster_id: int) -> None:
    """Apply a roster its uploader confirmed."""
    with read_from_master():
        roster_apply(roster_id=roster_id)


@shared_task(name="respondents.tasks.slips_job_task", acks_late=True)
def slips_job_task(job_id: int, login_url: str) -> None:
    """Render a big school's code slips."""
    with read_from_master():
        slips_job_run(job_id=job_id, login_url=login_url)


