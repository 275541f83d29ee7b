import re
from dataclasses import dataclass
from datetime import date
from typing import cast
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_ratelimit.core import get_usage

from accounts.emails import EmailAddressField
from accounts.models import NAME_MAX, AuditEntry, StaffMember
from accounts.passwords import sign_in_choices
from accounts.staff_accounts import StaffAccount
from exports.filters import NO_FILTER, STATUSES, ExportFilterError, export_filter_make
from exports.jobs import NAMED_FIELDS
from exports.models import ExportJob
from exports.options import ExportOptions
from exports.variables import ROSTER_FIELDS
from infra.clients import client_ip
from respondents.code_lists import split_codes
from respondents.models import District, Respondent, School
from rosters.directory import district_lookup, school_lookup
from rosters.selectors import SEARCH_BY_CODE_HOLDERS, SELECTION_MAX, PeopleAction, PeopleSearch, SearchBy
from staff.tasks import password_reset_send_task


class RosterUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Roster file (CSV or XLSX)"),
        help_text=_("Columns: external_id and school_code (required); grade, role, language and display_name "
                    "(optional). The file is checked first: nothing changes until you confirm."),
    )


# The largest row id (a bigint column): a larger number in a URL or a form is no row's, and SQLite raises
# OverflowError on it (PostgreSQL a DataError) where a lookup would otherwise find nothing.
ROW_ID_MAX = 2 ** 63 - 1


def row_id(text):
    """Return ``text`` as a row id, or None when it cannot be one (not ASCII digits, or beyond ROW_ID_MAX)."""
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(ROW_ID_MAX))):
        return None
    number = int(text)
    return number if number <= ROW_ID_MAX else None


class IdsField(forms.TypedMultipleChoiceField):
    """Ids ticked in a list whose choices are not known here: any row id passes; the service keeps only those
    in the staff member's scope."""

    def __init__(self, **kwargs):
        super().__init__(coerce=int, choices=(), **kwargs)

    def valid_value(self, value):
        return row_id(str(value)) is not None


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

    def __init__(self, data=None, *, can_see_codes: bool, school: School | None = None):
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
    def from_query(cls, query, **kwargs) -> "RespondentSearchForm":
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

    def clean(self):
        data = super().clean()
        if not data.get("respondent") and not data.get("everyone") and not data.get("kept"):
            raise forms.ValidationError(_("Choose at least one person, or everyone the search finds."))
        return data


class CodesField(forms.CharField):
    """Codes separated by commas, spaces or new lines (``split_codes``, as a staff file's columns are read)."""

    def to_python(self, value):
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

    def account(self):
        """The StaffAccount the form describes, with what the fields could read (a field with an error: empty), so
        that the service can list its own problems in the same round trip as the form's."""
        data = {name: self.cleaned_data.get(name) for name in self.fields}
        return StaffAccount(username=data["username"] or "", email=data["email"] or "", name=data["name"] or "",
                            role=data["role"] or "",
                            district_codes=data["district_codes"] or (), school_codes=data["school_codes"] or (),
                            is_active=bool(data["is_active"]))

    def add_problems(self, problems):
        """Add the service's problems ({field: [message]}; others: the form's) to the form's own, every one shown at
        once; the password typed is kept only when nothing is wrong with it."""
        for field, messages in problems.items():
            for message in messages:
                if not (field in self.errors and message in self.errors[field]):
                    self.add_error(field if field in self.fields else None, message)
        self.fields["password"].widget.render_value = not self.has_error("password")


class StaffPasswordResetForm(PasswordResetForm):
    """Django's reset form, for staff accounts: at most ``PASSWORD_RESET_RATE_PER_EMAIL`` emails an hour to one
    address (normalised, as it is compared: ``accounts/emails.py``); every request audited. The request only counts
    the ask and queues it: who has the address, and the email, are the Celery task's (``staff/password_mail.py``'s
    ``password_reset_send``), so that the answer takes as long whether an account has the address or not."""

    email = EmailAddressField(label=_("Email"), widget=forms.EmailInput(attrs={"autocomplete": "email"}))

    def save(self, *, request, **kwargs):
        email = self.cleaned_data["email"]
        usage = get_usage(request, group="staff-password-reset-email", key=lambda group, request: email,
                          rate=settings.PASSWORD_RESET_RATE_PER_EMAIL, increment=True)
        limited = usage is not None and usage["should_limit"]
        ask = {"email": email, "address": client_ip(request), "limited": limited,
               "asked_at": timezone.now().isoformat()}
        transaction.on_commit(lambda: password_reset_send_task.delay(**ask))


class ConfirmForm(forms.Form):
    """The step an action that is hard to undo asks for (withdrawing people, reissuing a code, publishing a
    survey): its confirm page posts ``confirm``; a request without it (a GET, a form of another page, a replayed
    POST) is shown the confirm page and changes nothing."""

    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    @classmethod
    def confirmed(cls, request):
        form = cls(request.POST)
        return request.method == "POST" and form.is_valid() and form.cleaned_data["confirm"]


DATETIME_LOCAL = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def _survey_year(value):
    """A survey's times lie within these years: the calendar's ends cannot be stored in UTC (9999-12-31 in Chicago
    is a day past it)."""
    if value is not None and not 2000 <= value.year <= 2999:
        raise forms.ValidationError(_("Give a year from 2000 to 2999."))


class SurveyDatesForm(forms.Form):
    """When a survey opens and closes to respondents, in the site's time zone (TIME_ZONE), named in the labels."""

    opens_at = forms.DateTimeField(required=False, widget=DATETIME_LOCAL, validators=[_survey_year])
    closes_at = forms.DateTimeField(required=False, widget=DATETIME_LOCAL, validators=[_survey_year])

    def __init__(self, *args, **kwargs):
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


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(label=_("Action"), required=False,
                               choices=[("", _("Any"))] + list(AuditEntry.Action.choices))
    username = forms.CharField(label=_("User name"), required=False, max_length=150)
    since = forms.DateField(label=_("From (date)"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("Until (date, included)"), required=False,
                            widget=forms.DateInput(attrs={"type": "date"}))

    def clean_until(self):
        # The calendar's last day has no day after it to end the range at; nothing is recorded after it either.
        until = self.cleaned_data["until"]
        return None if until == date.max else until


class StaffUploadForm(forms.Form):
    file = forms.FileField(label=_("Staff file (CSV or XLSX)"), help_text=_(
        "Columns: username, email, name, role (state_admin, district, school or analyst), district_codes, "
        "school_codes (several separated by commas or spaces). Accounts are matched by user name; loading the file again "
        "changes nothing. It is checked first: nothing is written until you apply it."))


class StaffSearchForm(forms.Form):
    q = forms.CharField(label=_("Find by user name, email or name"), required=False, max_length=150)
    role = forms.ChoiceField(label=_("Role"), required=False, choices=[("", _("Any"))] + StaffMember.Role.choices)
    active = forms.ChoiceField(label=_("May sign in"), required=False, choices=[
        ("", _("Either")), ("yes", _("Yes")), ("no", _("No (deactivated)"))])
    sign_in = forms.ChoiceField(label=_("Sign-in"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # With local passwords off, nobody has one to set: single sign-on, or not signed in yet.
        self.fields["sign_in"].choices = [("", _("Any")), *((state.value, state.label) for state in sign_in_choices())]

    def filters(self):
        """The selector's filters (``staff_accounts``): none for a search that is not valid."""
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        return {"query": data["q"], "role": data["role"],
                "active": {"yes": True, "no": False}.get(data["active"]), "sign_in": data["sign_in"]}


class StaffIdsForm(forms.Form):
    """Staff accounts chosen with checkboxes (deactivate or reactivate several); ids of no account are ignored."""

    user = IdsField(error_messages={"required": _("Choose at least one account.")})


class DirectoryUploadForm(forms.Form):
    file = forms.FileField(label=_("School directory (CSV or XLSX)"), help_text=_(
        "Columns: district_code, district_name, school_code, school_name. Loading it again updates names and never "
        "duplicates. It is checked first: nothing is written until you apply it."))


class SchoolSearchForm(forms.Form):
    q = forms.CharField(label=_("Find a school"), required=False, max_length=200,
                        help_text=_("Part of a school's or district's code or name."))


class SurveyUploadForm(forms.Form):
    file = forms.FileField(label=_("Survey (XLSForm .xlsx, or a .json survey document)"), help_text=_(
        "An XLSForm: sheets survey, choices and settings; pages are groups with appearance field-list. It is "
        "checked whole: with any problem nothing is written, and every problem is listed by sheet, row and "
        "column. A new survey is a draft until you publish it."))
    new_version = forms.BooleanField(label=_("A new version of the survey with the same form_id (slug): wording, "
                                             "translations, new questions; applied at once to everyone taking it"),
                                     required=False)


class MonitoringFilterForm(forms.Form):
    """The monitoring page's level, sort and filter, all in the query string (links and a GET form)."""

    district = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    school = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    sort = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    q = forms.CharField(label=_("Name or code contains"), required=False, max_length=100)
    below = forms.DecimalField(label=_("Completion rate below (%)"), required=False, min_value=0, max_value=100,
                               decimal_places=1)

    def clean_below(self):
        below = self.cleaned_data["below"]
        return None if below is None else float(below)


# The longest text a school or district picker takes: a name (NAME_MAX), its code and the brackets around it.
PLACE_TEXT_MAX = 250
PLACE_WORDS = {"district": ("district", "districts"), "school": ("school", "schools")}


@dataclass(frozen=True)
class PlacesOffered:
    """The places a picker's text matched, to choose from (``_place_field.html``): each with what choosing it
    sends (a GET form's query string, a POST form's text for the field); ``more``: others matched too."""

    choices: list
    more: bool = False


class PlaceField(forms.CharField):
    """A picker's text (PlacePicker); ``offered`` is set by the form when the text matched several places."""

    offered = None


class PlacePicker(forms.TextInput):
    """A text box for a district's or a school's code or name, resolved in the scope by the form; ``pickers.js``
    makes it a search as you type (``staff:places``, ``kind``), choosing "Name (CODE)", or for a ``multiple`` box
    (codes or names separated by commas) adding the code. ``within``: the id of the district box whose district
    narrows a school's search. Without JavaScript a text that names several places comes back with them to choose
    from: links on a GET form (``ResultsFilterForm.choice_query``), radio buttons ``NAME_choice`` on a POST form,
    which replace the text they were offered for (``NAME_was``) and nothing typed since."""

    def __init__(self, kind, *, multiple=False, within="", attrs=None):
        attrs = {"autocomplete": "off", "spellcheck": "false", "autocapitalize": "off", "data-picker": kind,
                 **(attrs or {})}
        if multiple:
            attrs["data-picker-multiple"] = ""
        if within:
            attrs["data-picker-within"] = within
        super().__init__(attrs)
        self.kind = kind

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"]["data-picker-url"] = reverse("staff:places")
        return context

    def value_from_datadict(self, data, files, name):
        value = super().value_from_datadict(data, files, name)
        choice, offered = data.get(f"{name}_choice"), data.get(f"{name}_was")
        return choice if choice is not None and offered is not None and offered == value else value


def place_problem(lookup, kind, *, within=None):
    """What to say of a code or name that names no place of the scope, or several (``lookup``: a PlaceLookup)."""
    one, many = PLACE_WORDS[kind]
    if lookup.matches:
        return f"Several {many} match “{lookup.text}”: choose one below, or type more of its name or its code."
    where = f"of {within.name} " if within is not None else ""
    return f"No {one} {where}in your scope has the code or name “{lookup.text}”."


class ResultsFilterForm(forms.Form):
    """The results page's page of questions and filters, all in the query string (links and a GET form). A
    district and a school are given by a code or a name, looked up in the scope (``rosters.directory``): one that
    names nothing there, or several, is the field's error, with the several to choose from (its ``offered``).
    ``cleaned_data`` holds the District and the School. English only, as the staff area is."""

    page = forms.IntegerField(required=False, min_value=1, max_value=32767, widget=forms.HiddenInput)
    district = PlaceField(label="District", required=False, max_length=PLACE_TEXT_MAX,
                          widget=PlacePicker("district"), help_text="Its code or its name.")
    school = PlaceField(label="School", required=False, max_length=PLACE_TEXT_MAX,
                        widget=PlacePicker("school", within="id_district"), help_text="Its code or its name.")
    grade = forms.CharField(label="Grade", required=False, max_length=20)
    role = forms.ChoiceField(label="Role", required=False,
                             choices=[("", "Every role"), *Respondent.Role.choices])

    def __init__(self, *args, scope, grades=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.scope = scope
        self.fields["grade"].widget = forms.Select(choices=[("", "Every grade"), *((g, g) for g in grades)])

    def clean(self):
        data = super().clean()
        district = self._place("district", data.get("district"), district_lookup, scope=self.scope)
        school = None
        if "district" not in self.errors:
            school = self._place("school", data.get("school"), school_lookup, scope=self.scope, district=district)
        data["district"], data["school"] = district, school
        return data

    def _place(self, name, text, lookup, **where):
        if not text:
            return None
        found = lookup(text=text, **where)
        if found.found is None:
            self.fields[name].offered = PlacesOffered(
                choices=[(place, self.choice_query(name, place)) for place in found.matches], more=found.more)
            self.add_error(name, place_problem(found, name, within=where.get("district")))
            return None
        # The box shows what the text was found to be, and the page's links carry its code.
        self.data = self.data.copy()
        self.data[name] = place_label(found.found)
        return found.found

    def query(self):
        """The filters as a query string (codes for the places), without the page: the page's links carry it."""
        data = self.cleaned_data
        params = {"district": data["district"].code if data["district"] else "",
                  "school": data["school"].code if data["school"] else "",
                  "grade": data["grade"], "role": data["role"]}
        return urlencode({name: value for name, value in params.items() if value})

    def choice_query(self, name, place):
        """The query string of the filters as typed, with ``place`` chosen for field ``name`` (of several)."""
        params = self.data.copy()
        params.pop("page", None)
        params[name] = place.code
        return params.urlencode()


class TextAnswersPageForm(forms.Form):
    """Which page of a text question's answers (``?number=``: ``?page=`` is the survey's page of the filters)."""

    number = forms.IntegerField(required=False, min_value=1, max_value=100_000)


def place_label(place):
    """A district or school as the pickers write it: "Name (CODE)"."""
    return f"{place.name} ({place.code})"


def place_entries(text):
    """The entries of a picker's list: separated by commas, semicolons or new lines, blanks left out."""
    return [entry for entry in (" ".join(part.split()) for part in re.split(r"[,;\n]", text)) if entry]


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

    def __init__(self, *args, scope, **kwargs):
        super().__init__(*args, **kwargs)
        self.scope = scope
        self.export_filter = NO_FILTER
        if not scope.can_see_codes:  # analysts never get names
            self.fields["roster_fields"].choices = [
                (name, label) for name, label in ROSTER_FIELDS.items() if name not in NAMED_FIELDS]

    def clean(self):
        """Make the filter (exports/filters.py checks it against the scope): every problem on its field at once."""
        data = super().clean()
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

    def _place_codes(self, name, text):
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
            if found.matches and self.fields[name].offered is None:
                self.fields[name].offered = PlacesOffered(more=found.more, choices=[
                    (place, ", ".join(place.code if n == number else other for n, other in enumerate(entries)))
                    for place in found.matches])
        return " ".join(codes)

    def options(self):
        data = self.cleaned_data
        return ExportOptions(labels=data["answers"] == "labels", multiple=data["multiple"],
                             roster_fields=tuple(data["roster_fields"]), deidentified=data["deidentified"])
