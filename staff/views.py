"""The staff screens: thin views over the respondents services and selectors, every one through ``staff_view``.

Every object a view touches comes from the scope (``request.scope``): an id
outside it is answered 404, so editing a URL or a form field reaches nobody
of another school.
"""
from datetime import datetime, time, timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.files.storage import FileSystemStorage
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts.audit import audit_codes_shown, audit_entries, audit_write_csv
from accounts.staff_accounts import staff_account_problems, staff_account_save, staff_accounts
from config.request_guard import accepts_uploads
from exports.jobs import export_job_file, export_job_start, export_jobs
from exports.models import ExportJob
from exports.tasks import export_job_task
from fileformats.tables import TableError, local_path
from monitoring.summaries import (
    completion_overview,
    completion_rows,
    completion_summary_refresh,
    completions_per_hour,
    non_responders,
    non_responders_write_csv,
    non_responders_write_pdf,
    page_name,
    page_names,
)
from publishing.services import survey_close_now, survey_dates_change, survey_load, survey_open
from rosters.directory import (
    DirectoryNotReady,
    directory_counts,
    directory_problems,
    directory_uploads,
    school_directory_apply,
    school_directory_check,
    school_directory_discard,
    school_directory_search,
)
from rosters.importing import (
    RosterNotReady,
    roster_apply_start,
    roster_discard,
    roster_missing,
    roster_problems,
    roster_problems_write_csv,
    roster_totals,
    roster_upload,
)
from rosters.models import Roster
from rosters.selectors import grade_counts, respondents_of_school, rosters_in_scope, school_counts
from rosters.services import respondent_reissue_code, respondent_restore, respondent_withdraw
from rosters.slips import codes_write_csv, respondent_slip_print, slips_count, slips_job_start, slips_jobs, slips_print
from rosters.tasks import roster_apply_task, roster_check_task, slips_job_task
from staff.access import staff_view
from staff.forms import (
    AuditFilterForm,
    ConfirmForm,
    DirectoryUploadForm,
    ExportForm,
    MonitoringFilterForm,
    RespondentIdsForm,
    RespondentSearchForm,
    RosterUploadForm,
    SchoolSearchForm,
    StaffAccountForm,
    SurveyDatesForm,
    SurveyUploadForm,
)
from staff.monitoring_page import monitoring_charts, sort_columns
from surveys.documents import DocumentError
from surveys.models import Survey

PROBLEMS_SHOWN = 50
EXPORT_LINK_SALT = "staff.export-file"
PAGE_SIZE = 100
CONFIRM_SHOWN = 200  # people listed by name on a confirm page; the count says how many in all


class SignInView(auth_views.LoginView):
    """Django's sign-in, through the login limits (config/login_limits.py): repeated failures pause an account
    at one address and slow an account or address; a browser that signed in before is trusted."""

    template_name = "staff/sign_in.html"
    redirect_authenticated_user = True


@staff_view()
def home(request):
    return render(request, "staff/home.html", {"surveys": Survey.objects.order_by("-created_at")})


@staff_view()
def survey_people(request, slug):
    survey = get_object_or_404(Survey, slug=slug)
    return render(request, "staff/survey_people.html", {
        "survey": survey,
        "schools": school_counts(scope=request.scope, survey=survey),
        "rosters": rosters_in_scope(scope=request.scope, survey=survey).order_by("-created_at")[:20],
    })


@staff_view()
def survey_monitoring(request, slug):
    """Completion of the state (or the scope's schools) by district, of a district (?district=) by school, or of
    a school (?school=) by grade and role, from the summary (rebuilt on request on the embedded default, by a
    periodic task elsewhere); sorted (?sort=) and filtered (?q=, ?below=) without JavaScript, with charts."""
    survey = get_object_or_404(Survey, slug=slug)
    form = MonitoringFilterForm(request.GET)
    form.is_valid()
    where = form.cleaned_data
    school = district = None
    if where.get("school"):
        school = get_object_or_404(request.scope.schools(), code=where["school"])
    elif where.get("district"):
        district = get_object_or_404(request.scope.districts(), code=where["district"])
    if settings.MONITORING_REFRESH_ON_REQUEST:
        completion_summary_refresh(survey=survey)
    overview = completion_overview(scope=request.scope, survey=survey, district=district, school=school)
    sort = where.get("sort") or "name"
    rows = completion_rows(overview.children, sort=sort, query=where.get("q") or "", below=where.get("below"))
    until = min(timezone.now(), survey.closes_at or timezone.now())
    tables, charts = monitoring_charts(overview, rows, hours=completions_per_hour(
        overview.whole, opens_at=survey.opens_at, until=until))
    return render(request, "staff/monitoring.html", {
        "survey": survey, "overview": overview, "whole": overview.whole, "rows": rows, "form": form,
        "columns": sort_columns(request.GET, sort),
        "charts": charts, "tables": tables,
    })


@staff_view()
def school_non_responders(request, slug, school_code, format):
    """Who at the school (one grade with ?grade=) has not finished, as CSV or a printable PDF; names and codes
    only for roles that may see codes."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.GET.get("grade")
    people = non_responders(scope=request.scope, survey=survey, school=school, grade=grade)
    name = f"{survey.slug}-{school.code}{_grade_suffix(grade)}-not-finished.{format}"
    response = _attachment("application/pdf" if format == "pdf" else "text/csv; charset=utf-8", name)
    write = non_responders_write_pdf if format == "pdf" else non_responders_write_csv
    write(scope=request.scope, survey=survey, school=school, people=people, stream=response,
          about=f", grade {grade}" if grade is not None else "")
    return response


def _attachment(content_type, filename):
    """An empty download response; the caller writes the file into it."""
    response = HttpResponse(content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _grade_suffix(grade):
    return f"-grade-{slugify(grade)}" if grade is not None else ""


# ---------------------------------------------------------------- rosters

@accepts_uploads
@staff_view("can_manage_people")
def roster_new(request, slug):
    survey = get_object_or_404(Survey, slug=slug)
    form = RosterUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            roster = roster_upload(scope=request.scope, survey=survey, file=upload, filename=upload.name)
        except TableError as error:
            form.add_error("file", str(error))
        else:
            roster_check_task.delay(roster.pk)  # in-process on the embedded default
            return redirect("staff:roster", slug=survey.slug, roster_id=roster.pk)
    return render(request, "staff/roster_new.html", {"survey": survey, "form": form})


def _roster(request, slug, roster_id):
    survey = get_object_or_404(Survey, slug=slug)
    return survey, get_object_or_404(rosters_in_scope(scope=request.scope, survey=survey), pk=roster_id)


@staff_view("can_manage_people")
def roster_detail(request, slug, roster_id):
    survey, roster = _roster(request, slug, roster_id)
    context = {"survey": survey, "roster": roster, "totals": roster_totals(roster)}
    if roster.problem_count:
        context["problems"] = roster_problems(roster=roster)[:PROBLEMS_SHOWN]
    if roster.status == Roster.Status.APPLIED:
        context["missing"] = Paginator(roster_missing(scope=request.scope, roster=roster), PAGE_SIZE).get_page(
            request.GET.get("page"))
    return render(request, "staff/roster_detail.html", context)


@staff_view("can_manage_people")
def roster_progress(request, slug, roster_id):
    """The progress bar's poll: a small JSON answer, read from the master (the task writes it)."""
    _, roster = _roster(request, slug, roster_id)
    return JsonResponse({"status": roster.status, "status_display": roster.get_status_display(),
                         "percent": roster.progress_percent, "rows_read": roster.rows_read,
                         "text": f"{roster.rows_read} of about {roster.rows_expected} rows read."
                         if roster.status == Roster.Status.CHECKING else "",
                         "rows_expected": roster.rows_expected, "finished": not roster.is_running})


@staff_view("can_manage_people")
def roster_problems_csv(request, slug, roster_id):
    _, roster = _roster(request, slug, roster_id)
    response = _attachment("text/csv; charset=utf-8", f"roster-{roster.pk}-problems.csv")
    roster_problems_write_csv(roster=roster, stream=response)
    return response


@require_POST
@staff_view("can_manage_people")
def roster_apply(request, slug, roster_id):
    survey, roster = _roster(request, slug, roster_id)
    try:
        roster = roster_apply_start(scope=request.scope, roster_id=roster.pk)
    except RosterNotReady as error:
        messages.error(request, str(error))
    else:
        roster_apply_task.delay(roster.pk)
    return redirect("staff:roster", slug=survey.slug, roster_id=roster.pk)


@require_POST
@staff_view("can_manage_people")
def roster_discard_view(request, slug, roster_id):
    survey, roster = _roster(request, slug, roster_id)
    try:
        roster_discard(scope=request.scope, roster_id=roster.pk)
    except RosterNotReady as error:
        messages.error(request, str(error))
        return redirect("staff:roster", slug=survey.slug, roster_id=roster.pk)
    messages.info(request, _("The roster was discarded: nothing was applied."))
    return redirect("staff:survey", slug=survey.slug)


# ---------------------------------------------------------------- people

@staff_view()
def school_people(request, slug, school_code):
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    search = RespondentSearchForm(request.GET or None)
    query = status = ""
    if search.is_valid():
        query, status = search.cleaned_data["q"], search.cleaned_data["status"]
    people = respondents_of_school(scope=request.scope, survey=survey, school=school, query=query, status=status)
    grades = grade_counts(scope=request.scope, survey=survey, school=school) if request.scope.can_manage_people else []
    page = Paginator(people, PAGE_SIZE).get_page(request.GET.get("page"))
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, school=school, respondents=page.object_list)
    return render(request, "staff/school_people.html", {
        "survey": survey, "school": school, "search": search,
        "grades": grades, "slips_total": sum(count for _, count in grades),
        "slips_inline_max": settings.SLIPS_INLINE_MAX, "page": page,
    })


@staff_view()
def respondent_detail(request, slug, respondent_id):
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).select_related("school"), pk=respondent_id)
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, school=respondent.school, respondents=[respondent])
    return render(request, "staff/respondent_detail.html", {"survey": survey, "respondent": respondent,
                                                            "page": page_name(page_names(survey=survey),
                                                                              respondent.current_page)})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def respondent_reissue(request, slug, respondent_id):
    """Give a person a new code (a lost slip): first a page that says what it does, whose button posts ``confirm``;
    then their page, which offers the replacement slip."""
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).select_related("school"), pk=respondent_id)
    if not ConfirmForm.confirmed(request):
        return render(request, "staff/confirm_reissue.html", {"survey": survey, "respondent": respondent})
    respondent_reissue_code(scope=request.scope, respondent_id=respondent.pk)
    messages.success(request, _("A new code was issued. The old code no longer works; the answers are kept."),
                     extra_tags="reissued")
    return redirect("staff:respondent", slug=survey.slug, respondent_id=respondent.pk)


@staff_view("can_manage_people")
def respondent_slip_pdf(request, slug, respondent_id):
    """One person's code slip (a replacement for a lost one) as a PDF download; audited like the school's."""
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).filter(withdrawn_at=None, school__isnull=False),
                                   pk=respondent_id)
    response = _attachment("application/pdf", f"{survey.slug}-{slugify(respondent.external_id or respondent.pk)}"
                                              "-slip.pdf")
    respondent_slip_print(scope=request.scope, survey=survey, respondent_id=respondent.pk,
                          login_url=_login_url(request), stream=response)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def respondents_withdraw(request, slug):
    """Withdraw the people chosen (?respondent=, or posted by another page's form): first a page that lists who,
    whose button posts them again with ``confirm``; only that withdraws."""
    if not ConfirmForm.confirmed(request):
        return _withdraw_confirm(request, slug)
    return _withdraw_or_restore(request, slug, withdraw=True)


def _withdraw_confirm(request, slug):
    survey = get_object_or_404(Survey, slug=slug)
    back = _back_to(request, reverse("staff:survey", args=[survey.slug]))
    form = RespondentIdsForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["respondent"]))
        return redirect(back)
    # Those the service would withdraw: in the scope and not withdrawn already.
    people = (request.scope.respondents(survey).filter(pk__in=form.cleaned_data["respondent"], withdrawn_at=None)
              .select_related("school").order_by("school__code", "external_id", "pk"))
    ids = list(people.values_list("pk", flat=True))
    return render(request, "staff/confirm_withdraw.html", {
        "survey": survey, "ids": ids, "people": people[:CONFIRM_SHOWN], "back": back,
        "left_out": len(set(form.cleaned_data["respondent"])) - len(ids),
        "hidden": [("respondent", pk) for pk in ids] + [("next", back)],
        "button": _("Withdraw %(count)s") % {"count": _people_count(len(ids))}})


def _people_count(count):
    return ngettext("%(count)s person", "%(count)s people", count) % {"count": count}


@require_POST
@staff_view("can_manage_people")
def respondents_restore(request, slug):
    return _withdraw_or_restore(request, slug, withdraw=False)


def _withdraw_or_restore(request, slug, *, withdraw):
    survey = get_object_or_404(Survey, slug=slug)
    form = RespondentIdsForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["respondent"]))
    else:
        change = respondent_withdraw if withdraw else respondent_restore
        count = change(scope=request.scope, respondent_ids=form.cleaned_data["respondent"], survey=survey)
        messages.success(request, (_("%(count)s withdrawn: their codes no longer log in.") if withdraw else
                                   _("%(count)s restored: their codes log in again.")) % {"count": count})
    return redirect(_back_to(request, reverse("staff:survey", args=[survey.slug])))


def _back_to(request, default):
    """The staff page the form came from (a path of this site), or ``default``."""
    target = (request.POST if request.method == "POST" else request.GET).get("next", "")
    return target if target.startswith("/staff/") and "//" not in target else default


def _login_url(request):
    return settings.SURVEY_PUBLIC_URL or request.build_absolute_uri(reverse("surveys:login"))


@staff_view("can_manage_people")
def school_slips_pdf(request, slug, school_code):
    """The school's code slips (one grade with ?grade=), a cover sheet per grade, as a PDF download; a school
    with more than SLIPS_INLINE_MAX slips is prepared by Celery instead (``slips_new``)."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.GET.get("grade")
    if slips_count(scope=request.scope, survey=survey, school=school, grade=grade) > settings.SLIPS_INLINE_MAX:
        messages.info(request, _("That is a lot of slips: prepare them below, and download them when ready."))
        return redirect("staff:school", slug=survey.slug, school_code=school.code)
    response = _attachment("application/pdf", f"{survey.slug}-{school.code}{_grade_suffix(grade)}-slips.pdf")
    slips_print(scope=request.scope, survey=survey, school=school, grade=grade, login_url=_login_url(request),
                stream=response)
    return response


@require_POST
@staff_view("can_manage_people")
def slips_new(request, slug, school_code):
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.POST.get("grade")
    job = slips_job_start(scope=request.scope, survey=survey, school=school, grade=grade)
    slips_job_task.delay(job.pk, _login_url(request))  # in-process on the embedded default
    return redirect("staff:slips", slug=survey.slug, job_id=job.pk)


def _job_progress(job, text):
    """A background job's progress for staff/static/staff/progress.js."""
    return JsonResponse({"status": job.status, "status_display": job.get_status_display(),
                         "percent": job.progress_percent, "finished": not job.is_running, "text": text})


def _slips_job(request, slug, job_id):
    survey = get_object_or_404(Survey, slug=slug)
    return survey, get_object_or_404(slips_jobs(scope=request.scope).filter(survey=survey), pk=job_id)


@staff_view("can_manage_people")
def slips_detail(request, slug, job_id):
    survey, job = _slips_job(request, slug, job_id)
    return render(request, "staff/slips_detail.html", {"survey": survey, "job": job})


@staff_view("can_manage_people")
def slips_progress(request, slug, job_id):
    _, job = _slips_job(request, slug, job_id)
    return _job_progress(job, f"{job.slips_done} of {job.slips_total} slips.")


@staff_view("can_manage_people")
def slips_download(request, slug, job_id):
    _, job = _slips_job(request, slug, job_id)
    if job.status != job.Status.DONE:
        return redirect("staff:slips", slug=slug, job_id=job.pk)
    return FileResponse(job.file.open("rb"), as_attachment=True, filename=job.file.name.rsplit("/", 1)[-1],
                        content_type="application/pdf")


@staff_view("can_see_codes")
def school_codes_csv(request, slug, school_code):
    """The school's codes for a parents' mail merge: one row per respondent who may log in."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    response = _attachment("text/csv; charset=utf-8", f"{survey.slug}-{school.code}-codes.csv")
    codes_write_csv(scope=request.scope, survey=survey, school=school, login_url=_login_url(request),
                    stream=response)
    return response


# ---------------------------------------------------------------- exports

@staff_view("can_export")
def exports(request, slug):
    """Ask for an export (POST: queued for Celery, then its page), and the exports one asked for."""
    survey = get_object_or_404(Survey, slug=slug)
    form = ExportForm(request.POST or None, scope=request.scope)
    if request.method == "POST" and form.is_valid():
        job = export_job_start(scope=request.scope, survey=survey, format=form.cleaned_data["format"],
                               options=form.options())
        export_job_task.delay(job.pk)  # in-process on the embedded default
        return redirect("staff:export", slug=survey.slug, job_id=job.pk)
    return render(request, "staff/exports.html", {
        "survey": survey, "form": form,
        "jobs": export_jobs(scope=request.scope).filter(survey=survey)[:20],
        "retention_days": settings.EXPORT_RETENTION_DAYS,
    }, status=400 if form.errors else 200)


def _export_job(request, slug, job_id):
    survey = get_object_or_404(Survey, slug=slug)
    return survey, get_object_or_404(export_jobs(scope=request.scope).filter(survey=survey), pk=job_id)


@staff_view("can_export")
def export_detail(request, slug, job_id):
    survey, job = _export_job(request, slug, job_id)
    return render(request, "staff/export_detail.html", {"survey": survey, "job": job})


@staff_view("can_export")
def export_progress(request, slug, job_id):
    _, job = _export_job(request, slug, job_id)
    return _job_progress(job, f"{job.rows_done} of {job.rows_total} respondents.")


@staff_view("can_export")
def export_download(request, slug, job_id):
    """Send the person who asked to a short-lived link to the file: an S3 presigned URL where the storage makes
    them, else a signed link of this app's own (``export_file``)."""
    survey, job = _export_job(request, slug, job_id)
    try:
        file = export_job_file(scope=request.scope, job=job)
    except ExportJob.DoesNotExist:
        messages.error(request, _("This export is not ready, or it has expired: ask for it again."))
        return redirect("staff:export", slug=survey.slug, job_id=job.pk)
    filename = file.name.rsplit("/", 1)[-1]
    if isinstance(file.storage, FileSystemStorage):
        token = signing.dumps({"job": job.pk, "user": request.user.pk}, salt=EXPORT_LINK_SALT)
        return redirect("staff:export-file", token=token)
    # The storage signs links for EXPORT_LINK_SECONDS (its querystring_expire: config/settings/production.py).
    return redirect(file.storage.url(file.name, parameters={
        "ResponseContentDisposition": f'attachment; filename="{filename}"'}))


@staff_view("can_export")
def export_file(request, token):
    """An export's file, for a signed link made a moment ago for the person now asking (the embedded default's
    stand-in for a presigned URL); an old link or someone else's is answered 404."""
    try:
        link = signing.loads(token, salt=EXPORT_LINK_SALT, max_age=settings.EXPORT_LINK_SECONDS)
    except signing.BadSignature:
        raise Http404(_("This download link has expired: download the export again from its page.")) from None
    if link.get("user") != request.user.pk:
        raise Http404(_("This download link is someone else's."))
    job = get_object_or_404(export_jobs(scope=request.scope), pk=link.get("job"), status=ExportJob.Status.DONE)
    return FileResponse(job.file.open("rb"), as_attachment=True, filename=job.file.name.rsplit("/", 1)[-1],
                        content_type="application/zip")


# ---------------------------------------------------------------- state administrators: surveys

@accepts_uploads
@staff_view("can_manage_surveys")
def survey_import(request):
    """Load a survey (XLSForm or JSON): every problem listed, nothing written; else on to its preview."""
    form = SurveyUploadForm(request.POST or None, request.FILES or None)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            survey = survey_load(scope=request.scope, source=upload, filename=upload.name,
                                 new_version=form.cleaned_data["new_version"])
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
def survey_publish(request, slug):
    """Open a survey to respondents, after a page that says what that does (its button posts ``confirm``); what
    it lacks (a text in one of its languages) is listed on its preview."""
    survey = get_object_or_404(Survey, slug=slug)
    if not ConfirmForm.confirmed(request):
        return render(request, "staff/confirm_publish.html", {
            "survey": survey, "people": request.scope.respondents(survey).filter(withdrawn_at=None).count()})
    try:
        survey_open(scope=request.scope, survey=survey)
    except DocumentError as error:
        messages.error(request, _("Not published: every text must be given in every language of the survey. "
                                  "Missing: %(gaps)s") % {"gaps": "; ".join(error.problems[:50])})
    else:
        messages.success(request, _("Published: respondents can take it."))
    return redirect("surveys:preview", slug=survey.slug)


@staff_view("can_manage_surveys")
def survey_dates(request, slug):
    """When a survey opens and closes to respondents, in the site's time zone; every problem on the form."""
    survey = get_object_or_404(Survey, slug=slug)
    form = SurveyDatesForm(request.POST or None, initial={"opens_at": survey.opens_at, "closes_at": survey.closes_at})
    if request.method == "POST" and form.is_valid():
        try:
            survey_dates_change(scope=request.scope, survey=survey, **form.cleaned_data)
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
def survey_close(request, slug):
    """Close a survey to respondents now (its closing time becomes now)."""
    survey = get_object_or_404(Survey, slug=slug)
    try:
        survey = survey_close_now(scope=request.scope, survey=survey)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("staff:survey-dates", slug=survey.slug)
    messages.success(request, _("“%(title)s” is closed: nobody can log in or save any more.") % {
        "title": survey.title})
    return redirect("staff:home")


# ---------------------------------------------------------------- state administrators: directory, staff, audit

@accepts_uploads
@staff_view("can_import_schools")
def directory_import(request):
    """Upload the school directory: it is checked, and its page shows what applying it would do."""
    form = DirectoryUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        with local_path(upload) as path:
            try:
                checked = school_directory_check(scope=request.scope, path=path, filename=upload.name)
            except TableError as error:
                form.add_error("file", str(error))
            else:
                return redirect("staff:directory-upload", upload_id=checked.pk)
    return render(request, "staff/directory_import.html", {
        "form": form, "uploads": directory_uploads(scope=request.scope)[:10]})


@staff_view("can_import_schools")
def directory_upload(request, upload_id):
    upload = get_object_or_404(directory_uploads(scope=request.scope), pk=upload_id)
    return render(request, "staff/directory_upload.html", {
        "upload": upload, "problems": directory_problems(upload)[:PROBLEMS_SHOWN],
        "districts": directory_counts(upload, "districts"), "schools": directory_counts(upload, "schools")})


@require_POST
@staff_view("can_import_schools")
def directory_upload_apply(request, upload_id):
    upload = get_object_or_404(directory_uploads(scope=request.scope), pk=upload_id)
    try:
        upload = school_directory_apply(scope=request.scope, upload_id=upload.pk)
    except DirectoryNotReady as error:
        messages.error(request, str(error))
    return redirect("staff:directory-upload", upload_id=upload.pk)


@require_POST
@staff_view("can_import_schools")
def directory_upload_discard(request, upload_id):
    upload = get_object_or_404(directory_uploads(scope=request.scope), pk=upload_id)
    try:
        school_directory_discard(scope=request.scope, upload_id=upload.pk)
    except DirectoryNotReady as error:
        messages.error(request, str(error))
        return redirect("staff:directory-upload", upload_id=upload.pk)
    messages.info(request, _("The file was discarded: nothing was applied."))
    return redirect("staff:directory")


@staff_view()
def directory(request):
    """The school directory, as far as the staff member's scope reaches: found by code or name, a page at a time."""
    search = SchoolSearchForm(request.GET or None)
    query = search.cleaned_data["q"] if search.is_valid() else ""
    schools = school_directory_search(scope=request.scope, query=query)
    return render(request, "staff/directory.html", {
        "search": search, "query": query, "page": Paginator(schools, PAGE_SIZE).get_page(request.GET.get("page"))})


@staff_view("can_manage_staff")
def staff_list(request):
    return render(request, "staff/staff_list.html", {"members": staff_accounts(scope=request.scope)})


@staff_view("can_manage_staff")
def staff_edit(request, user_id=None):
    member = None
    if user_id is not None:
        member = get_object_or_404(staff_accounts(scope=request.scope), user_id=user_id)
        initial = {"username": member.user.username, "email": member.user.email, "role": member.role,
                   "is_active": member.user.is_active,
                   "district_codes": ", ".join(d.code for d in member.districts.all()),
                   "school_codes": ", ".join(s.code for s in member.schools.all())}
    else:
        initial = {"is_active": True}
    form = StaffAccountForm(request.POST or None, initial=initial)
    if member is not None:
        form.fields["username"].disabled = True
    if request.method == "POST":
        # Every problem in one round trip: the form's own, and the service's on what the form could read.
        user_id = member.user_id if member else None
        if not form.is_valid():
            form.add_problems(staff_account_problems(scope=request.scope, account=form.account(),
                                                     password=form.cleaned_data.get("password"), user_id=user_id))
        else:
            account = form.account()
            try:
                staff_account_save(scope=request.scope, account=account, password=form.cleaned_data["password"],
                                   user_id=user_id)
            except ValidationError as error:
                form.add_problems(error.message_dict)
            else:
                messages.success(request, _("The account %(name)s was saved.") % {"name": account.username})
                return redirect("staff:staff-list")
    return render(request, "staff/staff_edit.html", {"form": form, "member": member})


@staff_view("can_read_audit")
def audit_log(request):
    form = AuditFilterForm(request.GET or None)
    entries = audit_entries(scope=request.scope, **_audit_filters(form))
    if request.GET.get("format") == "csv":
        response = _attachment("text/csv; charset=utf-8", "audit-log.csv")
        audit_write_csv(entries=entries, stream=response)
        return response
    return render(request, "staff/audit_log.html", {
        "form": form, "page": Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))})


def _audit_filters(form):
    if not form.is_valid():
        return {}
    data = form.cleaned_data
    since = until = None
    if data["since"]:
        since = timezone.make_aware(datetime.combine(data["since"], time.min))
    if data["until"]:
        until = timezone.make_aware(datetime.combine(data["until"] + timedelta(days=1), time.min))
    return {"action": data["action"], "username": data["username"], "since": since, "until": until}
