"""Celery finds every task by the name it was queued under: the tasks that moved out of respondents/ keep their
old names, so that a task queued by the release before the move still runs on the new workers."""
from django.conf import settings

from config.celery import app

# What a worker does when it starts: import every installed app's tasks module (autodiscovery).
app.loader.import_default_modules()

MOVED = ["respondents.tasks.roster_check_task", "respondents.tasks.roster_apply_task",
         "respondents.tasks.slips_job_task", "respondents.tasks.completion_summaries_refresh_task",
         "respondents.tasks.export_job_task", "respondents.tasks.export_jobs_expire_task"]


def test_the_tasks_that_moved_apps_answer_to_their_old_names():
    registered = set(app.tasks)
    assert set(MOVED) <= registered, sorted(set(MOVED) - registered)
    assert app.tasks["respondents.tasks.roster_check_task"].__module__ == "rosters.tasks"


def test_every_task_of_the_beat_schedule_is_registered():
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled and scheduled <= set(app.tasks)
