"""A survey's people: its schools and rosters, a school's people (and the login limits on its addresses), one person
(a new code). Finding people across the scope and acting on many (withdraw, restore...) is
``staff/views/search.py``."""
from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.audit import audit_codes_shown
from respondents.models import Respondent
from rosters.directory import school_directory_search
from rosters.selectors import grade_counts, login_limit_hits, respondents_search, rosters_in_scope, school_counts
from rosters.services import LoginLimitNotActive, login_limit_lift, respondent_reissue_code
from staff.access import StaffRequest, staff_view
from staff.forms.confirm import ConfirmForm
from staff.forms.office import SchoolSearchForm
from staff.forms.search import RespondentSearchForm
from staff.views.lists import PAGE_SIZE, page_of
from surveys.models import Survey
from surveys.page_names import page_name, page_names


@staff_view()
def survey_people(request: StaffRequest, slug: str) -> HttpResponse:
    """The survey's schools in the scope (a page of them, found by school or district code or name) with their
    people counted, and its roster uploads (a page of them, newest first)."""
    survey = get_object_or_404(Survey, slug=slug)
    search = SchoolSearchForm(request.GET or None)
    query = search.cleaned_data["q"] if search.is_valid() else ""
    page = page_of(request, school_directory_search(scope=request.scope, query=query))
    rosters = Paginator(rosters_in_scope(scope=request.scope, survey=survey).order_by("-created_at", "-pk"),
                        PAGE_SIZE).get_page(request.GET.get("rosters"))
    return render(request, "staff/survey_people.html", {
        "survey": survey, "search": search, "query": query, "page": page,
        "schools": school_counts(scope=request.scope, survey=survey, schools=page.object_list),
        "rosters": rosters,
    })


@staff_view()
def school_people(request: StaffRequest, slug: str, school_code: str) -> HttpResponse:
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    search = RespondentSearchForm.from_query(request.GET, can_see_codes=request.scope.can_see_codes, school=school)
    wanted = search.search()
    people: QuerySet[Respondent] | list[Respondent] = (
        respondents_search(scope=request.scope, survey=survey, search=wanted) if wanted else [])
    grades = grade_counts(scope=request.scope, survey=survey, school=school) if request.scope.can_manage_people else []
    page = page_of(request, people)
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, school=school, respondents=page.object_list)
    return render(request, "staff/school_people.html", {
        "survey": survey, "school": school, "search": search,
        "grades": grades, "slips_total": sum(count for _, count in grades),
        "slips_inline_max": settings.SLIPS_INLINE_MAX, "page": page,
        "login_limits": login_limit_hits(scope=request.scope, school=school),
    })


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def school_login_limit_lift(request: StaffRequest, slug: str, school_code: str, hit_id: int) -> HttpResponse:
    """Let the school's respondents log in again from an address refused for too many codes that did not work: a
    confirm page first, whose button posts ``confirm``; then the school's page."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    hit = get_object_or_404(school.login_limit_hits.all(), pk=hit_id)
    if hit.is_active and not ConfirmForm.confirmed(request):
        return render(request, "staff/confirm_login_limit_lift.html", {"survey": survey, "school": school, "hit": hit})
    try:
        login_limit_lift(scope=request.scope, hit_id=hit.pk, school=school, survey=survey)
    except LoginLimitNotActive:
        messages.info(request, f"Logins from {hit.address} are no longer refused: the limit was lifted, or it ended "
                               "by itself.")
    else:
        messages.success(request, f"Logins from {hit.address} are let through again. Its codes that did not work "
                                  "are forgotten; if too many are typed again, it is refused again.")
    return redirect("staff:school", slug=survey.slug, school_code=school.code)


@staff_view()
def respondent_detail(request: StaffRequest, slug: str, respondent_id: int) -> HttpResponse:
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).select_related("school"), pk=respondent_id)
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, school=respondent.school, respondents=[respondent])
    return render(request, "staff/respondent_detail.html", {"survey": survey, "respondent": respondent,
                                                            "page": page_name(page_names(survey=survey),
                                                                              respondent.current_page)})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def respondent_reissue(request: StaffRequest, slug: str, respondent_id: int) -> HttpResponse:
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
