"""Rosters, respondents and their answers.

``Answer`` is the table that grows: one row per respondent and answerable
question (about 300 per respondent, 600 million for a state-wide survey), so it
holds only what a page save must write and is keyed for that write.
"""
import math
from typing import Any

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from respondents import access_codes
from surveys.models import Question, Survey


def text_max_length(model: type[models.Model], name: str) -> int:
    """Return how many characters the CharField ``name`` of ``model`` holds (what an import or export checks)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.CharField) or field.max_length is None:
        raise TypeError(f"{model.__name__}.{name} is not a CharField with a max_length")
    return field.max_length


class District(models.Model):
    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class School(models.Model):
    """A school of the directory (``manage.py import_schools``); codes are the state's own, unique in the state."""

    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="schools")

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


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
    roster = models.ForeignKey("rosters.Roster", on_delete=models.SET_NULL, null=True, blank=True, related_name="respondents")
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
        # The staff search's indexes are PostgreSQL's only (migrations/0016_search_indexes.py), out of this state.
        indexes = [models.Index(fields=["survey", "status"], name="respondent_survey_status")]

    def __str__(self) -> str:
        return self.external_id or access_codes.format_code(self.access_code)

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.access_code:
            self.access_code = access_codes.generate()
        super().save(*args, **kwargs)

    @property
    def is_completed(self) -> bool:
        return self.status == self.Status.COMPLETED

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn_at is not None

    @property
    def formatted_access_code(self) -> str:
        return access_codes.format_code(self.access_code)


class Nav(models.TextChoices):
    """Where a page save moves the respondent: the survey form's ``nav`` button. ``LOGOUT`` (the header's "Save
    and log out") saves the page as a save that stays on it, then the session ends."""

    BACK = "back", _("Back")
    NEXT = "next", _("Next")
    FINISH = "finish", _("Finish")
    LOGOUT = "logout", _("Save and log out")


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

    def __str__(self) -> str:
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

    def __str__(self) -> str:
        return f"{self.respondent_id}/{self.question_id}={self.value!r}"



class LoginLimitHit(models.Model):
    """A client address whose codes that found nobody reached its ceiling in one window of the respondent login
    limits (``respondents/login_limits.py``): every login from it is refused until ``limited_until``. Written once
    per address and window; shown on the school pages of ``schools``, whose respondents logged in from it, where
    a coordinator may lift it."""

    address = models.CharField(max_length=45)
    limited_at = models.DateTimeField()
    limited_until = models.DateTimeField(help_text=_("The end of the window: the limit lifts by itself then."))
    failures = models.PositiveIntegerField(help_text=_("Codes that found nobody, in the window."))
    valid_logins = models.PositiveIntegerField(help_text=_("Respondents who logged in from the address in the window."))
    ceiling = models.PositiveIntegerField(help_text=_("The failed codes the address was allowed in the window."))
    schools = models.ManyToManyField(School, blank=True, related_name="login_limit_hits")
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-limited_at", "-id"]

    def __str__(self) -> str:
        return f"{self.address} limited at {self.limited_at:%Y-%m-%d %H:%M}"

    @property
    def is_active(self) -> bool:
        """Whether logins from the address are refused now."""
        return self.lifted_at is None and self.limited_until > timezone.now()

    @property
    def minutes_left(self) -> int:
        """How many minutes (rounded up) logins from the address stay refused; 0 once lifted or ended."""
        if not self.is_active:
            return 0
        return math.ceil((self.limited_until - timezone.now()).total_seconds() / 60)
