"""Celery tasks of rosters: thin, they take ids and call a service (in-process on the embedded default)."""
from celery import shared_task

from config.db_router import read_from_master
from respondents.rosters import roster_apply, roster_check


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
