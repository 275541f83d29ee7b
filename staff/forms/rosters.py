"""The form of the roster screen (staff/views/rosters.py)."""
from django import forms
from django.utils.translation import gettext_lazy as _


class RosterUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Roster file (CSV or XLSX)"),
        help_text=_("Columns: external_id and school_code (required); grade, role, language and display_name "
                    "(optional). The file is checked first: nothing changes until you confirm."),
    )
