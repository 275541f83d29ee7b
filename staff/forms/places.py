"""The school and district pickers: the field, its widget, what it says of a text that names no place or several,
and the form of their search as you type (staff/views/places.py)."""
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.urls import reverse
from django.utils.datastructures import MultiValueDict

from respondents.models import District, School
from rosters.directory import PlaceLookup

# The longest text a school or district picker takes: a name (NAME_MAX), its code and the brackets around it.
PLACE_TEXT_MAX = 250
PLACE_WORDS = {"district": ("district", "districts"), "school": ("school", "schools")}


@dataclass(frozen=True)
class PlacesOffered:
    """The places a picker's text matched, to choose from (``_place_field.html``): each with what choosing it
    sends (a GET form's query string, a POST form's text for the field); ``more``: others matched too."""

    choices: list[tuple[District | School, str]]
    more: bool = False


class PlaceField(forms.CharField):
    """A picker's text (PlacePicker); ``offered`` is set by the form when the text matched several places."""

    offered: PlacesOffered | None = None


class PlacePicker(forms.TextInput):
    """A text box for a district's or a school's code or name, resolved in the scope by the form; ``pickers.js``
    makes it a search as you type (``staff:places``, ``kind``), choosing "Name (CODE)", or for a ``multiple`` box
    (codes or names separated by commas) adding the code. ``within``: the id of the district box whose district
    narrows a school's search. Without JavaScript a text that names several places comes back with them to choose
    from: links on a GET form (``ResultsFilterForm.choice_query``), radio buttons ``NAME_choice`` on a POST form,
    which replace the text they were offered for (``NAME_was``) and nothing typed since."""

    def __init__(self, kind: str, *, multiple: bool = False, within: str = "", attrs: dict[str, Any] | None = None,
                 ) -> None:
        attrs = {"autocomplete": "off", "spellcheck": "false", "autocapitalize": "off", "data-picker": kind,
                 **(attrs or {})}
        if multiple:
            attrs["data-picker-multiple"] = ""
        if within:
            attrs["data-picker-within"] = within
        super().__init__(attrs)
        self.kind = kind

    def get_context(self, name: str, value: object, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"]["data-picker-url"] = reverse("staff:places")
        return context

    def value_from_datadict(self, data: Mapping[str, Any], files: "MultiValueDict[str, UploadedFile[Any]]",
                            name: str) -> str | None:
        value = super().value_from_datadict(data, files, name)
        choice, offered = data.get(f"{name}_choice"), data.get(f"{name}_was")
        return choice if choice is not None and offered is not None and offered == value else value


def place_problem(lookup: PlaceLookup[District] | PlaceLookup[School], kind: str, *,
                  within: District | None = None) -> str:
    """What to say of a code or name that names no place of the scope, or several (``lookup``: a PlaceLookup)."""
    one, many = PLACE_WORDS[kind]
    if lookup.matches:
        return f"Several {many} match “{lookup.text}”: choose one below, or type more of its name or its code."
    where = f"of {within.name} " if within is not None else ""
    return f"No {one} {where}in your scope has the code or name “{lookup.text}”."


def place_label(place: District | School) -> str:
    """A district or school as the pickers write it: "Name (CODE)"."""
    return f"{place.name} ({place.code})"


def place_entries(text: str) -> list[str]:
    """The entries of a picker's list: separated by commas, semicolons or new lines, blanks left out."""
    return [entry for entry in (" ".join(part.split()) for part in re.split(r"[,;\n]", text)) if entry]


class PlaceSearchForm(forms.Form):
    kind = forms.ChoiceField(choices=[("district", "district"), ("school", "school")])
    q = forms.CharField(required=False, max_length=PLACE_TEXT_MAX)
    district = forms.CharField(required=False, max_length=PLACE_TEXT_MAX)
