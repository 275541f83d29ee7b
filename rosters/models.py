"""Roster files and school directory files as uploaded, checked and applied, and the jobs that print slips."""
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from fileformats.checked_files import CheckedFile
from infra.jobs import JobProgress
from respondents import access_codes
from respondents.models import School
from surveys.models import Survey


class DirectoryUpload(CheckedFile):
    """A school directory file a state administrator uploaded: checked first (its rows, counts and problems kept
    here; a directory is a few thousand rows), applied or discarded on confirmation (``rosters/directory.py``)."""

    # {district code: name} and {school code: {"name", "district"}}: what applying writes; the counts are
    # {"districts": {"new", "updated", "unchanged"}, "schools": {...}}.
    district_rows = models.JSONField(default=dict, blank=True)
    school_rows = models.JSONField(default=dict, blank=True)

    class Meta(CheckedFile.Meta):
        db_table = "respondents_directoryupload"  # the name it had in respondents: no table is rebuilt

    def __str__(self) -> str:
        return f"{self.source_filename or 'directory'} ({self.get_status_display()})"


class Roster(models.Model):
    """One roster file a coordinator uploaded for a survey, and its import: checked first (a dry run), applied on
    confirmation (``rosters/importing.py``). Rosters made in code (demo, load tests) are applied at once."""

    class Status(models.TextChoices):
        CHECKING = "checking", _("Checking the file")
        CHECKED = "checked", _("Checked: ready to apply")
        REFUSED = "refused", _("Not applied: the file has problems")
        APPLYING = "applying", _("Applying")
        APPLIED = "applied", _("Applied")
        FAILED = "failed", _("Failed: nothing was applied")
        DISCARDED = "discarded", _("Discarded: not applied")

    survey = models.ForeignKey(Survey, on_delete=models.PROTECT, related_name="rosters")
    name = models.CharField(max_length=200)
    source_filename = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    uploaded_from = models.CharField(max_length=45, blank=True, help_text=_("The uploader's address, for the audit log."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.APPLIED)
    # The upload, kept until the roster is applied or refused.
    file = models.FileField(upload_to="rosters/%Y/%m/", blank=True)
    described = models.CharField(max_length=40, blank=True, help_text=_("The file as read: CSV (UTF-8), XLSX."))
    # The optional columns the file has: only those are compared and updated.
    columns = models.JSONField(default=list, blank=True)
    rows_expected = models.PositiveIntegerField(default=0)
    rows_read = models.PositiveIntegerField(default=0)
    problem_count = models.PositiveIntegerField(default=0)
    # [{"school": code, "role": role, "new": n, "updated": n, "unchanged": n, "errors": n}, ...]
    counts = models.JSONField(default=list, blank=True)
    # Why the whole file was refused (not CSV/XLSX, undecodable, a missing column...), or what failed.
    error = models.TextField(blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "respondents_roster"  # the name it had in respondents: no table is rebuilt
        ordering = ["survey_id", "created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_running(self) -> bool:
        """A task is checking or applying it (the page shows a progress bar and polls)."""
        return self.status in {self.Status.CHECKING, self.Status.APPLYING}

    @property
    def progress_percent(self) -> int:
        """How far the current step is, 0-100, for the progress bar."""
        if self.status == self.Status.CHECKING and self.rows_expected:
            return min(99, 100 * self.rows_read // self.rows_expected)
        return 0 if self.is_running else 100  # applying: one transaction, no steps to count


class RosterRow(models.Model):
    """A checked row of an uploaded roster, staged in the database between the dry run and the apply.

    Staging keeps memory flat whatever the file's size: the checks that need
    the whole file (an ``external_id`` twice, the counts, who is missing) and
    the upsert itself are SQL over this table. Rows of a roster go when a later
    roster of the same survey is applied.
    """

    roster = models.ForeignKey(Roster, on_delete=models.CASCADE, related_name="rows", db_index=False)
    row = models.PositiveIntegerField()
    external_id = models.CharField(max_length=100)
    school = models.ForeignKey(School, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    grade = models.CharField(max_length=20, blank=True)
    role = models.CharField(max_length=10, blank=True)
    language = models.CharField(max_length=10, blank=True)
    display_name = models.CharField(max_length=200, blank=True)
    # A fresh code drawn at check time, used only if the row is a new respondent.
    access_code = models.CharField(max_length=access_codes.LENGTH)

    class Meta:
        db_table = "respondents_rosterrow"  # the name it had in respondents: no table is rebuilt
        indexes = [models.Index(fields=["roster", "external_id"], name="roster_row_external_id")]

    def __str__(self) -> str:
        return f"{self.roster_id} row {self.row}: {self.external_id}"


class RosterProblem(models.Model):
    """What is wrong with one cell or row of an uploaded roster: row, column, value and reason."""

    roster = models.ForeignKey(Roster, on_delete=models.CASCADE, related_name="problems", db_index=False)
    row = models.PositiveIntegerField()
    column = models.CharField(max_length=40, blank=True)
    value = models.CharField(max_length=200, blank=True)
    reason = models.CharField(max_length=300)

    class Meta:
        db_table = "respondents_rosterproblem"  # the name it had in respondents: no table is rebuilt
        ordering = ["roster_id", "row", "id"]
        indexes = [models.Index(fields=["roster", "row"], name="roster_problem_row")]

    def __str__(self) -> str:
        return f"row {self.row}, {self.column}: {self.reason}"


class SlipsJob(JobProgress, models.Model):
    """Code slips of a big school (or of many people chosen in a search: ``respondent_ids``), rendered by Celery
    with progress; the PDF is kept for its requester."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting to start")
        RUNNING = "running", _("Printing")
        DONE = "done", _("Ready to download")
        FAILED = "failed", _("Failed")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="+", null=True, blank=True,
                               help_text=_("None: the people of respondent_ids, of any schools."))
    # None (the whole school) is not "" (a grade rosters wrote blank): DJ001's empty-string convention would merge them.
    grade = models.CharField(max_length=20, null=True, blank=True, help_text=_("None: the whole school."))  # noqa: DJ001
    # The people chosen in a search (staff/views/search.py), when the job is theirs rather than a school's.
    respondent_ids = models.JSONField(null=True, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    requested_from = models.CharField(max_length=45, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    slips_total = models.PositiveIntegerField(default=0)
    slips_done = models.PositiveIntegerField(default=0)
    file = models.FileField(upload_to="slips/%Y/%m/", blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "respondents_slipsjob"  # the name it had in respondents: no table is rebuilt

    progress_counters = ("slips_done", "slips_total")

    def __str__(self) -> str:
        if self.school_id is None:
            return f"slips of {len(self.respondent_ids or [])} people ({self.status})"
        return f"slips {self.school_id} {self.grade or 'all'} ({self.status})"


