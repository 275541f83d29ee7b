"""The forms of finding a survey's people and acting on those chosen (staff/views/search.py; a school's page
searches its people with the same form)."""
from typing import Any, cast

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from respondents.models import School
from rosters.selectors import SEARCH_BY_CODE_HOLDERS, SELECTION_MAX, PeopleAction, PeopleSearch, SearchBy
from staff.forms.fields import IdsField


class RespondentSearchForm(forms.Form):
    """A search of a survey's people across the scope, or within one ``school`` (its page): the text and what it
    matches, a grade and a status (``rosters.selectors.respondents_search``)."""

    q = forms.CharField(label=_("Look for"), required=False, max_length=100)
    by = forms.ChoiceField(label=_("In"), required=False, choices=SearchBy.choices)
    # What the one box finds, said under it, by who may search by what.
    HELP = {True: _("A name on the slip (accents and case aside), the start of an external id or of an access "
                    "code (spaces and dashes as you like)."),
            False: _("The start of an external id.")}
    grade = forms.CharField(label=_("Grade"), required=False, max_length=20)
    status = forms.ChoiceField(label=_("Show"), required=False, choices=[
        ("", _("Everyone")), ("not_started", _("Not started")), ("in_progress", _("In progress")),
        ("completed", _("Completed")), ("withdrawn", _("Withdrawn"))])

    def __init__(self, data: QueryDict | None = None, *, can_see_codes: bool, school: School | None = None) -> None:
        super().__init__(data)
        self.school = school
        # Who sees no codes searches by external id (or school): "anything" would be only that.
        self.default_by = SearchBy.ANYTHING if can_see_codes else SearchBy.EXTERNAL_ID
        by = cast(forms.ChoiceField, self.fields["by"])
        by.choices = [(value, label) for value, label in SearchBy.choices
                      if (can_see_codes or value not in SEARCH_BY_CODE_HOLDERS | {SearchBy.ANYTHING})
                      and not (school is not None and value == SearchBy.SCHOOL)]
        self.fields["q"].help_text = self.HELP[can_see_codes]

    @classmethod
    def from_query(cls, query: QueryDict, **kwargs: Any) -> "RespondentSearchForm":
        """The form of a page's query string: bound when it names any of the form's fields (else everyone)."""
        return cls(query if set(cls.base_fields) & set(query) else None, **kwargs)

    def search(self) -> PeopleSearch | None:
        """The search asked for (nothing asked: everyone), or None when the form has errors."""
        if not self.is_bound:
            return PeopleSearch(school=self.school)
        if not self.is_valid():
            return None
        data = self.cleaned_data
        return PeopleSearch(query=data["q"], by=data["by"] or self.default_by, grade=data["grade"],
                            status=data["status"], school=self.school)


class PeopleActionForm(forms.Form):
    """People chosen on the search page for an action: the ticked ones, everyone the search finds (its fields
    come along: ``RespondentSearchForm``), or a list kept chosen (``kept``). ``expected`` is how many the confirm page listed: if the search finds
    another number when confirmed, the confirm page comes back."""

    action = forms.ChoiceField(choices=PeopleAction.choices, error_messages={
        "required": _("Choose what to do."), "invalid_choice": _("Choose what to do.")})
    respondent = IdsField(required=False)  # out-of-scope ids are left out
    everyone = forms.BooleanField(required=False)
    expected = forms.IntegerField(required=False, min_value=0, max_value=SELECTION_MAX, widget=forms.HiddenInput)
    # People kept chosen after an action (those just given new codes): the token of their list in the session.
    kept = forms.RegexField(regex=r"^[A-Za-z0-9_-]{1,32}$", required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("respondent") and not data.get("everyone") and not data.get("kept"):
            raise forms.ValidationError(_("Choose at least one person, or everyone the search finds."))
        return data
