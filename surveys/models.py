"""Survey definitions: Survey, Page, Question, Choice, cached through django-cache-machine (``Model.cached``).

Read next: ``docs/architecture.md``, "Data model", "Languages" and "Caching rules"; the rules they store:
``surveys/rules.py``.
"""
import datetime
from collections.abc import Mapping
from typing import Protocol

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from surveys.caching import CachingMixin, DefinitionManager
from surveys.languages import is_language

question_code_validator = RegexValidator(
    r"^[A-Za-z][A-Za-z0-9_]{0,63}$",
    _("A code starts with a letter and holds only letters, digits and underscores."),
)
# Choice values are stored space-separated for multiple choice (as ODK does for
# select_multiple), so a value may not contain white space.
choice_value_validator = RegexValidator(
    r"^[A-Za-z0-9_.\-]{1,64}$",
    _("A choice value holds only letters, digits, '_', '.' and '-'."),
)


class TranslatedRow(Protocol):
    """A definition row, or a frozen copy of one: its texts as attributes, the other languages' in ``translations``."""

    @property
    def translations(self) -> Mapping[str, Mapping[str, str]]: ...


def translated_text(row: TranslatedRow, field: str, language: str | None = None) -> str:
    """Return ``row``'s text of ``field`` in ``language`` (default: the active one), else in the first language.

    ``row`` is a definition row or a frozen copy of one (``surveys.selectors``): its ``translations`` hold
    ``{language: {field: text}}`` for every language but the survey's first.
    """
    text = row.translations.get(language or get_language() or "", {}).get(field) if row.translations else None
    return text if text else getattr(row, field)


class Translated(models.Model):
    """A definition row whose texts may be given in several languages."""

    # {language: {field: text}} for every language but the survey's first.
    translations = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True

    def translated(self, field: str, language: str | None = None) -> str:
        """Return the text of ``field`` in ``language`` (default: the active one), else in the first language."""
        return translated_text(self, field, language)


def language_validator(value: object) -> None:
    """Accept a list of one or more language codes CLDR knows (``surveys.languages``): the site's interface
    speaks settings.LANGUAGES; a survey may be written in any language."""
    if not isinstance(value, list) or not value or not all(map(is_language, value)):
        raise ValidationError(_("A list of one or more language codes, written as Django writes them (en, es, "
                                "pt-br, zh-hans)."))


class Survey(CachingMixin, Translated, models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    intro = models.TextField(blank=True, help_text=_("Shown above the first page."))
    thank_you = models.TextField(blank=True, help_text=_("Shown on the completion page."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    # An XLSForm's own version (its settings sheet's), kept as written: ours counts revisions here.
    form_version = models.CharField(max_length=100, blank=True, help_text=_("The source form's own version."))
    # What loading the source noted without refusing it (columns ignored, how pages were made): the preview shows it.
    load_warnings = models.JSONField(default=list, blank=True)
    languages = models.JSONField(default=list, blank=True, validators=[language_validator],
                                 help_text=_("The languages the survey is offered in, its default first."))
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = models.Manager()
    cached = DefinitionManager()

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True) | Q(closes_at__isnull=True) | Q(closes_at__gt=models.F("opens_at")),
                name="survey_closes_after_it_opens",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        if self.status == self.Status.OPEN and not (self.pk and self.pages.exists()):
            raise ValidationError({"status": _(
                "A survey needs at least one page before it can be opened: save it as a draft, add pages, then open it."
            )})

    @property
    def default_language(self) -> str:
        return self.languages[0] if self.languages else settings.LANGUAGE_CODE

    def offers(self, language: str) -> bool:
        """Return whether respondents may take the survey in ``language``."""
        return language in (self.languages or [settings.LANGUAGE_CODE])

    def is_open(self, now: datetime.datetime | None = None) -> bool:
        """Return whether respondents may take the survey at ``now``."""
        now = now or timezone.now()
        if self.status != self.Status.OPEN:
            return False
        if self.opens_at and now < self.opens_at:
            return False
        if self.closes_at and now >= self.closes_at:
            return False
        return True


class Page(CachingMixin, Translated, models.Model):
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="pages")
    position = models.PositiveSmallIntegerField(help_text=_("Page number, from 1."))
    title = models.CharField(max_length=200, blank=True)
    intro = models.TextField(blank=True)
    show_if = models.JSONField(
        null=True, blank=True, help_text=_("A rule on earlier answers: the page is shown only when it holds."))

    objects = models.Manager()
    cached = DefinitionManager()

    class Meta:
        ordering = ["survey_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "position"], name="page_position_unique_in_survey"),
            models.CheckConstraint(condition=Q(position__gte=1), name="page_position_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug} page {self.position}"


class Question(CachingMixin, Translated, models.Model):
    class Kind(models.TextChoices):
        SINGLE = "single", _("Single choice")
        MULTIPLE = "multiple", _("Multiple choice")
        GRID = "grid", _("Grid (rows share one choice list)")
        SHORT_TEXT = "short_text", _("Short text")
        LONG_TEXT = "long_text", _("Long text")
        INTEGER = "integer", _("Integer")
        DECIMAL = "decimal", _("Decimal number")
        DATE = "date", _("Date")
        TIME = "time", _("Time of day")
        DATETIME = "datetime", _("Date and time")
        NOTE = "note", _("Note (text shown, nothing asked)")
        CALCULATE = "calculate", _("Calculation (computed from earlier answers)")

    CHOICE_KINDS = (Kind.SINGLE, Kind.MULTIPLE, Kind.GRID)
    # Kinds that take no answer: a grid's rows do; a note is only read.
    UNANSWERED_KINDS = (Kind.GRID, Kind.NOTE, Kind.CALCULATE)
    NUMBER_KINDS = (Kind.INTEGER, Kind.DECIMAL)
    DEFAULT_MAX_LENGTH: dict[str, int] = {Kind.SHORT_TEXT: 255, Kind.LONG_TEXT: 5000}

    # Denormalised from page.survey so that codes are unique per survey and the
    # whole survey's questions can be read with one indexed query.
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="questions")
    # A grid is a question whose rows are questions too: each row is answered
    # and exported under its own code, with the grid's choices.
    grid = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="rows",
        limit_choices_to={"kind": Kind.GRID},
    )
    position = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=64, validators=[question_code_validator])
    kind = models.CharField(max_length=12, choices=Kind.choices)
    prompt = models.TextField()
    help_text = models.TextField(blank=True)
    required = models.BooleanField(default=False)
    min_value = models.IntegerField(null=True, blank=True, help_text=_("Number questions only."))
    max_value = models.IntegerField(null=True, blank=True, help_text=_("Number questions only."))
    max_length = models.PositiveIntegerField(null=True, blank=True, help_text=_("Text questions only."))
    # Rules of surveys/rules.py, canonical JSON; a grid's show_if applies to its rows too.
    show_if = models.JSONField(
        null=True, blank=True, help_text=_("A rule on earlier answers: the question is asked only when it holds."))
    constraint = models.JSONField(
        null=True, blank=True, help_text=_("A rule the answer must keep ('.' is the answer itself)."))
    constraint_message = models.TextField(blank=True, help_text=_("Shown when the constraint does not hold."))
    required_message = models.TextField(blank=True, help_text=_("Shown when a required question is left blank."))
    # A calculation's expression (surveys/calculations.py, canonical JSON): computed, never answered.
    calculation = models.JSONField(null=True, blank=True)
    # Stored as an answer is ("cat dog" for a multiple choice); checked against the question when imported.
    default_value = models.TextField(blank=True, help_text=_("Shown filled in until the person answers."))

    objects = models.Manager()
    cached = DefinitionManager()

    class Meta:
        ordering = ["page_id", "grid_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "code"], name="question_code_unique_in_survey"),
            models.CheckConstraint(
                condition=Q(min_value__isnull=True) | Q(max_value__isnull=True) | Q(max_value__gte=models.F("min_value")),
                name="question_min_not_above_max",
            ),
        ]

    def __str__(self) -> str:
        return self.code

    def clean(self) -> None:
        if self.page_id and self.survey_id and self.page.survey_id != self.survey_id:
            raise ValidationError({"page": _("The page belongs to another survey.")})
        if self.grid_id and self.kind != self.Kind.SINGLE:
            raise ValidationError({"kind": _("A grid row is answered as a single choice.")})

    @property
    def is_answerable(self) -> bool:
        """Return whether the question takes an answer (a grid's rows do, the grid does not; a note or a
        calculation never)."""
        return self.kind not in self.UNANSWERED_KINDS

    @property
    def text_max_length(self) -> int | None:
        return self.max_length or self.DEFAULT_MAX_LENGTH.get(self.kind)


class Choice(CachingMixin, Translated, models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    position = models.PositiveSmallIntegerField()
    value = models.CharField(max_length=64, validators=[choice_value_validator], help_text=_("Stored and exported."))
    label = models.CharField(max_length=300)
    # A cascading select's: the rule on earlier answers under which the choice is offered (XLSForm's choice_filter,
    # compiled for the question this row belongs to).
    show_if = models.JSONField(null=True, blank=True)

    objects = models.Manager()
    cached = DefinitionManager()

    class Meta:
        ordering = ["question_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["question", "value"], name="choice_value_unique_in_question"),
        ]

    def __str__(self) -> str:
        return self.label
