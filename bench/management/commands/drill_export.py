"""An export for the lab drill (bench/lab_drill.py): asked for as the staff area does, then watched.

    manage.py drill_export start --survey SLUG [--format xlsx]   queue an export (CSV unless told) as the drill's
                                                                 state administrator; prints its id
    manage.py drill_export check --job ID          one line of JSON: finished, status, error, file, whole_file
"""
import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import StaffMember
from accounts.scopes import staff_scope
from exports.jobs import export_job_start
from exports.models import ExportJob
from exports.options import ExportOptions
from exports.tasks import export_job_task
from infra.db_router import read_from_master
from surveys.models import Survey

DRILL_ADMIN = "lab-drill-exports"
FINISHED = {ExportJob.Status.DONE, ExportJob.Status.FAILED, ExportJob.Status.EXPIRED}


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "check"])
        parser.add_argument("--survey", help="start: the survey's slug")
        parser.add_argument("--job", type=int, help="check: the export's id")
        parser.add_argument("--format", default="csv", choices=ExportJob.Format.values, help="start: the format")

    def handle(self, *, action: str, survey: str | None = None, job: int | None = None, format: str = "csv",
               **options: Any) -> None:
        with read_from_master():
            if action == "start":
                self.stdout.write(str(self.start_export(survey, format)))
            else:
                self.stdout.write(json.dumps(self.check_export(job)))

    def start_export(self, slug: str | None, format: str) -> int:
        target = Survey.objects.filter(slug=slug or "").first()
        if target is None:
            raise CommandError(f"No survey with the slug '{slug}'.")
        user, _ = get_user_model().objects.get_or_create(username=DRILL_ADMIN)
        StaffMember.objects.get_or_create(user=user, defaults={"role": StaffMember.Role.STATE_ADMIN})
        job = export_job_start(scope=staff_scope(user=user, address="127.0.0.1"), survey=target, format=format,
                               options=ExportOptions())
        export_job_task.delay(job.pk)
        return job.pk

    def check_export(self, job_id: int | None) -> dict[str, object]:
        job = ExportJob.objects.filter(pk=job_id or 0).first()
        if job is None:
            raise CommandError(f"No export {job_id}.")
        whole = False
        name = job.file.name  # a FieldFile is true when it names a file
        if name:
            # Offered for download only whole: the stored object has the size the job recorded.
            whole = default_storage.exists(name) and default_storage.size(name) == job.size > 0
        return {"job": job.pk, "finished": job.status in FINISHED, "status": job.status, "error": job.error,
                "file": job.file.name or "", "whole_file": whole, "rows": job.rows_done}
