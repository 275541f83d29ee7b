"""Who the respondent is: kept in the session, never taken from a request parameter.

The session holds two ids, the code and the time of the respondent's last
request, and, for a survey with skip logic, the saved answers its rules read
(``RULE_ANSWERS_KEY``), so it stays small in Redis (production) or the
database (the embedded default).

The rules' answers are kept so that a page save, like a survey without rules,
reads nothing before it writes: every page shown reads them from the database
in the query that reads the page's answers and refreshes the session's copy
when it differs, and each save updates it with what it saved. A save is so
judged on the answers its page was shown with; finishing, exports and every
page shown read the database itself.

Idle timeout: school computers are shared, so a session with no request for
``SESSION_IDLE_TIMEOUT_SECONDS`` ends, and the next request is asked to log in
again. The last-seen time is written at most once per ``activity_resolution()``
(a sixtieth of the timeout), not on every request, so most requests write no
session; the page's script is told the timeout less that resolution, warns
``SESSION_IDLE_WARNING_SECONDS`` before it, and offers "Keep me logged in"
(``survey_keep_alive``), as WCAG 2.2.1 asks.
"""
import time
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from functools import wraps
from typing import Concatenate, ParamSpec, TypeVar, cast

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from infra.errors import ajax_error, is_ajax, try_again
from infra.faults import RETRY_AFTER_SECONDS
from respondents.models import Respondent
from respondents.selectors import RespondentState, respondent_get
from surveys.languages import is_language
from surveys.models import Survey
from surveys.selectors import page_count, survey_get

RESPONDENT_KEY = "respondent_id"
SURVEY_KEY = "survey_id"
SEEN_KEY = "seen"
# The code the session logged in with: a code reissued since (a lost slip) or a
# withdrawn respondent ends the session on its next request. Sessions live on
# the server (Redis), never in the cookie.
CODE_KEY = "code"
RULE_ANSWERS_KEY = "rule_answers"
# The language the respondent takes the survey in: the roster's, or the one they switched to.
LANGUAGE_KEY = "language"


_P = ParamSpec("_P")
_Request = TypeVar("_Request", bound=HttpRequest)
# A respondent as the views read it: the row, or the state read with a page's answers.
_Respondent = TypeVar("_Respondent", Respondent, RespondentState)


class SessionEnded(Exception):
    """The session names a respondent who no longer exists; ``respondent_required`` answers it."""


class RespondentRequest(HttpRequest):
    """A request ``respondent_required`` let through: the session's respondent id and their open survey, set on it
    (a type for the views it wraps; no request is made of it)."""

    respondent_id: int
    survey: Survey


def session_start(request: HttpRequest, respondent: Respondent, *, language: str) -> bool:
    """Log ``respondent`` in, on a new session key (no session fixation); return False if it could not be stored."""
    request.session[RESPONDENT_KEY] = respondent.pk
    request.session[SURVEY_KEY] = respondent.survey_id
    request.session[CODE_KEY] = respondent.access_code
    request.session[LANGUAGE_KEY] = language
    request.session[SEEN_KEY] = int(time.time())
    # cycle_key stores the data under the new key at once, so whether the store
    # took it is known here (infra/sessions.py marks a Redis outage `unavailable`).
    request.session.cycle_key()
    return not getattr(request.session, "unavailable", False)


def session_rule_answers(request: HttpRequest, codes: AbstractSet[str]) -> dict[str, str] | None:
    """Return ``{code: stored text}`` of the answers to ``codes`` the session keeps, or None if it lacks any."""
    kept = request.session.get(RULE_ANSWERS_KEY) or {}
    if not codes <= kept.keys():
        return None
    return {code: kept[code] for code in codes}


def session_keep_rule_answers(request: HttpRequest, answers: Mapping[str, str], *,
                              forget: Iterable[str] = ()) -> None:
    """Keep ``answers`` (code to stored text) in the session, and forget ``forget``; write only on a change."""
    kept = request.session.get(RULE_ANSWERS_KEY) or {}
    changed = {**kept, **answers}
    for code in forget:
        changed.pop(code, None)
    if changed != kept:
        request.session[RULE_ANSWERS_KEY] = changed


def chosen_language(request: HttpRequest) -> str | None:
    """The language the person chose with the switcher before logging in (its cookie), or None."""
    language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return language if is_language(language) else None


def survey_language(survey: Survey, respondent: Respondent, request: HttpRequest) -> str:
    """The language a respondent logging in takes ``survey`` in: the one they chose on the login page, else the
    roster's, else the survey's first, whichever the survey offers first."""
    for language in (chosen_language(request), respondent.language):
        if language and survey.offers(language):
            return language
    return survey.default_language


def in_language(
        view: Callable[Concatenate[_Request, _P], HttpResponse]) -> Callable[Concatenate[_Request, _P], HttpResponse]:
    """Run ``view`` in the respondent's language: the session's, else the one chosen on the login page or asked
    for by the browser; the answer says which (Content-Language)."""

    @wraps(view)
    def wrapper(request: _Request, *args: _P.args, **kwargs: _P.kwargs) -> HttpResponse:
        language = request.session.get(LANGUAGE_KEY) or translation.get_language_from_request(request)
        with translation.override(language):
            response = view(request, *args, **kwargs)
        response.headers.setdefault("Content-Language", language)
        return response

    return wrapper


def session_end(request: HttpRequest) -> None:
    request.session.flush()


def activity_resolution() -> int:
    """Return how stale the session's last-seen time may be, in seconds: a sixtieth of the idle timeout."""
    return max(1, settings.SESSION_IDLE_TIMEOUT_SECONDS // 60)


def page_idle_seconds() -> int:
    """Return how long a page may stay idle before its session may end, as the page's script counts it.

    The session's last-seen time may be up to ``activity_resolution()`` older
    than the page's last request, so the page counts that much less.
    """
    return settings.SESSION_IDLE_TIMEOUT_SECONDS - activity_resolution()


def session_seen(request: HttpRequest, *, force: bool = False) -> bool:
    """Note a request of the respondent; return False if the session had already been idle too long.

    The time is written only when it is older than ``activity_resolution()``
    (or when ``force``), so most requests leave the session unchanged.
    """
    now = int(time.time())
    seen = request.session.get(SEEN_KEY, now)  # a session from before idle timeouts: counts from now
    if now - seen > settings.SESSION_IDLE_TIMEOUT_SECONDS:
        return False
    if force or now - seen >= activity_resolution() or SEEN_KEY not in request.session:
        request.session[SEEN_KEY] = now
    return True


def session_ended(request: HttpRequest, *, timed_out: bool = False) -> HttpResponse:
    """Answer a request whose session no longer names a respondent: ask them to log in again."""
    message = _("Your session has ended. Please log in again with your access code; your saved answers are kept.")
    if timed_out:
        minutes = settings.SESSION_IDLE_TIMEOUT_SECONDS // 60
        message = _(
            "You were logged out after %(minutes)s minutes without activity, to keep your answers private on a "
            "shared computer. Log in again with your access code to go on; your saved answers are kept."
        ) % {"minutes": minutes}
    if is_ajax(request):
        return ajax_error(message, status=401, login_url="/")
    messages.info(request, message)
    return redirect("surveys:login")


def survey_is_open(survey: Survey) -> bool:
    """Return whether respondents may take ``survey`` now: open by status and dates, and with pages to take."""
    return survey.is_open() and page_count(survey=survey) > 0


def survey_closed(request: HttpRequest, survey: Survey) -> HttpResponse:
    if is_ajax(request):
        return ajax_error(_("This survey is closed. Answers can no longer be saved."), status=403)
    return render(request, "taking/message.html", {"survey": survey, "message_kind": "closed"}, status=403)


def current_respondent(request: RespondentRequest) -> Respondent:
    """Return the session's respondent, read fresh from the database; raise SessionEnded if gone, withdrawn, or
    holding another code than the one the session logged in with."""
    return respondent_checked(request, respondent_get(respondent_id=request.respondent_id))


def respondent_checked(request: HttpRequest, respondent: _Respondent | None) -> _Respondent:
    """Return ``respondent`` (a Respondent, or a RespondentState read with the page's answers); raise SessionEnded
    if it is None, withdrawn, or holds another code than the one the session logged in with."""
    if respondent is None or respondent.is_withdrawn or respondent.access_code != session_code(request, respondent):
        raise SessionEnded
    return respondent


def session_code(request: HttpRequest, respondent: Respondent | RespondentState | None = None) -> str | None:
    """The code the session logged in with; a session from before codes were kept takes the respondent's own."""
    return request.session.get(CODE_KEY, respondent.access_code if respondent else None)


def respondent_required(
        view: Callable[Concatenate[RespondentRequest, _P], HttpResponse],
) -> Callable[Concatenate[HttpRequest, _P], HttpResponse]:
    """Run ``view`` only for a logged-in respondent of an open survey; set request.respondent_id and request.survey.

    The respondent row itself is read only by views that need it (``current_respondent``):
    a page save does without.
    """

    @wraps(view)
    def wrapper(request: HttpRequest, *args: _P.args, **kwargs: _P.kwargs) -> HttpResponse:
        respondent_id: int | None = request.session.get(RESPONDENT_KEY)
        survey = survey_get(survey_id=request.session.get(SURVEY_KEY)) if respondent_id else None
        if respondent_id is None or survey is None:
            if getattr(request.session, "unavailable", False):
                # The session store is away for a moment, not the session: try again, stay logged in.
                return try_again(request, seconds=RETRY_AFTER_SECONDS)
            return session_ended(request)
        if not session_seen(request):
            session_end(request)
            return session_ended(request, timed_out=True)
        if not survey_is_open(survey):
            return survey_closed(request, survey)
        # The request becomes a RespondentRequest here: the two attributes that make it one are set on it.
        checked = cast(RespondentRequest, request)
        checked.respondent_id = respondent_id
        checked.survey = survey
        try:
            return view(checked, *args, **kwargs)
        except SessionEnded:
            return session_ended(request)

    return wrapper
