"""Response exports staff asked for, and their files."""
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from exports.filters import ExportFilter
from infra.jobs import JobProgress
from surveys.models import Survey


class ExportJob(JobProgress, models.Model):
    """A response export a staff member asked for, written by Celery from a replica with progress; its ZIP is kept
    in storage (S3 on the stack) for its requester until ``expires_at``, then deleted (``exports/jobs.py``)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting to start")
        RUNNING = "running", _("Exporting")
        DONE = "done", _("Ready to download")
        FAILED = "failed", _("Failed")
        EXPIRED = "expired", _("Expired (deleted)")

    class Format(models.TextChoices):
        CSV = "csv", _("CSV")
        XLSX = "xlsx", _("Excel (XLSX)")
        SPSS = "spss", _("SPSS (.dat data and .sps syntax)")
        STATA = "stata", _("Stata (.dat data and .do file)")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    requested_from = models.CharField(max_length=45, blank=True)
    format = models.CharField(max_length=5, choices=Format.choices)
    options = models.JSONField(default=dict, blank=True, help_text=_("ExportOptions as a dict."))
    filter = models.JSONField(default=dict, blank=True, help_text=_(
        "Which respondents: ExportFilter as a dict (exports/filters.py); empty for every respondent in scope."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    file = models.FileField(upload_to="exports/%Y/%m/", blank=True, max_length=300)
    size = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # While it runs, its worker says so every EXPORT_HEARTBEAT_SECONDS: a job that stopped saying so lost its
    # worker (a machine gone), and the sweep fails it cleanly (exports/jobs.py).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        db_table = "respondents_exportjob"  # the name it had in respondents: no table is rebuilt

    progress_counters = ("rows_done", "rows_total")

    def __str__(self) -> str:
        return f"export {self.survey_id} {self.format} ({self.status})"

    @property
    def export_filter(self) -> ExportFilter:
        return ExportFilter.from_dict(self.filter)


