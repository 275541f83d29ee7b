from datetime import date
from typing import cast

from django import forms
from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import get_connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_ratelimit.core import get_usage

from accounts.models import NAME_MAX, AuditEntry, StaffMember
from accounts.passwords import password_reset_asked_record, password_reset_recipients
from accounts.staff_accounts import StaffAccount, split_codes
from config.login_limits import client_ip
from exports.filters import NO_FILTER, STATUSES, ExportFilterError, export_filter_make
from exports.jobs import NAMED_FIELDS
from exports.models import ExportJob
from exports.variables import ROSTER_FIELDS
from exports.writers import ExportOptions
from respondents.models import Respondent, School
from rosters.selectors import SEARCH_BY_CODE_HOLDERS, SELECTION_MAX, PeopleAction, PeopleSearch, SearchBy
from staff.password_mail import password_message


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
    email = forms.EmailField(label=_("Email"), required=False)
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
                                            "the districts' codes, separated by commas."))
    school_codes = CodesField(label=_("School codes"), required=False, widget=forms.Textarea(attrs={"rows": 2}),
                              help_text=_("For a school coordinator: the schools' codes, separated by commas."))
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
    """Django's reset form, for staff accounts (``accounts.passwords``): also those still waiting for their first
    password; at most ``PASSWORD_RESET_RATE_PER_EMAIL`` emails an hour to one address; every request audited."""

    def get_users(self, email):
        return password_reset_recipients(email=email)

    def save(self, *, request, **kwargs):
        email = self.cleaned_data["email"]
        usage = get_usage(request, group="staff-password-reset-email", key=lambda group, request: email.lower(),
                          rate=settings.PASSWORD_RESET_RATE_PER_EMAIL, increment=True)
        limited = usage is not None and usage["should_limit"]
        users = [] if limited else self.get_users(email)
        site_url = f"{request.scheme}://{request.get_host()}"
        if users:
            with get_connection() as connection:
                connection.send_messages([password_message(user, kind="reset", site_url=site_url,
                                                           connection=connection) for user in users])
        password_reset_asked_record(email=email, address=client_ip(request), users=users, limited=limited)


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
        "school_codes (several separated by spaces). Accounts are matched by user name; loading the file again "
        "changes nothing. It is checked first: nothing is written until you apply it."))


class StaffSearchForm(forms.Form):
    q = forms.CharField(label=_("Find by user name, email or name"), required=False, max_length=150)
    role = forms.ChoiceField(label=_("Role"), required=False, choices=[("", _("Any"))] + StaffMember.Role.choices)
    active = forms.ChoiceField(label=_("May sign in"), required=False, choices=[
        ("", _("Either")), ("yes", _("Yes")), ("no", _("No (deactivated)"))])

    def filters(self):
        """The selector's filters (``staff_accounts``): none for a search that is not valid."""
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        return {"query": data["q"], "role": data["role"],
                "active": {"yes": True, "no": False}.get(data["active"])}


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


class ResultsFilterForm(forms.Form):
    """The results page's page of questions and filters, all in the query string (links and a GET form). Codes
    are looked up through the scope by the view: one out of scope is a 404. English only, as the staff area is."""

    page = forms.IntegerField(required=False, min_value=1, max_value=32767, widget=forms.HiddenInput)
    district = forms.CharField(label="District", required=False, max_length=20)
    school = forms.CharField(label="School code", required=False, max_length=20)
    grade = forms.CharField(label="Grade", required=False, max_length=20)
    role = forms.ChoiceField(label="Role", required=False,
                             choices=[("", "Every role"), *Respondent.Role.choices])

    def __init__(self, *args, districts=(), grades=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["district"].widget = forms.Select(
            choices=[("", "Every district"), *((d.code, d.name) for d in districts)])
        self.fields["grade"].widget = forms.Select(choices=[("", "Every grade"), *((g, g) for g in grades)])


class ExportForm(forms.Form):
    """Which respondents an export holds (exports/filters.py: ExportFilter, checked against the scope) and what it
    holds of them (exports/writers.py: ExportOptions)."""

    statuses = forms.MultipleChoiceField(
        label=_("Status"), required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(code, words.capitalize()) for code, words in STATUSES.items()],
        help_text=_("None ticked: every respondent. Withdrawn people are only under “Withdrawn”."))
    districts = forms.CharField(label=_("District codes"), required=False, max_length=2000,
                                help_text=_("Separated by spaces; empty for every district you may export."))
    schools = forms.CharField(label=_("School codes"), required=False, max_length=2000,
                              help_text=_("Separated by spaces; a school of a district chosen above is already in."))
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
        try:
            self.export_filter = export_filter_make(
                scope=self.scope, statuses=data.get("statuses", ()), districts=data.get("districts", ""),
                schools=data.get("schools", ""), completed_from=data.get("completed_from"),
                completed_to=data.get("completed_to"), deidentified=bool(data.get("deidentified")))
        except ExportFilterError as error:
            for problem in error.problems:
                self.add_error(problem.part if problem.part in self.FILTER_FIELDS else None, problem.message)
        return data

    def options(self):
        data = self.cleaned_data
        return ExportOptions(labels=data["answers"] == "labels", multiple=data["multiple"],
                             roster_fields=tuple(data["roster_fields"]), deidentified=data["deidentified"])
