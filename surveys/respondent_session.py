"""Who the respondent is: kept in the session, never taken from a request parameter.

The session holds two ids and nothing else, so it stays a few bytes in Redis
(production) or a signed cookie (the embedded default).
"""
from functools import wraps

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from respondents.selectors import respondent_get
from surveys.selectors import page_count, survey_get

RESPONDENT_KEY = "respondent_id"
SURVEY_KEY = "survey_id"


class SessionEnded(Exception):
    """The session names a respondent who no longer exists; ``respondent_required`` answers it."""


def is_ajax(request):
    return request.headers.get("X-Requested-With") == "XMLHttpRequest"


def session_start(request, respondent):
    """Log ``respondent`` in, on a new session key (no session fixation); return False if it could not be stored."""
    request.session.cycle_key()
    request.session[RESPONDENT_KEY] = respondent.pk
    request.session[SURVEY_KEY] = respondent.survey_id
    # Save now rather than in the middleware, to know whether the store took it
    # (config/sessions.py marks a Redis outage as `unavailable`).
    request.session.save()
    return not getattr(request.session, "unavailable", False)


def session_end(request):
    request.session.flush()


def ajax_error(message, *, status, **extra):
    """Return the JSON an Ajax save gets when it is refused as a whole (not field by field)."""
    return JsonResponse({"saved": False, "errors": {"__all__": [message]}, **extra}, status=status)


def session_ended(request):
    """Answer a request whose session no longer names a respondent: ask them to log in again."""
    message = _("Your session has ended. Please log in again with your access code; your saved answers are kept.")
    if is_ajax(request):
        return ajax_error(message, status=401, login_url="/")
    messages.info(request, message)
    return redirect("surveys:login")


def survey_is_open(survey):
    """Return whether respondents may take ``survey`` now: open by status and dates, and with pages to take."""
    return survey.is_open() and page_count(survey=survey) > 0


def survey_closed(request, survey):
    if is_ajax(request):
        return ajax_error(_("This survey is closed. Answers can no longer be saved."), status=403)
    return render(request, "surveys/message.html", {"survey": survey, "message_kind": "closed"}, status=403)


def current_respondent(request):
    """Return the session's respondent, read fresh from the database; raise SessionEnded if gone."""
    respondent = respondent_get(respondent_id=request.respondent_id)
    if respondent is None:
        raise SessionEnded
    return respondent


def respondent_required(view):
    """Run ``view`` only for a logged-in respondent of an open survey; set request.respondent_id and request.survey.

    The respondent row itself is read only by views that need it (``current_respondent``):
    a page save does without.
    """

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        respondent_id = request.session.get(RESPONDENT_KEY)
        survey = survey_get(survey_id=request.session.get(SURVEY_KEY)) if respondent_id else None
        if survey is None:
            return session_ended(request)
        if not survey_is_open(survey):
            return survey_closed(request, survey)
        request.respondent_id = respondent_id
        request.survey = survey
        try:
            return view(request, *args, **kwargs)
        except SessionEnded:
            return session_ended(request)

    return wrapper
