"""Answer counts by question, aggregated off the save path for the results pages."""
from django.db import models

from respondents.models import District, School
from surveys.models import Question, Survey


class AnswerCount(models.Model):
    """One figure of one selection of a survey's respondents, aggregated off the save path, and whether it is
    suppressed (``results/suppression.py``): for every viewer, as the whole state's solve decided it.

    ``results/aggregates.py`` rebuilds a survey's rows from the replica; the
    results page reads only these. A selection is a place (the state, a
    district, a school: ``level``) and within it a grade and a role, or every
    grade (``every_grade``) or every role (``every_role``). ``cell`` says what
    ``count`` counts: respondents who gave the choice (or whose number fell in
    the bin) ``value``; those who answered the question (ANSWERED); a number's
    mean (MEAN: ``count`` answered, ``total`` their answers added up); or the
    respondents (RESPONDENTS, no question; ``value`` a status, "" for all).
    Figures of respondents with no school, which nobody can select, are in the
    state's rows only.
    """

    class Level(models.TextChoices):
        STATE = "state", "State"
        DISTRICT = "district", "District"
        SCHOOL = "school", "School"

    class Cell(models.TextChoices):
        VALUE = "value", "A choice or a bin"
        ANSWERED = "answered", "Answered"
        MEAN = "mean", "Mean"
        RESPONDENTS = "respondents", "Respondents counted"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+", db_index=False)
    level = models.CharField(max_length=10, choices=Level.choices)
    district = models.ForeignKey(District, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 db_index=False)
    school = models.ForeignKey(School, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                               db_index=False)
    grade = models.CharField(max_length=20, blank=True)
    every_grade = models.BooleanField(default=False)
    role = models.CharField(max_length=10, blank=True)
    every_role = models.BooleanField(default=False)
    question = models.ForeignKey(Question, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 db_index=False)
    cell = models.CharField(max_length=12, choices=Cell.choices)
    # A choice's value, a bin's number (from 0), a respondent status; "" for ANSWERED, MEAN and all respondents.
    value = models.CharField(max_length=64, blank=True)
    count = models.PositiveIntegerField()
    total = models.FloatField(null=True, blank=True, help_text="A number question's answers added up (MEAN).")
    hidden = models.BooleanField(default=False, help_text="Suppressed: too few people, or it would give such a "
                                                          "figure away (results/suppression.py).")

    class Meta:
        indexes = [
            # Each level's reads: the state or a district, or a school, then a question.
            models.Index(fields=["survey", "level", "district", "question"], name="answer_count_district"),
            models.Index(fields=["survey", "level", "school", "question"], name="answer_count_school"),
        ]

    def __str__(self) -> str:
        grade = "*" if self.every_grade else self.grade
        role = "*" if self.every_role else self.role
        return f"{self.survey_id}/{self.level}/{self.school_id or self.district_id or ''}/{grade}/{role}/" \
               f"{self.question_id}/{self.cell}={self.value}: {self.count}{' (hidden)' if self.hidden else ''}"


class ResultsRefresh(models.Model):
    """When a survey's answer counts were last rebuilt, how long it took, and its number questions' bins."""

    survey = models.OneToOneField(Survey, on_delete=models.CASCADE, primary_key=True, related_name="+")
    refreshed_at = models.DateTimeField()
    seconds = models.FloatField(default=0)
    # {question id: {"low": first bin's lower bound, "width": a bin's width, "bins": how many}}
    bins = models.JSONField(default=dict, blank=True)
    # The suppression threshold the figures were suppressed with (RESULTS_SUPPRESSION_THRESHOLD then).
    threshold = models.PositiveIntegerField(default=10)

    def __str__(self) -> str:
        return f"{self.survey_id} at {self.refreshed_at:%Y-%m-%d %H:%M:%S}"
