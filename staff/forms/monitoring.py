"""The form of the monitoring screen (staff/views/monitoring.py)."""
from django import forms
from django.utils.translation import gettext_lazy as _


class MonitoringFilterForm(forms.Form):
    """The monitoring page's level, sort and filter, all in the query string (links and a GET form)."""

    district = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    school = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    sort = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    q = forms.CharField(label=_("Name or code contains"), required=False, max_length=100)
    below = forms.DecimalField(label=_("Completion rate below (%)"), required=False, min_value=0, max_value=100,
                               decimal_places=1)

    def clean_below(self) -> float | None:
        below = self.cleaned_data["below"]
        return None if below is None else float(below)
