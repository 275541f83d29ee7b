"""The project's error answers (handler400/403/404/500 and the request guard's).

Each is JSON for an Ajax request, in the shape every refused save has
(``{"saved": false, "errors": {"__all__": [message]}}``), and a page
otherwise: under /staff/ and /admin/ a staff page (staff/error.html) that
speaks to staff and leads to the staff area's home; elsewhere the
respondents' page, which leads to their login. None of them reads the request
body: Django's defaults are wrapped in ``requires_csrf_token``, which reads
``request.POST`` again and turns a body that could not be parsed into a 500.
"""
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy


def is_ajax(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "XMLHttpRequest"


def ajax_error(message: str | Promise, *, status: int, **extra: object) -> JsonResponse:
    """Return the JSON an Ajax request gets when it is refused as a whole (not field by field)."""
    return JsonResponse({"saved": False, "errors": {"__all__": [message]}, **extra}, status=status)


NOT_UTF8 = gettext_lazy("This page could not be read: forms must be sent as UTF-8. Reload the page and try again.")


STAFF_PREFIXES = ("/staff/", "/admin/")


def is_staff_page(request: HttpRequest) -> bool:
    """Return whether ``request`` is for the staff area or Django's admin, whose errors speak to staff."""
    return request.path_info.startswith(STAFF_PREFIXES)


def _answer(request: HttpRequest, *, status: int, heading: str, message: str | Promise,
            staff: tuple[str, str] | None = None, detail: str = "") -> HttpResponse:
    """The error answer: JSON for Ajax; the staff page (``staff``: its own (heading, message), else the same)
    with ``detail`` under /staff/ and /admin/; the respondents' page elsewhere. The staff texts are English only,
    as the staff area is (its templates are not translated)."""
    if is_staff_page(request):
        heading, message = staff or (heading, message)
        if is_ajax(request):
            return ajax_error(message, status=status)
        context = {"heading": heading, "message": message, "detail": detail, "status": status}
        return render(request, "staff/error.html", context, status=status)
    if is_ajax(request):
        return ajax_error(message, status=status)
    context = {"message_kind": "error", "heading": heading, "message": message}
    return render(request, "taking/message.html", context, status=status)


def bad_request(request: HttpRequest, exception: Exception | None,
                message: str | Promise | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        return too_large(request)
    message = message or _("What your browser sent could not be read. Reload the page and try again.")
    return _answer(request, status=400, heading=_("That could not be read"), message=message)


def too_large(request: HttpRequest) -> HttpResponse:
    message = _(
        "This is too much to send at once. Shorten your longest answers, then try again. "
        "Nothing on this page was saved."
    )
    staff = ("Too much to send at once", "This is more than the staff area accepts in one go: nothing was "
             "changed. Send a smaller file, or choose fewer people at once.")
    return _answer(request, status=413, heading=_("Too much to send at once"), message=message, staff=staff)


def too_large_view(request: HttpRequest) -> HttpResponse:
    """Answer nginx's internal redirect for a body over its ``client_max_body_size`` (the same limit)."""
    return too_large(request)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = _("You cannot open this page. Go back to the login page and log in with your access code.")
    staff = ("Not allowed", "Your staff account cannot open this page. If your work needs it, ask a state "
                            "administrator.")
    return _answer(request, status=403, heading=_("Not allowed"), message=message, staff=staff,
                   detail=_reason(exception))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = _("There is no page at this address.")
    staff = ("Page not found", "There is nothing at this address in the staff area, or what it names is not in "
                               "your schools.")
    return _answer(request, status=404, heading=_("Page not found"), message=message, staff=staff,
                   detail=_reason(exception))


def _reason(exception: Exception | None) -> str:
    """The reason a view gave when it refused (``Http404("This download link has expired...")``), for staff;
    not Django's own texts, which speak of URL patterns and queries."""
    if isinstance(exception, Resolver404) or not exception or not exception.args:
        return ""
    reason = exception.args[0]
    return "" if not isinstance(reason, str) or reason.endswith("matches the given query.") else reason


def try_again(request: HttpRequest, *, seconds: int) -> HttpResponse:
    """Answer a request that met a passing fault (a restart, a blip): 503 with Retry-After; nothing was saved twice."""
    message = _(
        "The survey is busy for a moment. Your saved answers are safe. Please try again in a few seconds."
    )
    if request.method == "POST" and not is_ajax(request):
        message = _(
            "The survey is busy for a moment, so this page may not be saved yet. Your earlier pages are safe. "
            "Go back, and press the button again in a few seconds."
        )
    staff = ("Please try again in a moment", "The staff area is busy for a moment, so what you sent may not be "
             "saved. Check, and try again in a few seconds.")
    response = _answer(request, status=503, heading=_("Please try again in a moment"), message=message, staff=staff)
    response["Retry-After"] = str(seconds)
    if request.method in ("GET", "HEAD") and not is_ajax(request):
        response["Refresh"] = str(seconds + 3)  # the page tries again by itself
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    message = _("Something went wrong on our side. Your saved answers are safe. Please try again in a minute.")
    staff = ("Something went wrong", "Something went wrong on our side, and it has been logged. Go back and try "
             "again in a minute; if it happens again, tell the survey office what you were doing and when.")
    try:
        return _answer(request, status=500, heading=_("Something went wrong"), message=message, staff=staff)
    except Exception:  # the error page itself must not fail
        return HttpResponse(message, status=500, content_type="text/plain; charset=utf-8")
