"""The five survey-taking views (login, display, content, change-page, complete) and logout.

Views are thin: they read the respondent from the session, validate with a
form, and call one selector or service. See docs/architecture.md for the
request flow and each view's query budget.
"""
import math
import uuid
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Literal

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from infra.db_router import uses_forced_read_router
from infra.errors import ajax_error, is_ajax
from infra.faults import RETRY_AFTER_SECONDS
from respondents.models import Nav, Respondent
from respondents.selectors import (
    RespondentState,
    answers_for_questions,
    missing_required,
    respondent_answers,
    respondent_for_code,
)
from respondents.services import PageSaveRefused, PageSaveResult, page_save, respondent_set_language
from surveys.flow import Route, SurveyFlow
from surveys.languages import has_interface
from surveys.models import Question
from surveys.rules import default_message
from surveys.selectors import PageDefinition, page_count, page_definition, survey_flow, survey_get
from taking.forms import LanguageForm, LoginForm, PageForm, bound_questions, page_rules_data
from taking.login_limits import respondent_logged_in, respondent_login_failed, respondent_login_wait
from taking.respondent_session import (
    LANGUAGE_KEY,
    RESPONDENT_KEY,
    SURVEY_KEY,
    RespondentRequest,
    SessionEnded,
    chosen_language,
    current_respondent,
    in_language,
    page_idle_seconds,
    respondent_checked,
    respondent_required,
    session_code,
    session_end,
    session_ended,
    session_keep_rule_answers,
    session_rule_answers,
    session_seen,
    session_start,
    survey_closed,
    survey_is_open,
    survey_language,
)
from taking.script_messages import SCRIPT_MESSAGES, script_messages_json

LOGIN_UNAVAILABLE = gettext_lazy("We cannot log you in right now. Please wait a minute and try again.")
LOGIN_FAILED = gettext_lazy("That access code did not work. Check it against your slip and try again.")
CODE_WITHDRAWN = gettext_lazy("This access code is no longer in use. Ask the person who gave you your slip.")


# Every respondent page is never_cache (Cache-Control: no-store): they show
# answers and codes, and school computers are shared.

@in_language
@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@uses_forced_read_router
def survey_login(request: HttpRequest) -> HttpResponse:
    form = LoginForm(request.POST or None)
    if request.method == "POST":
        wait = respondent_login_wait(request)
        if wait:
            return _too_many_failed_logins(request, form, wait)
    if request.method == "POST" and form.is_valid():
        respondent = respondent_for_code(typed_code=form.cleaned_data["access_code"])
        survey = survey_get(survey_id=respondent.survey_id) if respondent else None
        if respondent is None or survey is None:
            respondent_login_failed(request)
            form.add_error("access_code", LOGIN_FAILED)
        elif respondent.is_withdrawn:
            form.add_error("access_code", CODE_WITHDRAWN)
        elif respondent.is_completed:
            return render(request, "taking/message.html", {"survey": survey, "message_kind": "completed"})
        elif not survey_is_open(survey):
            return survey_closed(request, survey)
        elif session_start(request, respondent, language=survey_language(survey, respondent, request)):
            respondent_logged_in(request, respondent)
            return _logged_in(request, respondent)
        else:
            form.add_error(None, LOGIN_UNAVAILABLE)
            response = render(request, "taking/login.html", {"form": form}, status=503)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
    return render(request, "taking/login.html", {"form": form}, status=400 if form.errors else 200)


def _logged_in(request: HttpRequest, respondent: Respondent) -> HttpResponse:
    """Go to the survey, in the session's language; one chosen on the login page is kept as the respondent's."""
    language = request.session[LANGUAGE_KEY]
    if chosen_language(request) == language != respondent.language:
        respondent_set_language(respondent_id=respondent.pk, language=language)
    return redirect("surveys:display")


def _too_many_failed_logins(request: HttpRequest, form: LoginForm, wait: int) -> HttpResponse:
    """Answer a login from an address with too many failed codes: 429, Retry-After, and when to try again."""
    minutes = math.ceil(wait / 60)
    form.add_error(None, ngettext(
        "Too many codes that did not work were typed from your network. Please wait %(minutes)s minute, "
        "then try again.",
        "Too many codes that did not work were typed from your network. Please wait %(minutes)s minutes, "
        "then try again.",
        minutes,
    ) % {"minutes": minutes})
    response = render(request, "taking/login.html", {"form": form}, status=429)
    response["Retry-After"] = str(wait)
    return response


@in_language
@require_POST
@never_cache
def survey_logout(request: HttpRequest) -> HttpResponse:
    """Log out without saving: the page's script when the person did not answer the idle warning (reason=idle).
    "Save and log out" saves the page first: a ``nav`` of the page's form (``survey_change_page``)."""
    session_end(request)
    if request.POST.get("reason") == "idle":
        return session_ended(request, timed_out=True)
    messages.info(request, _("You have logged out. Your saved answers are kept: log in again with your code to go on."))
    return redirect("surveys:login")


@in_language
@require_POST
@never_cache
@uses_forced_read_router
@respondent_required
def survey_keep_alive(request: RespondentRequest) -> HttpResponse:
    """Keep an idle respondent logged in: the idle warning's "Keep me logged in" button."""
    session_seen(request, force=True)
    return JsonResponse({"logged_in": True, "idle_seconds": page_idle_seconds()})


@in_language
@require_safe
@never_cache
@uses_forced_read_router
@respondent_required
def survey_display(request: RespondentRequest) -> HttpResponse:
    respondent = current_respondent(request)
    if respondent.is_completed:
        return redirect("surveys:complete")
    # min(): the survey may have lost pages since this respondent's last save.
    number = min(respondent.current_page, page_count(survey=request.survey))
    definition = page_definition(survey=request.survey, number=number)
    if definition is None:  # no page at all: respondent_required lets no such survey through
        return _page_not_found(request, number)
    return _show_page(request, definition, respondent=respondent)


@in_language
@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@uses_forced_read_router
@respondent_required
def survey_page(request: RespondentRequest, number: int) -> HttpResponse:
    """Dispatch /take/page/<n>/: GET (and HEAD) is survey_content, POST is survey_change_page."""
    if request.method == "POST":
        return survey_change_page(request, number)
    return survey_content(request, number)


def survey_content(request: RespondentRequest, number: int) -> HttpResponse:
    """Page ``number`` with the respondent's saved answers: a fragment for Ajax, else the whole page."""
    definition = page_definition(survey=request.survey, number=number)
    if definition is None:
        return _page_not_found(request, number)
    return _show_page(request, definition, fragment=is_ajax(request), elsewhere="redirect")


def _show_page(request: RespondentRequest, definition: PageDefinition, *, fragment: bool = False,
               elsewhere: Literal["show", "redirect"] = "show", respondent: Respondent | None = None) -> HttpResponse:
    """Render ``definition``'s page with the respondent's answers, or, if it does not apply to them, the nearest
    page that does: shown in its place (``elsewhere="show"``, the resume) or redirected to (a page's own URL).

    Without ``respondent`` (read by the caller) the respondent is read and checked with the page's answers, in
    their query; a completed response goes to the thank-you page."""
    survey = definition.survey
    flow = survey_flow(survey=survey)
    if respondent is None:
        state, saved, answers, stored = _page_answers(request, flow, definition, with_respondent=True)
        if respondent_checked(request, state).is_completed:
            return redirect("surveys:complete")
    else:
        _, saved, answers, stored = _page_answers(request, flow, definition)
    route = flow.route(definition.number, answers)
    if definition.number not in route.pages:
        number = route.resolve(definition.number)
        if elsewhere == "redirect":
            return redirect("surveys:content", number=number)
        nearest = page_definition(survey=survey, number=number)
        if nearest is None:  # never: route.resolve() names one of the survey's pages
            return _page_not_found(request, number)
        definition = nearest
        _, saved, answers, stored = _page_answers(request, flow, definition)
        route = flow.route(number, answers)
    return _render_page(request, definition, route=route, answers=answers, stored=stored, saved=saved,
                        fragment=fragment)


def page_fragment(request: RespondentRequest, definition: PageDefinition) -> HttpResponse:
    """Return what ``survey_content`` answers for ``definition``'s page once its request is checked: the page with
    the respondent's answers, as the fragment survey.js swaps in (``request.respondent_id`` and the session's
    code as the view's decorators leave them). Public for the tools that time the render (bench/microbench.py)."""
    return _show_page(request, definition, fragment=True)


def _page_answers(request: RespondentRequest, flow: SurveyFlow, definition: PageDefinition, *,
                  with_respondent: bool = False
                  ) -> tuple[RespondentState | None, dict[int, str], dict[str, str], dict[str, str]]:
    """Return ``(respondent, saved, answers, stored)``: the page's saved answers ``{question_id: value}``, the
    answers its rules read as they read them (``flow.effective``) and as stored, from one query, which with
    ``with_respondent`` reads the respondent too (``respondent_answers``; else ``respondent`` is None); refresh the
    session's copy of the rules' answers (``session_keep_rule_answers``)."""
    number = definition.number
    codes = flow.page_reads.get(number, frozenset())
    respondent_id, questions, survey = request.respondent_id, definition.answerable.values(), definition.survey
    respondent: RespondentState | None
    if with_respondent:
        respondent, saved, facts = respondent_answers(respondent_id=respondent_id, questions=questions, survey=survey,
                                                      codes=codes)
    else:
        respondent, (saved, facts) = None, answers_for_questions(respondent_id=respondent_id, questions=questions,
                                                                 survey=survey, codes=codes)
    if not codes and number not in flow.ruled_pages and not flow.page_rules:
        return respondent, saved, {}, {}
    stored = {**facts, **{code: saved.get(q.pk, "") for code, q in definition.answerable.items()}}
    kept = codes | (flow.session_codes & definition.answerable.keys())
    if kept:
        session_keep_rule_answers(request, {code: stored.get(code, "") for code in kept})
    return respondent, saved, flow.effective(stored, page=number), stored


def _rule_answers(request: RespondentRequest, codes: AbstractSet[str] | None) -> dict[str, str]:
    """The saved answers to ``codes`` that a page save's rules read: the session's copy, else the database's."""
    if not codes:
        return {}
    answers = session_rule_answers(request, codes)
    if answers is None:
        answers = answers_for_questions(respondent_id=request.respondent_id, questions=(), survey=request.survey,
                                        codes=codes)[1]
        answers = {code: answers.get(code, "") for code in codes}
        session_keep_rule_answers(request, answers)
    return answers


def survey_change_page(request: RespondentRequest, number: int) -> HttpResponse:
    """Validate and save page ``number``, then move on as ``nav`` says (or, for "Save and log out", stay on it and
    end the session)."""
    definition = page_definition(survey=request.survey, number=number)
    if definition is None:
        return _page_not_found(request, number)
    flow = survey_flow(survey=request.survey)
    facts = _rule_answers(request, flow.page_reads.get(number))
    form = PageForm(definition, request.POST, flow=flow, facts=facts)
    values = form.stored_values() if form.is_valid() else None
    if values is None:
        if is_ajax(request):
            return JsonResponse({"saved": False, "errors": form.errors}, status=400)
        return _render_page(request, definition, route=form.route, answers=form.answers, stored=facts,
                            data=request.POST, errors=form.errors, status=400)
    try:
        result = page_save(
            respondent_id=request.respondent_id, definition=definition, values=values,
            save_id=form.cleaned_data["save_id"], nav=form.cleaned_data["nav"], access_code=session_code(request),
            route=form.route,
        )
    except PageSaveRefused as refused:
        if refused.reason == PageSaveRefused.GONE:
            raise SessionEnded from refused
        if is_ajax(request):
            message = _("You have already finished this survey, so answers can no longer be changed.")
            return ajax_error(message, status=409, complete_url=reverse("surveys:complete"))
        return redirect("surveys:complete")

    if form.cleaned_data["nav"] == Nav.LOGOUT:
        return _saved_and_logged_out(request, result)
    if flow.session_codes and not result.replayed:
        on_page = flow.session_codes & definition.answerable.keys()
        kept = {question.code: value for question, value in values.items() if question.code in on_page}
        session_keep_rule_answers(request, kept, forget=on_page - kept.keys())
    if is_ajax(request):
        return JsonResponse(_save_payload(result))
    if result.completed:
        return redirect("surveys:complete")
    if result.missing:
        saved = answers_for_questions(respondent_id=request.respondent_id, questions=definition.answerable.values())[0]
        return _render_page(request, definition, route=form.route, answers=form.answers, stored=facts, saved=saved,
                            missing=result.missing)
    if result.next_page == number and form.cleaned_data["nav"] == Nav.NEXT:
        # Next on what the answers made the last page that applies: it comes back offering Finish.
        messages.info(request, SCRIPT_MESSAGES["last_page"])
    return redirect("surveys:display")


def _saved_and_logged_out(request: HttpRequest, result: PageSaveResult) -> HttpResponse:
    """End the session once "Save and log out" saved the page (it stays the page the survey resumes on); say so on
    the login page."""
    session_end(request)
    messages.info(request, _("Your answers are saved and you have logged out. Log in again with your code to go on "
                             "where you left off."))
    if is_ajax(request):
        return JsonResponse({**_save_payload(result), "logged_out": True, "login_url": reverse("surveys:login")})
    return redirect("surveys:login")


@in_language
@require_safe
@never_cache
@uses_forced_read_router
@respondent_required
def survey_complete(request: RespondentRequest) -> HttpResponse:
    respondent = current_respondent(request)
    if respondent.is_completed:
        return render(request, "taking/complete.html", {"survey": request.survey, "respondent": respondent})
    missing = missing_required(respondent_id=respondent.pk, survey=request.survey)
    if missing:
        return redirect("surveys:content", number=min(missing))
    # Nothing required is missing, but the respondent has not pressed Finish yet.
    return redirect("surveys:content", number=page_count(survey=request.survey))


@in_language
@require_POST
@never_cache
@uses_forced_read_router
def survey_switch_language(request: HttpRequest) -> HttpResponse:
    """The language switcher of every respondent page: show the survey (or the login page) in another language.

    A respondent in a session takes the survey in it from now on, and on their next login (it is kept with them);
    before logging in, it is kept in a cookie and becomes theirs at login if their survey offers it.
    """
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return render(request, "taking/message.html", {"message": form.errors.as_text()}, status=400)
    language = form.cleaned_data["language"]
    survey = survey_get(survey_id=request.session.get(SURVEY_KEY)) if request.session.get(RESPONDENT_KEY) else None
    if survey is None and not has_interface(language):
        # Before logging in there is no survey to speak it: only the interface's own languages.
        return render(request, "taking/message.html", {"message": _("That is not a language this site knows.")},
                      status=400)
    if survey is not None:
        if not survey.offers(language):
            return render(request, "taking/message.html", {"survey": survey, "message": _(
                "This survey is not offered in that language.")}, status=400)
        request.session[LANGUAGE_KEY] = language
        respondent_set_language(respondent_id=request.session[RESPONDENT_KEY], language=language)
    back = form.cleaned_data["next"]
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = reverse("surveys:display" if survey else "surveys:login")
    response = redirect(back)
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
                        samesite="Lax", secure=request.is_secure(), httponly=True)
    return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Explain a refused POST (stale page, expired or missing CSRF cookie) instead of Django's debug page."""
    message = _("This page is out of date or your session has ended. Reload the page, or log in again, and try once more.")
    if is_ajax(request):
        return ajax_error(message, status=403, login_url="/")
    return render(request, "taking/message.html", {"message_kind": "csrf", "message": message}, status=403)


def _render_page(request: HttpRequest, definition: PageDefinition, *, route: Route | None, answers: Mapping[str, str],
                 stored: Mapping[str, str] | None = None, saved: Mapping[int, str] | None = None,
                 fragment: bool = False, data: QueryDict | None = None,
                 errors: Mapping[str, Sequence[object]] | None = None,
                 missing: Mapping[int, Sequence[Question]] | None = None, status: int = 200) -> HttpResponse:
    flow = survey_flow(survey=definition.survey)
    context = {
        "survey": definition.survey,
        "definition": definition,
        "route": route,
        "rules": page_rules_data(definition, flow=flow, answers=answers, stored=stored),
        "items": bound_questions(definition, flow=flow, answers=answers, saved=saved, data=data, errors=errors),
        "error_list": _error_list(definition, errors),
        "missing": _missing_summary(missing),
        "save_id": uuid.uuid4(),
        "nav": Nav,
    }
    # The fragment is Jinja2 (fast, see docs/performance.md); the page around it is a Django template.
    page_html = render_to_string("taking/page.html", context, request=request, using="jinja2")
    if fragment:
        return HttpResponse(page_html, status=status)
    # Safe: Jinja2 rendered the fragment with autoescape on (TEMPLATES' OPTIONS).
    context.update(page_html=mark_safe(page_html), idle_seconds=page_idle_seconds(),  # noqa: S308
                   script_messages=script_messages_json(),
                   idle_warning_seconds=settings.SESSION_IDLE_WARNING_SECONDS,
                   idle_minutes=settings.SESSION_IDLE_TIMEOUT_SECONDS // 60)
    return render(request, "taking/take.html", context, status=status)


def _error_list(definition: PageDefinition, errors: Mapping[str, Sequence[object]] | None) -> list[dict[str, object]]:
    """Return ``[{"name", "prompt", "message"}]`` for the error summary; prompt is empty for non-question fields."""
    return [
        {"name": name, "prompt": question.translated("prompt") if question else "", "message": message}
        for name, messages in (errors or {}).items()
        for question in [definition.answerable.get(PageForm.answer_code(name) or "")]  # no question's code is ""
        for message in messages
    ]


def _page_not_found(request: HttpRequest, number: int) -> HttpResponse:
    message = _("There is no page %(number)s in this survey.") % {"number": number}
    if is_ajax(request):
        return ajax_error(message, status=404)
    return render(request, "taking/message.html", {"message_kind": "not_found", "message": message}, status=404)


def _missing_summary(missing: Mapping[int, Sequence[Question]] | None) -> list[dict[str, object]]:
    """Return ``[{"page": n, "url": ..., "fields": [{"name", "prompt", "message"}]}]`` for templates and JSON."""
    return [
        {
            "page": number,
            "url": reverse("surveys:content", args=[number]),
            "fields": [
                {"name": PageForm.answer_name(q.code), "prompt": q.translated("prompt"),
                 "message": q.translated("required_message") or default_message(q.kind, "required")}
                for q in questions
            ],
        }
        for number, questions in sorted((missing or {}).items())
    ]


def _save_payload(result: PageSaveResult) -> dict[str, object]:
    return {
        "saved": True,
        "page": result.page,
        "next_page": result.next_page,
        "next_url": reverse("surveys:content", args=[result.next_page]),
        "progress": result.progress,
        "completed": result.completed,
        "complete_url": reverse("surveys:complete") if result.completed else None,
        "missing": _missing_summary(result.missing),
    }
