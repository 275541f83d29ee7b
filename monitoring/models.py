"""Completion counts by level, aggregated off the save path for the monitoring pages."""
from django.db import models
from django.utils.translation import gettext_lazy as _

from respondents.models import District, School
from surveys.models import Survey


class CompletionSummary(models.Model):
    """Completion counts of one survey at one level (the state, a district, a school, a school's grade and role),
    aggregated off the save path.

    A periodic task (``monitoring/refresh.py``) rebuilds a survey's rows
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
        db_table = "respondents_completionsummary"  # the name it had in respondents: no table is rebuilt
        indexes = [models.Index(fields=["survey", "level", "district", "school"], name="completion_summary_level")]

    def __str__(self) -> str:
        return f"{self.survey_id}/{self.level}/{self.district_id}/{self.school_id}/{self.grade}/{self.role}: " \
               f"{self.completed}/{self.rostered}"


