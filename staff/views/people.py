"""A survey's people: its schools and rosters, a school's people, one person (a new code), withdrawing and
restoring people."""
from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts.audit import audit_codes_shown
from monitoring.summaries import page_name, page_names
from rosters.selectors import grade_counts, respondents_of_school, rosters_in_scope, school_counts
from rosters.services import respondent_reissue_code, respondent_restore, respondent_withdraw
from staff.access import staff_view
from staff.forms import ConfirmForm, RespondentIdsForm, RespondentSearchForm
from staff.views.lists import CONFIRM_SHOWN, back_to, page_of
from surveys.models import Survey

@staff_view()
def survey_people(request, slug):
    survey = get_object_or_404(Survey, slug=slug)
    return render(request, "staff/survey_people.html", {
        "survey": survey,
        "schools": school_counts(scope=request.scope, survey=survey),
        "rosters": rosters_in_scope(scope=request.scope, survey=survey).order_by("-created_at")[:20],
    })


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
    page = page_of(request, people)
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
    back = back_to(request, reverse("staff:survey", args=[survey.slug]))
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
    return redirect(back_to(request, reverse("staff:survey", args=[survey.slug])))
