"""The project's error answers (handler400/403/404/500 and the request guard's).

Each is JSON for an Ajax request, in the shape every refused save has
(``{"saved": false, "errors": {"__all__": [message]}}``), and a page
otherwise. None of them reads the request body: Django's defaults are wrapped
in ``requires_csrf_token``, which reads ``request.POST`` again and turns a body
that could not be parsed into a 500.
"""
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

def is_ajax(request):
    return request.headers.get("X-Requested-With") == "XMLHttpRequest"


def ajax_error(message, *, status, **extra):
    """Return the JSON an Ajax request gets when it is refused as a whole (not field by field)."""
    return JsonResponse({"saved": False, "errors": {"__all__": [message]}, **extra}, status=status)


NOT_UTF8 = gettext_lazy("This page could not be read: forms must be sent as UTF-8. Reload the page and try again.")


def _answer(request, *, status, heading, message):
    if is_ajax(request):
        return ajax_error(message, status=status)
    context = {"message_kind": "error", "heading": heading, "message": message}
    return render(request, "taking/message.html", context, status=status)


def bad_request(request, exception, message=None):
    if isinstance(exception, RequestDataTooBig):
        return too_large(request)
    message = message or _("What your browser sent could not be read. Reload the page and try again.")
    return _answer(request, status=400, heading=_("That could not be read"), message=message)


def too_large(request):
    message = _(
        "This is too much to send at once. Shorten your longest answers, then try again. "
        "Nothing on this page was saved."
    )
    return _answer(request, status=413, heading=_("Too much to send at once"), message=message)


def too_large_view(request):
    """Answer nginx's internal redirect for a body over its ``client_max_body_size`` (the same limit)."""
    return too_large(request)


def permission_denied(request, exception):
    message = _("You cannot open this page. Go back to the login page and log in with your access code.")
    return _answer(request, status=403, heading=_("Not allowed"), message=message)


def page_not_found(request, exception):
    message = _("There is no page at this address.")
    return _answer(request, status=404, heading=_("Page not found"), message=message)


def try_again(request, *, seconds):
    """Answer a request that met a passing fault (a restart, a blip): 503 with Retry-After; nothing was saved twice."""
    message = _(
        "The survey is busy for a moment. Your saved answers are safe. Please try again in a few seconds."
    )
    if request.method == "POST" and not is_ajax(request):
        message = _(
            "The survey is busy for a moment, so this page may not be saved yet. Your earlier pages are safe. "
            "Go back, and press the button again in a few seconds."
        )
    response = _answer(request, status=503, heading=_("Please try again in a moment"), message=message)
    response["Retry-After"] = str(seconds)
    if request.method in ("GET", "HEAD") and not is_ajax(request):
        response["Refresh"] = str(seconds + 3)  # the page tries again by itself
    return response


def server_error(request):
    message = _("Something went wrong on our side. Your saved answers are safe. Please try again in a minute.")
    try:
        return _answer(request, status=500, heading=_("Something went wrong"), message=message)
    except Exception:  # the error page itself must not fail
        return HttpResponse(message, status=500, content_type="text/plain; charset=utf-8")
