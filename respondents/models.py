"""Rosters, respondents and their answers.

``Answer`` is the table that grows: one row per respondent and answerable
question (about 300 per respondent, 600 million for a state-wide survey), so it
holds only what a page save must write and is keyed for that write.
"""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from respondents import access_codes
from surveys.models import Question, Survey


class District(models.Model):
    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["code"]

    def __str__(self):
        return f"{self.name} ({self.code})"


class School(models.Model):
    """A school of the directory (``manage.py import_schools``); codes are the state's own, unique in the state."""

    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="schools")

    class Meta:
        ordering = ["code"]

    def __str__(self):
        return f"{self.name} ({self.code})"


class DirectoryUpload(models.Model):
    """A school directory file a state administrator uploaded: checked first (its rows, counts and problems kept
    here; a directory is a few thousand rows), applied or discarded on confirmation (``respondents/schools.py``)."""

    class Status(models.TextChoices):
        CHECKED = "checked", _("Checked: ready to apply")
        REFUSED = "refused", _("Not applied: the file has problems")
        APPLIED = "applied", _("Applied")
        DISCARDED = "discarded", _("Discarded: not applied")

    created_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    uploaded_from = models.CharField(max_length=45, blank=True)
    source_filename = models.CharField(max_length=255, blank=True)
    described = models.CharField(max_length=40, blank=True, help_text=_("The file as read: CSV (UTF-8), XLSX."))
    status = models.CharField(max_length=10, choices=Status.choices)
    # {district code: name} and {school code: {"name", "district"}}: what applying writes.
    district_rows = models.JSONField(default=dict, blank=True)
    school_rows = models.JSONField(default=dict, blank=True)
    # {"districts": {"new", "updated", "unchanged"}, "schools": {...}} against the directory when last checked.
    counts = models.JSONField(default=dict, blank=True)
    # [[row, column, value, reason], ...]
    problem_list = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.source_filename or 'directory'} ({self.get_status_display()})"

    @property
    def applied(self):
        return self.status == self.Status.APPLIED


class Roster(models.Model):
    """One roster file a coordinator uploaded for a survey, and its import: checked first (a dry run), applied on
    confirmation (``respondents/rosters.py``). Rosters made in code (demo, load tests) are applied at once."""

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
        ordering = ["survey_id", "created_at"]

    def __str__(self):
        return self.name

    @property
    def is_running(self):
        """A task is checking or applying it (the page shows a progress bar and polls)."""
        return self.status in {self.Status.CHECKING, self.Status.APPLYING}

    @property
    def progress_percent(self):
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
        indexes = [models.Index(fields=["roster", "external_id"], name="roster_row_external_id")]

    def __str__(self):
        return f"{self.roster_id} row {self.row}: {self.external_id}"


class RosterProblem(models.Model):
    """What is wrong with one cell or row of an uploaded roster: row, column, value and reason."""

    roster = models.ForeignKey(Roster, on_delete=models.CASCADE, related_name="problems", db_index=False)
    row = models.PositiveIntegerField()
    column = models.CharField(max_length=40, blank=True)
    value = models.CharField(max_length=200, blank=True)
    reason = models.CharField(max_length=300)

    class Meta:
        ordering = ["roster_id", "row", "id"]
        indexes = [models.Index(fields=["roster", "row"], name="roster_problem_row")]

    def __str__(self):
        return f"row {self.row}, {self.column}: {self.reason}"


class Respondent(models.Model):
    class Status(models.TextChoices):
        NOT_STARTED = "not_started", _("Not started")
        IN_PROGRESS = "in_progress", _("In progress")
        COMPLETED = "completed", _("Completed")

    class Role(models.TextChoices):
        STUDENT = "student", _("Student")
        TEACHER = "teacher", _("Teacher")
        PARENT = "parent", _("Parent")
        STAFF = "staff", _("Staff")

    survey = models.ForeignKey(Survey, on_delete=models.PROTECT, related_name="respondents")
    roster = models.ForeignKey(Roster, on_delete=models.SET_NULL, null=True, blank=True, related_name="respondents")
    external_id = models.CharField(max_length=100, blank=True, help_text=_("The roster's own id for this person."))
    # Unique across all surveys, so that the code alone finds the respondent.
    access_code = models.CharField(max_length=access_codes.LENGTH, unique=True, editable=False)
    school = models.ForeignKey(School, on_delete=models.PROTECT, null=True, blank=True, related_name="respondents")
    grade = models.CharField(max_length=20, blank=True)
    role = models.CharField(max_length=10, choices=Role.choices, blank=True)
    language = models.CharField(max_length=10, default="en")
    # Printed on slips only: never exported with answers, purged when the survey closes.
    display_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.NOT_STARTED)
    current_page = models.PositiveSmallIntegerField(default=1)
    started_at = models.DateTimeField(null=True, blank=True)
    last_saved_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Withdrawn by a coordinator (left the school, listed by mistake): cannot log in, counted apart; restorable.
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["survey_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "external_id"], condition=~Q(external_id=""),
                name="respondent_external_id_unique_in_survey",
            ),
            models.CheckConstraint(condition=Q(current_page__gte=1), name="respondent_current_page_from_one"),
        ]
        indexes = [models.Index(fields=["survey", "status"], name="respondent_survey_status")]

    def __str__(self):
        return self.external_id or access_codes.format_code(self.access_code)

    def save(self, *args, **kwargs):
        if not self.access_code:
            self.access_code = access_codes.generate()
        super().save(*args, **kwargs)

    @property
    def is_completed(self):
        return self.status == self.Status.COMPLETED

    @property
    def is_withdrawn(self):
        return self.withdrawn_at is not None

    @property
    def formatted_access_code(self):
        return access_codes.format_code(self.access_code)


class Nav(models.TextChoices):
    """Where a page save moves the respondent: the survey form's ``nav`` button."""

    BACK = "back", _("Back")
    NEXT = "next", _("Next")
    FINISH = "finish", _("Finish")


class PageSave(models.Model):
    """One page save that was applied: the audit trail of a response, and the memory of its save ids.

    Append-only: a row is written in the same transaction as the answers it
    records and never changed. Every ``save_id`` a respondent has used stays
    here for the life of the response, so a replay of it, however late (a
    second tab, a proxy's retry, a phone waking up), saves nothing and is
    answered as the first save was (``next_page``, ``completed``).
    """

    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="page_saves", db_index=False)
    save_id = models.UUIDField()
    page = models.PositiveSmallIntegerField()
    nav = models.CharField(max_length=6, choices=Nav.choices)
    next_page = models.PositiveSmallIntegerField()
    completed = models.BooleanField(default=False, help_text=_("This save completed the response."))
    answer_count = models.PositiveSmallIntegerField()
    saved_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Also the index that finds a respondent's saves (the audit trail).
            models.UniqueConstraint(fields=["respondent", "save_id"], name="page_save_once_per_save_id"),
        ]

    def __str__(self):
        return f"{self.respondent_id} page {self.page} ({self.nav}) at {self.saved_at:%Y-%m-%d %H:%M:%S}"


class Answer(models.Model):
    """One respondent's answer to one question.

    ``value`` is text: the choice value for single choice, the chosen values
    separated by single spaces in choice order for multiple choice, the decimal
    number for integer, ISO 8601 for a date, and for text the text, trimmed of
    surrounding white space.
    An empty value is a question the respondent saw and left blank.
    """

    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="answers", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="answers")
    value = models.TextField(blank=True)
    saved_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Also the index every read of a respondent's answers uses.
            models.UniqueConstraint(fields=["respondent", "question"], name="answer_one_per_question"),
        ]

    def __str__(self):
        return f"{self.respondent_id}/{self.question_id}={self.value!r}"


class JobProgress:
    """``is_running`` and ``progress_percent`` of a background job with ``status`` (QUEUED, RUNNING, DONE, ...)
    and the two counters ``progress_counters`` names: (done, total)."""

    progress_counters = ("done", "total")

    @property
    def is_running(self):
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}

    @property
    def progress_percent(self):
        if self.status == self.Status.DONE:
            return 100
        done, total = (getattr(self, name) for name in self.progress_counters)
        return min(99, 100 * done // total) if total else 0

    @property
    def progress_done(self):
        return getattr(self, self.progress_counters[0])

    @property
    def progress_total(self):
        return getattr(self, self.progress_counters[1])


class SlipsJob(JobProgress, models.Model):
    """Code slips of a big school, rendered by Celery with progress; the PDF is kept for its requester."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting to start")
        RUNNING = "running", _("Printing")
        DONE = "done", _("Ready to download")
        FAILED = "failed", _("Failed")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="+")
    grade = models.CharField(max_length=20, null=True, blank=True, help_text=_("None: the whole school."))
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    requested_from = models.CharField(max_length=45, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    slips_total = models.PositiveIntegerField(default=0)
    slips_done = models.PositiveIntegerField(default=0)
    file = models.FileField(upload_to="slips/%Y/%m/", blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    progress_counters = ("slips_done", "slips_total")

    def __str__(self):
        return f"slips {self.school_id} {self.grade or 'all'} ({self.status})"


class ExportJob(JobProgress, models.Model):
    """A response export a staff member asked for, written by Celery from a replica with progress; its ZIP is kept
    in storage (S3 on the stack) for its requester until ``expires_at``, then deleted (``respondents/export_jobs.py``)."""

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
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    file = models.FileField(upload_to="exports/%Y/%m/", blank=True, max_length=300)
    size = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    progress_counters = ("rows_done", "rows_total")

    def __str__(self):
        return f"export {self.survey_id} {self.format} ({self.status})"


class CompletionSummary(models.Model):
    """Completion counts of one survey at one level (the state, a district, a school, a school's grade and role),
    aggregated off the save path.

    A periodic task (``respondents/monitoring.py``) rebuilds a survey's rows
    from the replica; the monitoring pages read only these, and only the rows
    of the level they show (a few hundred at most, whatever the survey's
    size). ``pages`` is the histogram of the page in-progress respondents sit
    on ({page: count}); ``completions`` (state, district and school rows) the
    completions per hour ({"2026-11-23T14:00:00+00:00": count}, UTC).
    """

    class Level(models.TextChoices):
        STATE = "state", _("State")
        DISTRICT = "district", _("District")
        SCHOOL = "school", _("School")
        GROUP = "group", _("Grade and role")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+", db_index=False)
    level = models.CharField(max_length=10, choices=Level.choices, default=Level.GROUP)
    district = models.ForeignKey(District, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    school = models.ForeignKey(School, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    grade = models.CharField(max_length=20, blank=True)
    role = models.CharField(max_length=10, blank=True)
    rostered = models.PositiveIntegerField(default=0, help_text=_("Not withdrawn."))
    withdrawn = models.PositiveIntegerField(default=0)
    not_started = models.PositiveIntegerField(default=0)
    in_progress = models.PositiveIntegerField(default=0)
    completed = models.PositiveIntegerField(default=0)
    pages = models.JSONField(default=dict, blank=True)
    completions = models.JSONField(default=dict, blank=True)
    last_activity = models.DateTimeField(null=True, blank=True)
    refreshed_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["survey", "level", "district", "school"], name="completion_summary_level")]

    def __str__(self):
        return f"{self.survey_id}/{self.level}/{self.district_id}/{self.school_id}/{self.grade}/{self.role}: " \
               f"{self.completed}/{self.rostered}"


class StaffMember(models.Model):
    """A staff account's role, and the districts or schools it covers (``respondents/scopes.py`` reads it)."""

    class Role(models.TextChoices):
        STATE_ADMIN = "state_admin", _("State administrator")
        DISTRICT_COORDINATOR = "district", _("District coordinator")
        SCHOOL_COORDINATOR = "school", _("School coordinator")
        ANALYST = "analyst", _("Analyst")

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_member")
    role = models.CharField(max_length=12, choices=Role.choices)
    districts = models.ManyToManyField(District, blank=True, related_name="+")
    schools = models.ManyToManyField(School, blank=True, related_name="+")

    def __str__(self):
        return f"{self.user} ({self.get_role_display()})"


class AuditLogIsAppendOnly(Exception):
    """An attempt to change or delete an audit entry."""


class AuditQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never changed")

    def delete(self):
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never deleted")


class AuditEntry(models.Model):
    """One staff action: who, when, what, which survey and school, from which address.

    Append-only. Nothing in the app changes or deletes an entry: the model and
    its queryset refuse, the admin shows it read-only, and on PostgreSQL a
    trigger refuses UPDATE and DELETE (migration 0005). The references keep no
    foreign-key constraint, so that deleting a user or a survey never has to
    touch the log; ``username`` keeps the name as it was.
    """

    class Action(models.TextChoices):
        SIGN_IN = "sign_in", _("Signed in")
        SIGN_IN_FAILED = "sign_in_failed", _("Sign-in failed")
        SIGN_OUT = "sign_out", _("Signed out")
        SCHOOLS_IMPORTED = "schools_imported", _("School directory imported")
        ROSTER_CHECKED = "roster_checked", _("Roster checked (dry run)")
        ROSTER_APPLIED = "roster_applied", _("Roster applied")
        SLIPS_PRINTED = "slips_printed", _("Code slips printed")
        CODES_DOWNLOADED = "codes_downloaded", _("Codes downloaded")
        CODE_REISSUED = "code_reissued", _("Code reissued")
        RESPONDENT_WITHDRAWN = "withdrawn", _("Respondent withdrawn")
        RESPONDENT_RESTORED = "restored", _("Respondent restored")
        STAFF_CHANGED = "staff_changed", _("Staff account changed")
        EXPORT_REQUESTED = "export_requested", _("Export requested")
        EXPORT_DOWNLOADED = "export_downloaded", _("Export downloaded")
        SURVEY_LOADED = "survey_loaded", _("Survey loaded")
        SURVEY_REVISED = "survey_revised", _("Survey given a new version")
        SURVEY_PUBLISHED = "survey_published", _("Survey published")
        ROSTER_DISCARDED = "roster_discarded", _("Roster discarded")
        CODES_SHOWN = "codes_shown", _("Codes shown on a page")
        ADMIN_CHANGED = "admin_changed", _("Changed in /admin/")
        SURVEY_DATES_CHANGED = "survey_dates", _("Survey opening or closing time changed")

    at = models.DateTimeField(db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False,
                             null=True, blank=True, related_name="+")
    username = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    survey = models.ForeignKey(Survey, on_delete=models.DO_NOTHING, db_constraint=False, null=True, blank=True,
                               related_name="+")
    school = models.ForeignKey(School, on_delete=models.DO_NOTHING, db_constraint=False, null=True, blank=True,
                               related_name="+")
    address = models.CharField(max_length=45, blank=True)
    detail = models.TextField(blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.username or '-'} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditLogIsAppendOnly("the audit log is append-only: entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never deleted")
