"""The staff screens: thin views over the respondents services and selectors, every one through ``staff_view``.

Every object a view touches comes from the scope (``request.scope``): an id
outside it is answered 404, so editing a URL or a form field reaches nobody
of another school.
"""
import csv

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from respondents.access_codes import format_code
from respondents.audit import Action, audit_record
from respondents.exports import spreadsheet_safe
from respondents.models import Roster
from respondents.rosters import (
    RosterNotReady, roster_apply_start, roster_discard, roster_missing, roster_problems,
    roster_problems_write_csv, roster_totals, roster_upload,
)
from respondents.selectors import respondents_of_school, school_counts
from respondents.services import respondent_reissue_code, respondent_restore, respondent_withdraw
from respondents.tabular import TableError
from respondents.tasks import roster_apply_task, roster_check_task
from staff.access import staff_view
from staff.forms import RespondentIdsForm, RespondentSearchForm, RosterUploadForm
from surveys.models import Survey

PROBLEMS_SHOWN = 50
PAGE_SIZE = 100


class SignInView(auth_views.LoginView):
    """Django's sign-in; django-axes pauses an account or address after repeated failures."""

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
        "rosters": request.scope.rosters(survey).order_by("-created_at")[:20],
    })


# ---------------------------------------------------------------- rosters

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
    return survey, get_object_or_404(request.scope.rosters(survey), pk=roster_id)


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
                         "rows_expected": roster.rows_expected, "finished": roster.status != Roster.Status.CHECKING
                         and roster.status != Roster.Status.APPLYING})


@staff_view("can_manage_people")
def roster_problems_csv(request, slug, roster_id):
    _, roster = _roster(request, slug, roster_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="roster-{roster.pk}-problems.csv"'
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
    roster_discard(scope=request.scope, roster_id=roster.pk)
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
    return render(request, "staff/school_people.html", {
        "survey": survey, "school": school, "search": search,
        "page": Paginator(people, PAGE_SIZE).get_page(request.GET.get("page")),
    })


@staff_view()
def respondent_detail(request, slug, respondent_id):
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).select_related("school"), pk=respondent_id)
    return render(request, "staff/respondent_detail.html", {"survey": survey, "respondent": respondent})


@require_POST
@staff_view("can_manage_people")
def respondent_reissue(request, slug, respondent_id):
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey), pk=respondent_id)
    respondent_reissue_code(scope=request.scope, respondent_id=respondent.pk)
    messages.success(request, _("A new code was issued. The old code no longer works; the answers are kept."))
    return redirect("staff:respondent", slug=survey.slug, respondent_id=respondent.pk)


@require_POST
@staff_view("can_manage_people")
def respondents_withdraw(request, slug):
    return _withdraw_or_restore(request, slug, withdraw=True)


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
    target = request.POST.get("next", "")
    return target if target.startswith("/staff/") and "//" not in target else default


@staff_view("can_see_codes")
def school_codes_csv(request, slug, school_code):
    """The school's codes for a parents' mail merge: one row per respondent who may log in."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    people = (request.scope.respondents(survey).filter(school=school, withdrawn_at=None)
              .order_by("grade", "external_id").values_list("external_id", "display_name", "grade", "role",
                                                             "language", "access_code"))
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{survey.slug}-{school.code}-codes.csv"'
    response.write("\ufeff")  # Excel opens UTF-8 with a BOM as UTF-8
    writer = csv.writer(response)
    writer.writerow(["external_id", "display_name", "school_code", "school_name", "grade", "role", "language",
                     "access_code", "login_url"])
    login_url = request.build_absolute_uri(reverse("surveys:login"))
    count = 0
    for external_id, name, grade, role, language, code in people.iterator(chunk_size=2000):
        writer.writerow([spreadsheet_safe(v) for v in (external_id, name, school.code, school.name, grade, role,
                                                        language, format_code(code), login_url)])
        count += 1
    audit_record(scope=request.scope, action=Action.CODES_DOWNLOADED, survey=survey, school=school,
                 detail=f"{count} codes (mail-merge CSV)")
    return response
