"""Finding a survey's people across the staff member's scope, and acting on those chosen: withdraw, restore, new
codes, their slips. Every action lists who first (a confirm page) and changes only people in the scope."""
from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from accounts.audit import audit_codes_shown
from rosters.selectors import SELECTION_MAX, PeopleAction, respondents_for_action, respondents_search
from rosters.services import respondent_restore, respondent_withdraw, respondents_reissue_codes
from rosters.slips import slips_job_start_people, slips_print_people
from rosters.tasks import slips_job_task
from staff.access import staff_view
from staff.forms import ConfirmForm, PeopleActionForm, RespondentSearchForm
from staff.views.downloads import PDF, attachment
from staff.views.lists import CONFIRM_SHOWN, COUNT_CAP, back_to, page_of
from staff.views.slips import login_url
from surveys.models import Survey



@staff_view()
def people_search(request, slug):
    """The survey's people in the scope that the search finds, a page at a time; those who may act tick some (or
    take everyone found) and choose an action."""
    survey = get_object_or_404(Survey, slug=slug)
    form = RespondentSearchForm.from_query(request.GET, can_see_codes=request.scope.can_see_codes)
    search = form.search()
    people = respondents_search(scope=request.scope, survey=survey, search=search) if search else []
    page = page_of(request, people, count_cap=COUNT_CAP)
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, respondents=page.object_list)
    return render(request, "staff/people_search.html", {
        "survey": survey, "search": form, "page": page, "actions": PeopleAction.choices,
        "search_fields": [(name, form.data.get(name, "")) for name in RespondentSearchForm.base_fields if form.is_bound]})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def people_act(request, slug, action=None):
    """Do an action (the URL's, or the ``action`` posted) to the people chosen (``respondent`` ids ticked here or
    on another page, or ``everyone`` the posted search finds): first a page that lists who, whose button posts it
    all again with ``confirm``; only that changes anything. Slips come back as a PDF, or a job when many."""
    survey = get_object_or_404(Survey, slug=slug)
    back = back_to(request, reverse("staff:survey", args=[survey.slug]))
    data = (request.POST if request.method == "POST" else request.GET).copy()
    if action is not None:
        data["action"] = action
    form = PeopleActionForm(data)
    search_form = RespondentSearchForm(data, can_see_codes=request.scope.can_see_codes)
    search = search_form.search()
    if not form.is_valid() or search is None:
        errors = [error for errors in [*form.errors.values(), *search_form.errors.values()] for error in errors]
        messages.error(request, " ".join(errors))
        return redirect(back)
    action, everyone = form.cleaned_data["action"], form.cleaned_data["everyone"]
    people = respondents_for_action(scope=request.scope, survey=survey, action=action,
                                    respondent_ids=form.cleaned_data["respondent"],
                                    search=search if everyone else None)
    ids = list(people.values_list("pk", flat=True)[:SELECTION_MAX + 1])
    if len(ids) > SELECTION_MAX:
        messages.error(request, _("The search finds more than %(max)s people: narrow it (a school, a grade, a "
                                  "status) and choose again.") % {"max": f"{SELECTION_MAX:,}"})
        return redirect(back)
    # "Everyone found" acts only on the number its confirm page listed: a confirmation that names none (not posted
    # by that page) or another is shown the confirm page again.
    confirmed, expected = ConfirmForm.confirmed(request), form.cleaned_data["expected"]
    changed = everyone and confirmed and expected != len(ids)
    if not confirmed or changed or not ids:
        if changed and expected is not None:
            messages.warning(request, _("The search finds %(now)s now, not %(then)s as before: check who, and "
                                        "confirm again.") % {"now": people_count(len(ids)),
                                                              "then": expected})
        return _confirm(request, survey, action, people, ids, data=data, everyone=everyone, back=back)
    return _act(request, survey, action, ids, back=back)


# The confirm page's question and button, by action.
CONFIRM_WORDS = {
    PeopleAction.WITHDRAW: (_lazy("Withdraw %(people)s?"), _lazy("Withdraw %(people)s")),
    PeopleAction.RESTORE: (_lazy("Restore %(people)s?"), _lazy("Restore %(people)s")),
    PeopleAction.REISSUE: (_lazy("Give %(people)s new codes?"), _lazy("Give %(people)s new codes")),
    PeopleAction.SLIPS: (_lazy("Print the slips of %(people)s?"), _lazy("Print the slips of %(people)s")),
}


def _confirm(request, survey, action, people, ids, *, data, everyone, back):
    chosen = ([("everyone", "on"), ("expected", len(ids))] + [(name, data.get(name, "")) for name in RespondentSearchForm.base_fields]
              if everyone else [("respondent", pk) for pk in ids])
    question, button = CONFIRM_WORDS[PeopleAction(action)]
    return render(request, "staff/confirm_people.html", {
        "survey": survey, "action": action, "action_label": PeopleAction(action).label, "ids": ids,
        "people": people[:CONFIRM_SHOWN], "back": back, "question": question % {"people": people_count(len(ids))},
        "left_out": 0 if everyone else len(set(data.getlist("respondent"))) - len(ids),
        "hidden": [("action", action), *chosen, ("next", back)],
        "slips_inline_max": settings.SLIPS_INLINE_MAX,
        "button": button % {"people": people_count(len(ids))}})
def _act(request, survey, action, ids, *, back):
    scope = request.scope
    if action == PeopleAction.SLIPS:
        if len(ids) > settings.SLIPS_INLINE_MAX:
            job = slips_job_start_people(scope=scope, survey=survey, respondent_ids=ids)
            slips_job_task.delay(job.pk, login_url(request))  # in-process on the embedded default
            return redirect("staff:slips", slug=survey.slug, job_id=job.pk)
        response = attachment(PDF, f"{slugify(survey.slug)}-{len(ids)}-people-slips.pdf")
        slips_print_people(scope=scope, survey=survey, respondent_ids=ids, login_url=login_url(request),
                           stream=response)
        return response
    if action == PeopleAction.REISSUE:
        count = respondents_reissue_codes(scope=scope, survey=survey, respondent_ids=ids)
        messages.success(request, _("%(count)s given new codes: their old codes no longer work; answers are kept. "
                                    "Print their slips again.") % {"count": count})
    else:
        change = respondent_withdraw if action == PeopleAction.WITHDRAW else respondent_restore
        count = change(scope=scope, survey=survey, respondent_ids=ids)
        messages.success(request, (_("%(count)s withdrawn: their codes no longer log in.")
                                   if action == PeopleAction.WITHDRAW else
                                   _("%(count)s restored: their codes log in again.")) % {"count": count})
    return redirect(back)


def people_count(count):
    return ngettext("%(count)s person", "%(count)s people", count) % {"count": count}
