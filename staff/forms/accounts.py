"""The forms of the staff accounts screens (staff/views/accounts.py)."""
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.emails import EmailAddressField
from accounts.models import NAME_MAX, StaffMember
from accounts.passwords import sign_in_choices
from accounts.staff_accounts import StaffAccount
from respondents.code_lists import split_codes
from staff.forms.fields import IdsField


class CodesField(forms.CharField):
    """Codes separated by commas, spaces or new lines (``split_codes``, as a staff file's columns are read)."""

    def to_python(self, value: object) -> tuple[str, ...]:  # type: ignore[override]  # codes, not one text
        return split_codes(super().to_python(value) or "")


class StaffAccountForm(forms.Form):
    username = forms.CharField(label=_("User name"), max_length=150)
    email = EmailAddressField(label=_("Email"), required=False)
    name = forms.CharField(label=_("Name"), required=False, max_length=NAME_MAX,
                           help_text=_("The person's name as the office writes it."))
    # The password typed is shown again (dotted) when the form comes back for another field's error, not when
    # it was itself refused; staff pages are never cached (staff_view).
    password = forms.CharField(label=_("Password"), required=False,
                               widget=forms.PasswordInput(render_value=True, attrs={"autocomplete": "new-password"}),
                               help_text=_("For a new account: at least 8 characters, not a common password; or "
                                           "leave it blank, and the account's email gets a link to set one."))
    role = forms.ChoiceField(label=_("Role"), choices=StaffMember.Role.choices)
    district_codes = CodesField(label=_("District codes"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
                                help_text=_("For a district coordinator, or an analyst of some districts only: "
                                            "the districts' codes, separated by commas or spaces."))
    school_codes = CodesField(label=_("School codes"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
                              help_text=_("For a school coordinator: the schools' codes, separated by commas or "
                                          "spaces."))
    is_active = forms.BooleanField(label=_("The account may sign in"), required=False, initial=True)

    def account(self) -> StaffAccount:
        """The StaffAccount the form describes, with what the fields could read (a field with an error: empty), so
        that the service can list its own problems in the same round trip as the form's."""
        data = {name: self.cleaned_data.get(name) for name in self.fields}
        return StaffAccount(username=data["username"] or "", email=data["email"] or "", name=data["name"] or "",
                            role=data["role"] or "",
                            district_codes=data["district_codes"] or (), school_codes=data["school_codes"] or (),
                            is_active=bool(data["is_active"]))

    def add_problems(self, problems: Mapping[str, Sequence[str]]) -> None:
        """Add the service's problems ({field: [message]}; others: the form's) to the form's own, every one shown at
        once; the password typed is kept only when nothing is wrong with it."""
        for field, messages in problems.items():
            for message in messages:
                if not (field in self.errors and message in self.errors[field]):
                    self.add_error(field if field in self.fields else None, message)
        # (The PasswordInput above: the stubs type a field's widget as any Widget.)
        cast(forms.PasswordInput, self.fields["password"].widget).render_value = not self.has_error("password")


class StaffUploadForm(forms.Form):
    file = forms.FileField(label=_("Staff file (CSV or XLSX)"), help_text=_(
        "Columns: username, email, name, role (state_admin, district, school or analyst), district_codes, "
        "school_codes (several separated by commas or spaces). Accounts are matched by user name; loading the file again "
        "changes nothing. It is checked first: nothing is written until you apply it."))


class StaffFilters(TypedDict, total=False):
    """``staff_accounts``' filters, as the staff list's search gives them."""

    query: str
    role: str
    active: bool | None
    sign_in: str


class StaffSearchForm(forms.Form):
    q = forms.CharField(label=_("Find by user name, email or name"), required=False, max_length=150)
    role = forms.ChoiceField(label=_("Role"), required=False, choices=[("", _("Any"))] + StaffMember.Role.choices)
    active = forms.ChoiceField(label=_("May sign in"), required=False, choices=[
        ("", _("Either")), ("yes", _("Yes")), ("no", _("No (deactivated)"))])
    sign_in = forms.ChoiceField(label=_("Sign-in"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # With local passwords off, nobody has one to set: single sign-on, or not signed in yet. (``fields`` types
        # each as a Field: this one is the ChoiceField above.)
        cast(forms.ChoiceField, self.fields["sign_in"]).choices = [
            ("", _("Any")), *((state.value, state.label) for state in sign_in_choices())]

    def filters(self) -> StaffFilters:
        """The selector's filters (``staff_accounts``): none for a search that is not valid."""
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        return {"query": data["q"], "role": data["role"],
                "active": {"yes": True, "no": False}.get(data["active"]), "sign_in": data["sign_in"]}


class StaffIdsForm(forms.Form):
    """Staff accounts chosen with checkboxes (deactivate or reactivate several); ids of no account are ignored."""

    user = IdsField(error_messages={"required": _("Choose at least one account.")})
