"""The forms of the office screens (staff/views/office.py): surveys and their dates, the school directory, the
audit log."""
from datetime import date, datetime
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import AuditEntry


class SurveyUploadForm(forms.Form):
    file = forms.FileField(label=_("Survey (XLSForm .xlsx, or a .json survey document)"), help_text=_(
        "An XLSForm: sheets survey, choices and settings; pages are groups with appearance field-list. It is "
        "checked whole: with any problem nothing is written, and every problem is listed by sheet, row and "
        "column. A new survey is a draft until you publish it."))
    new_version = forms.BooleanField(label=_("A new version of the survey with the same form_id (slug): wording, "
                                             "translations, new questions; applied at once to everyone taking it"),
                                     required=False)


DATETIME_LOCAL = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def _survey_year(value: datetime | None) -> None:
    """A survey's times lie within these years: the calendar's ends cannot be stored in UTC (9999-12-31 in Chicago
    is a day past it)."""
    if value is not None and not 2000 <= value.year <= 2999:
        raise forms.ValidationError(_("Give a year from 2000 to 2999."))


class SurveyDatesForm(forms.Form):
    """When a survey opens and closes to respondents, in the site's time zone (TIME_ZONE), named in the labels."""

    opens_at = forms.DateTimeField(required=False, widget=DATETIME_LOCAL, validators=[_survey_year])
    closes_at = forms.DateTimeField(required=False, widget=DATETIME_LOCAL, validators=[_survey_year])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zone = timezone.get_current_timezone_name()
        now = timezone.localtime().strftime("%Z")
        self.fields["opens_at"].label = _("Opens (date and time, %(zone)s)") % {"zone": zone}
        self.fields["opens_at"].help_text = _(
            "Respondents can log in from then, once the survey is published. Empty: as soon as it is published. "
            "Times are %(zone)s (%(now)s now).") % {"zone": zone, "now": now}
        self.fields["closes_at"].label = _("Closes (date and time, %(zone)s)") % {"zone": zone}
        self.fields["closes_at"].help_text = _(
            "After then nobody can log in or save; answers already saved are kept. Empty: it stays open.")


class DirectoryUploadForm(forms.Form):
    file = forms.FileField(label=_("School directory (CSV or XLSX)"), help_text=_(
        "Columns: district_code, district_name, school_code, school_name. Loading it again updates names and never "
        "duplicates. It is checked first: nothing is written until you apply it."))


class SchoolSearchForm(forms.Form):
    q = forms.CharField(label=_("Find a school"), required=False, max_length=200,
                        help_text=_("Part of a school's or district's code or name."))


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(label=_("Action"), required=False,
                               choices=[("", _("Any"))] + list(AuditEntry.Action.choices))
    username = forms.CharField(label=_("User name"), required=False, max_length=150)
    since = forms.DateField(label=_("From (date)"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("Until (date, included)"), required=False,
                            widget=forms.DateInput(attrs={"type": "date"}))

    def clean_until(self) -> date | None:
        # The calendar's last day has no day after it to end the range at; nothing is recorded after it either.
        until = self.cleaned_data["until"]
        return None if until == date.max else until
