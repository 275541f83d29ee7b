"""How far a survey is: completion by district, school and grade, with charts, and who has not finished."""
from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from monitoring.refresh import completion_summary_refresh
from monitoring.selectors import (
    completion_home,
    completion_overview,
    completion_rows,
    completions_per_hour,
    non_responders,
)
from monitoring.writers import non_responders_write_csv, non_responders_write_pdf
from staff.access import StaffRequest, staff_view
from staff.forms.monitoring import MonitoringFilterForm
from staff.monitoring_page import monitoring_charts, monitoring_trail, sort_columns
from staff.views.downloads import CSV, PDF, attachment, school_file_name
from surveys.models import Survey


@staff_view()
def survey_monitoring(request: StaffRequest, slug: str) -> HttpResponse:
    """Completion of the state (or the scope's schools) by district, of a district (?district=) by school, or of
    a school (?school=) by grade and role, from the summary (rebuilt on request on the embedded default, by a
    periodic task elsewhere); sorted (?sort=) and filtered (?q=, ?below=) without JavaScript, with charts.
    Without a level asked, the staff member's own (``completion_home``): a coordinator's school, their schools,
    their district."""
    survey = get_object_or_404(Survey, slug=slug)
    form = MonitoringFilterForm(request.GET)
    form.is_valid()
    where = form.cleaned_data
    home = completion_home(scope=request.scope)
    if where.get("school"):
        school, district = get_object_or_404(request.scope.schools(), code=where["school"]), None
    elif where.get("district"):
        school, district = None, get_object_or_404(request.scope.districts(), code=where["district"])
    else:
        school, district = home.school, home.district
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
        "columns": sort_columns(request.GET, sort), "trail": monitoring_trail(overview, home),
        "charts": charts, "tables": tables,
    })


@staff_view()
def school_non_responders(request: StaffRequest, slug: str, school_code: str, format: str) -> HttpResponse:
    """Who at the school (one grade with ?grade=) has not finished, as CSV or a printable PDF; names and codes
    only for roles that may see codes."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.GET.get("grade")
    people = non_responders(scope=request.scope, survey=survey, school=school, grade=grade)
    response = attachment(PDF if format == "pdf" else CSV,
                          school_file_name(survey, school, grade, f"not-finished.{format}"))
    write = non_responders_write_pdf if format == "pdf" else non_responders_write_csv
    write(scope=request.scope, survey=survey, school=school, people=people, stream=response,
          about=f", grade {grade}" if grade is not None else "")
    return response
