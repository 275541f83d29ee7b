"""Answer counts by question, aggregated off the save path for the results pages."""
from django.db import models

from respondents.models import District, School
from surveys.models import Question, Survey


class AnswerCount(models.Model):
    """How many respondents of one group gave one answer to one question, aggregated off the save path.

    ``results/aggregates.py`` rebuilds a survey's rows from the replica; the
    results page reads only these, and only the rows of the level and
    questions it shows, added up by the database. Levels: a school's grade
    and role (GROUP), a district's grade and role (DISTRICT), the state's
    grade and role (STATE). ``cell`` says what ``count`` counts: respondents
    who gave the choice (or whose number fell in the bin) ``value``; those
    who answered the question at all (ANSWERED; ``total`` sums a number
    question's answers, for its mean); or the respondents counted
    (RESPONDENTS, no question; ``value`` is their status).
    """

    class Level(models.TextChoices):
        STATE = "state", "State"
        DISTRICT = "district", "District"
        GROUP = "group", "School, grade and role"

    class Cell(models.TextChoices):
        VALUE = "value", "A choice or a bin"
        ANSWERED = "answered", "Answered"
        RESPONDENTS = "respondents", "Respondents counted"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+", db_index=False)
    level = models.CharField(max_length=10, choices=Level.choices)
    district = models.ForeignKey(District, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 db_index=False)
    school = models.ForeignKey(School, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                               db_index=False)
    grade = models.CharField(max_length=20, blank=True)
    role = models.CharField(max_length=10, blank=True)
    question = models.ForeignKey(Question, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 db_index=False)
    cell = models.CharField(max_length=12, choices=Cell.choices)
    # A choice's value, a bin's number (from 0), a respondent status; "" for ANSWERED.
    value = models.CharField(max_length=64, blank=True)
    count = models.PositiveIntegerField()
    total = models.FloatField(null=True, blank=True, help_text="A number question's answers added up.")

    class Meta:
        indexes = [
            # Each level's reads: the state or a district, or a school, then a question.
            models.Index(fields=["survey", "level", "district", "question"], name="answer_count_district"),
            models.Index(fields=["survey", "level", "school", "question"], name="answer_count_school"),
        ]

    def __str__(self) -> str:
        return f"{self.survey_id}/{self.level}/{self.school_id or self.district_id or ''}/{self.grade}/{self.role}/" \
               f"{self.question_id}/{self.cell}={self.value}: {self.count}"


class ResultsRefresh(models.Model):
    """When a survey's answer counts were last rebuilt, how long it took, and its number questions' bins."""

    survey = models.OneToOneField(Survey, on_delete=models.CASCADE, primary_key=True, related_name="+")
    refreshed_at = models.DateTimeField()
    seconds = models.FloatField(default=0)
    # {question id: {"low": first bin's lower bound, "width": a bin's width, "bins": how many}}
    bins = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.survey_id} at {self.refreshed_at:%Y-%m-%d %H:%M:%S}"
