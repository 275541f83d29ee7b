"""The form of the export screen (staff/views/exports.py)."""
from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.scopes import Scope
from exports.filters import NO_FILTER, STATUSES, ExportFilterError, export_filter_make
from exports.jobs import NAMED_FIELDS
from exports.models import ExportJob
from exports.options import ExportOptions
from exports.variables import ROSTER_FIELDS
from respondents.models import District, School
from rosters.directory import district_lookup, school_lookup
from staff.forms.places import PlaceField, PlacePicker, PlacesOffered, place_entries, place_problem


class ExportForm(forms.Form):
    """Which respondents an export holds (exports/filters.py: ExportFilter, checked against the scope) and what it
    holds of them (exports/options.py: ExportOptions)."""

    statuses = forms.MultipleChoiceField(
        label=_("Status"), required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(code, words.capitalize()) for code, words in STATUSES.items()],
        help_text=_("None ticked: every respondent. Withdrawn people are only under “Withdrawn”."))
    districts = PlaceField(label=_("Districts"), required=False, max_length=2000,
                           widget=PlacePicker("district", multiple=True),
                           help_text=_("Codes or names, separated by commas (codes also by spaces); empty for "
                                       "every district you may export."))
    schools = PlaceField(label=_("Schools"), required=False, max_length=2000,
                         widget=PlacePicker("school", multiple=True),
                         help_text=_("Codes or names, separated by commas (codes also by spaces); a school of a "
                                     "district chosen above is already in."))
    completed_from = forms.CharField(label=_("Completed from"), required=False, max_length=40,
                                     widget=forms.DateInput(attrs={"type": "date"}))
    completed_to = forms.CharField(label=_("Completed to"), required=False, max_length=40,
                                   widget=forms.DateInput(attrs={"type": "date"}),
                                   help_text=_("Whole days, both included, in the office's time zone."))
    format = forms.ChoiceField(label=_("Format"), choices=ExportJob.Format.choices, initial="csv",
                               widget=forms.RadioSelect)
    answers = forms.ChoiceField(label=_("Answers as"), initial="values", widget=forms.RadioSelect, choices=[
        ("values", _("Choice values (codes)")), ("labels", _("Choice labels (the words respondents saw)"))],
        help_text=_("SPSS and Stata files always hold the values, with the labels in their syntax file."))
    multiple = forms.ChoiceField(label=_("Questions with several answers"), initial="joined",
                                 widget=forms.RadioSelect, choices=[
                                     ("joined", _("One column, the chosen values separated by spaces")),
                                     ("columns", _("One 0/1 column per choice"))])
    roster_fields = forms.MultipleChoiceField(label=_("Roster fields"), required=False,
                                              widget=forms.CheckboxSelectMultiple, choices=list(ROSTER_FIELDS.items()),
                                              initial=list(ExportOptions().roster_fields))
    deidentified = forms.BooleanField(
        label=_("De-identified"), required=False,
        help_text=_("Leaves out external ids, names and codes, and the respondents of schools too small to stay "
                    "anonymous."))

    FILTER_FIELDS = ("statuses", "districts", "schools", "completed_from", "completed_to")

    def __init__(self, *args: Any, scope: Scope, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scope = scope
        self.export_filter = NO_FILTER
        if not scope.can_see_codes:  # analysts never get names
            # (``fields`` types each as a Field: this one is the MultipleChoiceField above.)
            cast(forms.MultipleChoiceField, self.fields["roster_fields"]).choices = [
                (name, label) for name, label in ROSTER_FIELDS.items() if name not in NAMED_FIELDS]

    def clean(self) -> dict[str, Any]:
        """Make the filter (exports/filters.py checks it against the scope): every problem on its field at once."""
        super().clean()
        data = self.cleaned_data
        if any(name in self.errors for name in self.FILTER_FIELDS):
            return data
        # A place that names nothing, or several, is its field's error; the rest of the filter is still checked.
        places = {name: self._place_codes(name, data.get(name, "")) for name in ("districts", "schools")}
        try:
            self.export_filter = export_filter_make(
                scope=self.scope, statuses=data.get("statuses", ()), districts=places["districts"],
                schools=places["schools"], completed_from=data.get("completed_from"),
                completed_to=data.get("completed_to"), deidentified=bool(data.get("deidentified")))
        except ExportFilterError as error:
            for problem in error.problems:
                self.add_error(problem.part if problem.part in self.FILTER_FIELDS else None, problem.message)
        return data

    def _place_codes(self, name: str, text: str) -> str:
        """The codes of the places ``text`` names, separated by spaces. Its entries are separated by commas (or new
        lines), each a code, several codes separated by spaces, "Name (CODE)" or a name, looked up in the scope; one
        that names nothing there, or several (``offered`` on the field, to choose from), is the field's error. Codes
        that exist are passed on as they are, and several words of which one is a code are taken as codes:
        ``export_filter_check`` says of each whether it is a place of the scope."""
        kind = name[:-1]
        model, lookup = (District, district_lookup) if kind == "district" else (School, school_lookup)
        entries = place_entries(text or "")
        codes = []
        for number, entry in enumerate(entries):
            tokens = entry.split()
            known = set(model.objects.filter(code__in=tokens).values_list("code", flat=True))
            if known == set(tokens):
                codes += tokens
                continue
            found = lookup(scope=self.scope, text=entry)
            if found.found is not None:
                codes.append(found.found.code)
                continue
            if known and not found.matches:
                codes += tokens
                continue
            self.add_error(name, place_problem(found, kind))
            field = cast(PlaceField, self.fields[name])  # (one of the PlaceFields above)
            if found.matches and field.offered is None:
                field.offered = PlacesOffered(more=found.more, choices=[
                    (place, ", ".join(place.code if n == number else other for n, other in enumerate(entries)))
                    for place in found.matches])
        return " ".join(codes)

    def options(self) -> ExportOptions:
        data = self.cleaned_data
        return ExportOptions(labels=data["answers"] == "labels", multiple=data["multiple"],
                             roster_fields=tuple(data["roster_fields"]), deidentified=data["deidentified"])
