"""The forms of the results screens (staff/views/results.py)."""
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast
from urllib.parse import urlencode

from django import forms
from django.http import QueryDict

from accounts.scopes import Scope
from respondents.models import District, Respondent, School
from rosters.directory import PlaceLookup, district_lookup, school_lookup
from staff.forms.places import PLACE_TEXT_MAX, PlaceField, PlacePicker, PlacesOffered, place_label, place_problem

Place = TypeVar("Place", District, School)


class ResultsFilterForm(forms.Form):
    """The results page's page of questions and filters, all in the query string (links and a GET form). A
    district and a school are given by a code or a name, looked up in the scope (``rosters.directory``): one that
    names nothing there, or several, is the field's error, with the several to choose from (its ``offered``).
    ``cleaned_data`` holds the District and the School. English only, as the staff area is."""

    data: QueryDict  # the page's query string (request.GET): a place found is written back into a copy of it

    page = forms.IntegerField(required=False, min_value=1, max_value=32767, widget=forms.HiddenInput)
    district = PlaceField(label="District", required=False, max_length=PLACE_TEXT_MAX,
                          widget=PlacePicker("district"), help_text="Its code or its name.")
    school = PlaceField(label="School", required=False, max_length=PLACE_TEXT_MAX,
                        widget=PlacePicker("school", within="id_district"), help_text="Its code or its name.")
    grade = forms.CharField(label="Grade", required=False, max_length=20)
    role = forms.ChoiceField(label="Role", required=False,
                             choices=[("", "Every role"), *Respondent.Role.choices])

    def __init__(self, *args: Any, scope: Scope, grades: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scope = scope
        self.fields["grade"].widget = forms.Select(choices=[("", "Every grade"), *((g, g) for g in grades)])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        district = self._place("district", data.get("district"), district_lookup, scope=self.scope)
        school = None
        if "district" not in self.errors:
            school = self._place("school", data.get("school"), school_lookup, scope=self.scope, district=district)
        data["district"], data["school"] = district, school
        return data

    def _place(self, name: str, text: str | None, lookup: Callable[..., PlaceLookup[Place]],
               **where: Any) -> Place | None:
        if not text:
            return None
        found = lookup(text=text, **where)
        if found.found is None:
            # A PlaceField (above): ``fields`` types each as a Field.
            cast(PlaceField, self.fields[name]).offered = PlacesOffered(
                choices=[(place, self.choice_query(name, place)) for place in found.matches], more=found.more)
            self.add_error(name, place_problem(found, name, within=where.get("district")))
            return None
        # The box shows what the text was found to be, and the page's links carry its code.
        self.data = self.data.copy()
        self.data[name] = place_label(found.found)
        return found.found

    def query(self) -> str:
        """The filters as a query string (codes for the places), without the page: the page's links carry it."""
        data = self.cleaned_data
        params = {"district": data["district"].code if data["district"] else "",
                  "school": data["school"].code if data["school"] else "",
                  "grade": data["grade"], "role": data["role"]}
        return urlencode({name: value for name, value in params.items() if value})

    def choice_query(self, name: str, place: District | School) -> str:
        """The query string of the filters as typed, with ``place`` chosen for field ``name`` (of several)."""
        params = self.data.copy()
        params.pop("page", None)
        params[name] = place.code
        return params.urlencode()


class TextAnswersPageForm(forms.Form):
    """Which page of a text question's answers (``?number=``: ``?page=`` is the survey's page of the filters)."""

    number = forms.IntegerField(required=False, min_value=1, max_value=100_000)
