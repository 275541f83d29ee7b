"""Finding a survey's people across the staff member's scope, and acting on those chosen: withdraw, restore, new
codes, their slips. Every action lists who first (a confirm page, saying who it leaves out and why) and changes only
people in the scope; after new codes, the same people stay chosen, their slips one click away."""
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, NotRequired, TypedDict, Unpack

from django.conf import settings
from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from accounts.audit import audit_codes_shown
from accounts.scopes import Scope
from respondents.models import Respondent
from rosters.selectors import (
    SELECTION_MAX,
    Chosen,
    LeftOut,
    PeopleAction,
    PeopleSearch,
    people_chosen,
    people_left_out,
    respondents_for_action,
    respondents_search,
)
from rosters.services import respondent_restore, respondent_withdraw, respondents_reissue_codes
from rosters.slips import slips_job_start_people, slips_print_people
from rosters.tasks import slips_job_task
from staff.access import StaffRequest, staff_view
from staff.forms.confirm import ConfirmForm
from staff.forms.search import PeopleActionForm, RespondentSearchForm
from staff.views.downloads import PDF, attachment, download_done
from staff.views.lists import CONFIRM_SHOWN, COUNT_CAP, back_to, page_of
from staff.views.slips import login_url, slips_done
from surveys.models import Survey

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@staff_view()
def people_search(request: StaffRequest, slug: str) -> HttpResponse:
    """The survey's people in the scope that the search finds, a page at a time; those who may act tick some (or
    take everyone found) and choose an action."""
    survey = get_object_or_404(Survey, slug=slug)
    form = RespondentSearchForm.from_query(request.GET, can_see_codes=request.scope.can_see_codes)
    search = form.search()
    people: QuerySet[Respondent] | list[Respondent] = (
        respondents_search(scope=request.scope, survey=survey, search=search) if search else [])
    page = page_of(request, people, count_cap=COUNT_CAP)
    if request.scope.can_see_codes:
        audit_codes_shown(scope=request.scope, survey=survey, respondents=page.object_list)
    return render(request, "staff/people_search.html", {
        "survey": survey, "search": form, "page": page, "actions": PeopleAction.choices,
        "search_fields": [(name, form.data.get(name, "")) for name in RespondentSearchForm.base_fields if form.is_bound]})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_people")
def people_act(request: StaffRequest, slug: str, action: str | None = None) -> HttpResponse:
    """Do an action (the URL's, or the ``action`` posted) to the people chosen (``respondent`` ids ticked here or
    on another page, ``everyone`` the posted search finds, or a ``kept`` choice: those just given new codes): first
    a page that lists who, and who is left out and why, whose button posts it all again with ``confirm``; only that
    changes anything. Slips come back as a PDF, or a job when many."""
    survey = get_object_or_404(Survey, slug=slug)
    back = back_to(request, reverse("staff:survey", args=[survey.slug]))
    data = (request.POST if request.method == "POST" else request.GET).copy()
    if action is not None:
        data["action"] = action
    form = PeopleActionForm(data)
    search_form = RespondentSearchForm(data, can_see_codes=request.scope.can_see_codes)
    search = search_form.search()
    if not form.is_valid() or search is None:
        errors = [str(error) for errors in [*form.errors.values(), *search_form.errors.values()] for error in errors]
        messages.error(request, " ".join(errors))
        return redirect(back)
    action, everyone, kept = form.cleaned_data["action"], form.cleaned_data["everyone"], form.cleaned_data["kept"]
    ticked = form.cleaned_data["respondent"]
    if kept:
        ticked = kept_choice(request, survey, kept)
        if ticked is None:
            messages.error(request, _("That list of people is no longer kept: find them again."))
            return redirect("staff:people", slug=survey.slug)
    chosen = people_chosen(scope=request.scope, survey=survey, action=action, respondent_ids=ticked,
                           search=search if everyone and not kept else None, limit=SELECTION_MAX)
    if chosen is None:
        messages.error(request, _("The search finds more than %(max)s people: narrow it (a school, a grade, a "
                                  "status) and choose again.") % {"max": f"{SELECTION_MAX:,}"})
        return redirect(back)
    # "Everyone found" acts only on the number its confirm page listed: a confirmation that names none (not posted
    # by that page) or another is shown the confirm page again.
    confirmed, expected = ConfirmForm.confirmed(request), form.cleaned_data["expected"]
    changed = everyone and not kept and confirmed and expected != len(chosen.ids)
    if not confirmed or changed or not chosen.ids:
        if changed and expected is not None:
            messages.warning(request, _("The search finds %(now)s now, not %(then)s as before: check who, and "
                                        "confirm again.") % {"now": people_count(len(chosen.ids)),
                                                              "then": expected})
        return _confirm(request, survey, action, chosen, data=data, everyone=everyone and not kept, kept=kept,
                        ticked=ticked, search=search, back=back)
    return _act(request, survey, action, chosen.ids, back=back)


class ChosenOf(TypedDict):
    """Who of a survey's people were chosen for an action (``people_left_out``'s and ``respondents_for_action``'s
    arguments)."""

    scope: Scope
    survey: Survey
    action: str
    respondent_ids: Iterable[int]
    search: NotRequired[PeopleSearch | None]


# The confirm page's question and button, by action.
CONFIRM_WORDS = {
    PeopleAction.WITHDRAW: (_lazy("Withdraw %(people)s?"), _lazy("Withdraw %(people)s")),
    PeopleAction.RESTORE: (_lazy("Restore %(people)s?"), _lazy("Restore %(people)s")),
    PeopleAction.REISSUE: (_lazy("Give %(people)s new codes?"), _lazy("Give %(people)s new codes")),
    PeopleAction.SLIPS: (_lazy("Print the slips of %(people)s?"), _lazy("Print the slips of %(people)s")),
}


def _confirm(request: StaffRequest, survey: Survey, action: str, chosen: Chosen, *, data: QueryDict, everyone: bool,
             kept: str, ticked: list[int], search: PeopleSearch, back: str) -> HttpResponse:
    hidden: list[tuple[str, object]]
    if kept:
        hidden = [("kept", kept)]
    elif everyone:
        hidden = [("everyone", "on"), ("expected", len(chosen.ids)),
                  *((name, data.get(name, "")) for name in RespondentSearchForm.base_fields)]
    else:
        hidden = [("respondent", pk) for pk in chosen.ids]
    chosen_of: ChosenOf = {"scope": request.scope, "survey": survey, "action": action, "respondent_ids": ticked,
                           "search": search if everyone else None}
    people = respondents_for_action(**chosen_of)  # those of chosen.ids, read as the search reads them
    question, button = CONFIRM_WORDS[PeopleAction(action)]
    return render(request, "staff/confirm_people.html", {
        "survey": survey, "action": action, "action_label": PeopleAction(action).label, "ids": chosen.ids,
        "people": people[:CONFIRM_SHOWN], "back": back,
        "question": question % {"people": people_count(len(chosen.ids))},
        "chosen": chosen, "left_out_said": left_out_said(chosen),
        "left_out": left_out_people(chosen, **chosen_of),
        "hidden": [("action", action), *hidden, ("next", back)],
        "slips_inline_max": settings.SLIPS_INLINE_MAX, "download_done": slips_done(len(chosen.ids)),
        "button": button % {"people": people_count(len(chosen.ids))}})


def _act(request: StaffRequest, survey: Survey, action: str, ids: list[int], *, back: str) -> HttpResponse:
    scope = request.scope
    if action == PeopleAction.SLIPS:
        if len(ids) > settings.SLIPS_INLINE_MAX:
            job = slips_job_start_people(scope=scope, survey=survey, respondent_ids=ids)
            slips_job_task.delay(job.pk, login_url(request))  # in-process on the embedded default
            return redirect("staff:slips", slug=survey.slug, job_id=job.pk)
        response = attachment(PDF, f"{slugify(survey.slug)}-{len(ids)}-people-slips.pdf")
        slips_print_people(scope=scope, survey=survey, respondent_ids=ids, login_url=login_url(request),
                           stream=response)
        return download_done(request, response)
    if action == PeopleAction.REISSUE:
        count = respondents_reissue_codes(scope=scope, survey=survey, respondent_ids=ids)
        messages.success(request, _("%(count)s given new codes: their old codes no longer work; answers are kept. "
                                    "Print their slips again.") % {"count": count})
        # The same people stay chosen, their slips one click away (a code search would not find them again).
        token = choice_keep(request, survey, ids)
        return redirect(f"{reverse('staff:people-kept', args=[survey.slug, token])}?{urlencode({'next': back})}")
    change = respondent_withdraw if action == PeopleAction.WITHDRAW else respondent_restore
    count = change(scope=scope, survey=survey, respondent_ids=ids)
    messages.success(request, (_("%(count)s withdrawn: their codes no longer log in.")
                               if action == PeopleAction.WITHDRAW else
                               _("%(count)s restored: their codes log in again.")) % {"count": count})
    return redirect(back)


@staff_view("can_manage_people")
def people_kept(request: StaffRequest, slug: str, token: str) -> HttpResponse:
    """The people just given new codes, still chosen: who they are, and their slips one click away (what the PDF
    will hold said beside the button)."""
    survey = get_object_or_404(Survey, slug=slug)
    ids = kept_choice(request, survey, token)
    # (A kept list is never longer than itself: people_chosen's limit, None past it, does not cut it.)
    slips = None if ids is None else people_chosen(scope=request.scope, survey=survey, action=PeopleAction.SLIPS,
                                                   respondent_ids=ids, limit=len(ids))
    if ids is None or slips is None:
        messages.error(request, _("That list of people is no longer kept: find them again."))
        return redirect("staff:people", slug=survey.slug)
    back = back_to(request, reverse("staff:people", args=[survey.slug]))
    people = respondents_search(scope=request.scope, survey=survey, search=PeopleSearch()).filter(pk__in=ids)
    return render(request, "staff/people_kept.html", {
        "survey": survey, "token": token, "back": back, "people": people[:CONFIRM_SHOWN], "kept": len(ids),
        "count": len(slips.ids), "chosen": slips, "left_out_said": left_out_said(slips),
        "left_out": left_out_people(slips, scope=request.scope, survey=survey, action=PeopleAction.SLIPS,
                                    respondent_ids=ids),
        "slips_inline_max": settings.SLIPS_INLINE_MAX, "download_done": slips_done(len(slips.ids)),
        "print_fields": [("action", PeopleAction.SLIPS), ("kept", token), ("next", request.get_full_path())]})


# How many choices a session keeps (several tabs may each have one; up to SELECTION_MAX ids each): the oldest goes
# first.
KEPT_CHOICES = 3
SESSION_KEY = "staff_people_kept"


def choice_keep(request: HttpRequest, survey: Survey, ids: Iterable[int]) -> str:
    """Keep ``ids`` (people of ``survey``) in the session under a new token; return the token."""
    kept = {key: value for key, value in request.session.get(SESSION_KEY, {}).items()}
    while len(kept) >= KEPT_CHOICES:
        kept.pop(next(iter(kept)))
    token = secrets.token_urlsafe(9)
    kept[token] = {"survey": survey.pk, "ids": list(ids)}
    request.session[SESSION_KEY] = kept
    return token


def kept_choice(request: HttpRequest, survey: Survey, token: str) -> list[int] | None:
    """The ids kept under ``token`` for ``survey`` (``choice_keep``), or None: another survey's, or no longer
    kept. The actions filter them by the scope again."""
    kept = request.session.get(SESSION_KEY, {}).get(token)
    return kept["ids"] if kept and kept["survey"] == survey.pk else None


def left_out_said(chosen: Chosen) -> str:
    """"119 of 120 people: 1 withdrawn left out" (nobody left out: "")."""
    if not chosen.left_out_count:
        return ""
    reasons = ", ".join(f"{count} {LeftOut(reason).label}" for reason, count in chosen.left_out.items())
    return _("%(acted)s of %(chosen)s: %(reasons)s left out") % {
        "acted": len(chosen.ids), "chosen": people_count(chosen.chosen), "reasons": reasons}


def left_out_people(chosen: Chosen, **chosen_of: Unpack[ChosenOf]) -> list[tuple[Respondent, "StrOrPromise"]]:
    """The first of those ``chosen`` left out that the scope reaches, each with why: [(Respondent, reason)]."""
    if not chosen.left_out_count:
        return []
    return [(person, LeftOut(person.left_out).label) for person in people_left_out(**chosen_of)[:CONFIRM_SHOWN]]


def people_count(count: int) -> str:
    return ngettext("%(count)s person", "%(count)s people", count) % {"count": count}
