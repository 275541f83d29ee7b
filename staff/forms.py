from django import forms
from django.utils.translation import gettext_lazy as _


class RosterUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Roster file (CSV or XLSX)"),
        help_text=_("Columns: external_id and school_code (required); grade, role, language and display_name "
                    "(optional). The file is checked first: nothing changes until you confirm."),
    )


class RespondentIdsForm(forms.Form):
    """Respondents chosen with checkboxes (withdraw or restore several); out-of-scope ids are ignored."""

    respondent = forms.TypedMultipleChoiceField(coerce=int, choices=(), error_messages={
        "required": _("Choose at least one person.")})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Any number: the service keeps only the ids in the staff member's scope.
        self.fields["respondent"].valid_value = lambda value: str(value).isdigit()


class RespondentSearchForm(forms.Form):
    q = forms.CharField(label=_("Find by external id"), required=False, max_length=100)
    status = forms.ChoiceField(label=_("Show"), required=False, choices=[
        ("", _("Everyone")), ("not_started", _("Not started")), ("in_progress", _("In progress")),
        ("completed", _("Completed")), ("withdrawn", _("Withdrawn"))])
