"""The state office's screens: loading, publishing, dating and closing surveys; the school directory and its
uploads; the audit log (staff accounts: ``staff/views/accounts.py``)."""
from datetime import datetime, time, timedelta
from typing import TypedDict

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.audit import audit_entries, audit_write_csv
from infra.request_guard import accepts_uploads
from publishing import services as publishing
from rosters.directory import (
    DirectoryNotReady,
    directory_counts,
    directory_uploads,
    school_directory_apply,
    school_directory_check,
    school_directory_discard,
    school_directory_search,
)
from staff.access import StaffRequest, staff_view
from staff.forms.confirm import ConfirmForm
from staff.forms.office import AuditFilterForm, DirectoryUploadForm, SchoolSearchForm, SurveyDatesForm, SurveyUploadForm
from staff.views.downloads import CSV, attachment
from staff.views.lists import PROBLEMS_SHOWN, page_of
from staff.views.uploads import check_uploaded_file, discard_checked_file
from surveys.documents import DocumentError
from surveys.models import Survey


@accepts_uploads
@staff_view("can_manage_surveys")
def survey_import(request: StaffRequest) -> HttpResponse:
    """Import a survey (XLSForm or JSON), or its next version: every problem listed, nothing written; else on to
    its preview."""
    form = SurveyUploadForm(request.POST or None, request.FILES or None)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if form.cleaned_data["new_version"]:
                survey = publishing.survey_revise(scope=request.scope, source=upload, filename=upload.name)
            else:
                survey = publishing.survey_import(scope=request.scope, source=upload, filename=upload.name)
        except DocumentError as error:
            problems = error.problems
        else:
            made = _("Version %(version)s of") % {"version": survey.version} if survey.version > 1 else _("Loaded")
            messages.success(request, f"{made} “{survey.title}”.")
            return redirect("surveys:preview", slug=survey.slug)
    return render(request, "staff/survey_import.html", {"form": form, "problems": problems}, status=400 if (
        problems or form.errors) else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_surveys")
def survey_publish(request: StaffRequest, slug: str) -> HttpResponse:
    """Open a survey to respondents, after a page that says what that does (its button posts ``confirm``); what
    it lacks (a text in one of its languages) is listed on its preview."""
    survey = get_object_or_404(Survey, slug=slug)
    if not ConfirmForm.confirmed(request):
        return render(request, "staff/confirm_publish.html", {
            "survey": survey, "people": request.scope.respondents(survey).filter(withdrawn_at=None).count()})
    try:
        publishing.survey_publish(scope=request.scope, survey=survey)
    except DocumentError as error:
        messages.error(request, _("Not published: every text must be given in every language of the survey. "
                                  "Missing: %(gaps)s") % {"gaps": "; ".join(error.problems[:50])})
    else:
        messages.success(request, _("Published: respondents can take it."))
    return redirect("surveys:preview", slug=survey.slug)


@staff_view("can_manage_surveys")
def survey_dates(request: StaffRequest, slug: str) -> HttpResponse:
    """When a survey opens and closes to respondents, in the site's time zone; every problem on the form."""
    survey = get_object_or_404(Survey, slug=slug)
    form = SurveyDatesForm(request.POST or None, initial={"opens_at": survey.opens_at, "closes_at": survey.closes_at})
    if request.method == "POST" and form.is_valid():
        try:
            publishing.survey_dates_change(scope=request.scope, survey=survey, **form.cleaned_data)
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            messages.success(request, _("The opening and closing times of “%(title)s” were saved.") % {
                "title": survey.title})
            return redirect("staff:home")
    return render(request, "staff/survey_dates.html", {"survey": survey, "form": form},
                  status=400 if form.errors else 200)


@require_POST
@staff_view("can_manage_surveys")
def survey_close(request: StaffRequest, slug: str) -> HttpResponse:
    """Close a survey to respondents now (its closing time becomes now)."""
    survey = get_object_or_404(Survey, slug=slug)
    try:
        survey = publishing.survey_close_now(scope=request.scope, survey=survey)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("staff:survey-dates", slug=survey.slug)
    messages.success(request, _("“%(title)s” is closed: nobody can log in or save any more.") % {
        "title": survey.title})
    return redirect("staff:home")


@staff_view()
def directory(request: StaffRequest) -> HttpResponse:
    """The school directory, as far as the staff member's scope reaches: found by code or name, a page at a time."""
    search = SchoolSearchForm(request.GET or None)
    query = search.cleaned_data["q"] if search.is_valid() else ""
    schools = school_directory_search(scope=request.scope, query=query)
    return render(request, "staff/directory.html", {
        "search": search, "query": query, "page": page_of(request, schools)})


@accepts_uploads
@staff_view("can_import_schools")
def directory_import(request: StaffRequest) -> HttpResponse:
    """Upload the school directory: it is checked, and its page shows what applying it would do."""
    form = DirectoryUploadForm(request.POST or None, request.FILES or None)
    checked = check_uploaded_file(request, form, school_directory_check)
    if checked is not None:
        return redirect("staff:directory-upload", upload_id=checked.pk)
    return render(request, "staff/directory_import.html", {
        "form": form, "uploads": directory_uploads(scope=request.scope)[:10]}, status=400 if form.errors else 200)


@staff_view("can_import_schools")
def directory_upload(request: StaffRequest, upload_id: int) -> HttpResponse:
    upload = get_object_or_404(directory_uploads(scope=request.scope), pk=upload_id)
    return render(request, "staff/directory_upload.html", {
        "upload": upload, "problems": upload.problems()[:PROBLEMS_SHOWN],
        "districts": directory_counts(upload, "districts"), "schools": directory_counts(upload, "schools")})


@require_POST
@staff_view("can_import_schools")
def directory_upload_apply(request: StaffRequest, upload_id: int) -> HttpResponse:
    upload = get_object_or_404(directory_uploads(scope=request.scope), pk=upload_id)
    try:
        upload = school_directory_apply(scope=request.scope, upload_id=upload.pk)
    except DirectoryNotReady as error:
        messages.error(request, str(error))
    return redirect("staff:directory-upload", upload_id=upload.pk)


@require_POST
@staff_view("can_import_schools")
def directory_upload_discard(request: StaffRequest, upload_id: int) -> HttpResponse:
    return discard_checked_file(request, uploads=directory_uploads(scope=request.scope), upload_id=upload_id,
                                discard=school_directory_discard, upload_page="staff:directory-upload",
                                done_page="staff:directory")


@staff_view("can_read_audit")
def audit_log(request: StaffRequest) -> HttpResponse:
    form = AuditFilterForm(request.GET or None)
    entries = audit_entries(scope=request.scope, **_audit_filters(form))
    if request.GET.get("format") == "csv":
        response = attachment(CSV, "audit-log.csv")
        audit_write_csv(entries=entries, stream=response)
        return response
    return render(request, "staff/audit_log.html", {
        "form": form, "page": page_of(request, entries)})


class AuditFilters(TypedDict, total=False):
    """``audit_entries``' filters, as the audit log's form gives them."""

    action: str
    username: str
    since: datetime | None
    until: datetime | None


def _audit_filters(form: AuditFilterForm) -> AuditFilters:
    if not form.is_valid():
        return {}
    data = form.cleaned_data
    since = until = None
    if data["since"]:
        since = timezone.make_aware(datetime.combine(data["since"], time.min))
    if data["until"]:
        until = timezone.make_aware(datetime.combine(data["until"] + timedelta(days=1), time.min))
    return {"action": data["action"], "username": data["username"], "since": since, "until": until}
