"""A survey's rosters: uploading one, its check (a dry run) and its apply, each with a progress bar, its problems,
and who is missing from it once applied."""
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from fileformats.tables import TableError
from infra.request_guard import accepts_uploads
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
from rosters.selectors import rosters_in_scope
from rosters.tasks import roster_apply_task, roster_check_task
from staff.access import StaffRequest, staff_view
from staff.forms.rosters import RosterUploadForm
from staff.views.downloads import CSV, attachment
from staff.views.jobs import SurveyJobs
from staff.views.lists import PROBLEMS_SHOWN, page_of
from surveys.models import Survey


@accepts_uploads
@staff_view("can_manage_people")
def roster_new(request: StaffRequest, slug: str) -> HttpResponse:
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


class Rosters(SurveyJobs[Roster]):
    """A roster's page: its check (a progress bar counting the rows read), then its counts and problems, its apply
    (a bar without steps: one transaction), then who is missing from it."""

    def progress_text(self, roster: Roster) -> str:
        if roster.status != Roster.Status.CHECKING:
            return ""
        return f"{roster.rows_read} of about {roster.rows_expected} rows read."

    def progress(self, roster: Roster) -> dict[str, object]:
        return {**super().progress(roster), "rows_read": roster.rows_read, "rows_expected": roster.rows_expected}

    def context(self, request: StaffRequest, survey: Survey, roster: Roster) -> dict[str, object]:
        context: dict[str, object] = {"totals": roster_totals(roster)}
        if roster.problem_count:
            context["problems"] = roster_problems(roster=roster)[:PROBLEMS_SHOWN]
        if roster.status == Roster.Status.APPLIED:
            context["missing"] = page_of(request, roster_missing(scope=request.scope, roster=roster))
        return context


ROSTERS = Rosters(permission="can_manage_people", url_name="staff:roster", id_name="roster_id",
                  template="staff/roster_detail.html", context_name="roster", jobs=rosters_in_scope)
roster_detail, roster_progress = ROSTERS.page_view(), ROSTERS.progress_view()


@staff_view("can_manage_people")
def roster_problems_csv(request: StaffRequest, slug: str, roster_id: int) -> HttpResponse:
    _, roster = ROSTERS.get(request, slug, roster_id)
    response = attachment(CSV, f"roster-{roster.pk}-problems.csv")
    roster_problems_write_csv(roster=roster, stream=response)
    return response


@require_POST
@staff_view("can_manage_people")
def roster_apply(request: StaffRequest, slug: str, roster_id: int) -> HttpResponse:
    survey, roster = ROSTERS.get(request, slug, roster_id)
    try:
        roster = roster_apply_start(scope=request.scope, roster_id=roster.pk)
    except RosterNotReady as error:
        messages.error(request, str(error))
    else:
        roster_apply_task.delay(roster.pk)
    return redirect("staff:roster", slug=survey.slug, roster_id=roster.pk)


@require_POST
@staff_view("can_manage_people")
def roster_discard_view(request: StaffRequest, slug: str, roster_id: int) -> HttpResponse:
    survey, roster = ROSTERS.get(request, slug, roster_id)
    try:
        roster_discard(scope=request.scope, roster_id=roster.pk)
    except RosterNotReady as error:
        messages.error(request, str(error))
        return redirect("staff:roster", slug=survey.slug, roster_id=roster.pk)
    messages.info(request, _("The roster was discarded: nothing was applied."))
    return redirect("staff:survey", slug=survey.slug)
