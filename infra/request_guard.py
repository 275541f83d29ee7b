"""Refuse, before any view or middleware reads it, a request Django would choke on.

Django answers some malformed requests with a 500:

* A form posted with a charset other than UTF-8 raises BadRequest whenever
  ``request.POST`` is read, and Django's default 400 handler reads it again
  (``requires_csrf_token``), so the 400 becomes a 500.
* ``WSGIRequest.__init__`` decodes the query string with whatever codec the
  Content-Type names: ``charset=hex`` (a bytes-to-bytes codec) or ``utf-16``
  with an odd-length query string raise before any middleware runs.
* A NUL character in the path or the query string reaches PostgreSQL, which
  refuses it in text, wherever a view filters on a parameter (forms' fields
  refuse it themselves): it is answered 400 here, once for every view.

So ``GuardedWSGIHandler`` (``config/wsgi.py``) builds requests that record the
declared charset instead of applying it, and ``RequestGuardMiddleware``, first
in the chain, answers a charset that is not UTF-8 with a clear 400 and a body
over ``REQUEST_BODY_MAX_BYTES`` (nginx's ``client_max_body_size`` is the same
number) with a 413, before the session, CSRF or a view touch the body. The
answers are those of ``infra.errors``: JSON for Ajax, a page otherwise.

The staff views that take a file (``@accepts_uploads``: a roster, the school
directory) accept up to ``UPLOAD_MAX_BYTES`` instead; nginx lets bodies that
large through under ``/staff/`` only. The limit is checked in ``process_view``,
where the view is known: this middleware's comes first, before CSRF's reads
the body.
"""
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.http import parse_header_parameters

from infra import errors

# ASCII is a subset of UTF-8: decoding it as UTF-8 gives the same text.
UTF8_ALIASES = {"utf-8", "utf8", "us-ascii", "ascii"}


_View = TypeVar("_View", bound=Callable[..., HttpResponseBase])


class RequestGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return errors.bad_request(request, None)
        if length > max(settings.REQUEST_BODY_MAX_BYTES, settings.UPLOAD_MAX_BYTES):
            return errors.too_large(request)
        request.guard_body_length = length  # type: ignore[attr-defined]  # for process_view
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path_info or "%00" in query or "\x00" in query:
            # PostgreSQL refuses NUL in text: a view passing a query parameter to a filter would raise.
            return errors.bad_request(request, None)
        _, params = parse_header_parameters(request.META.get("CONTENT_TYPE", ""))
        charset = params.get("charset")
        if charset is not None:
            if charset.strip().lower() not in UTF8_ALIASES:
                return errors.bad_request(request, None, message=errors.NOT_UTF8)
            request.encoding = "utf-8"
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func: Callable[..., HttpResponse], view_args: tuple[Any, ...],
                     view_kwargs: dict[str, Any]) -> HttpResponse | None:
        limit = settings.UPLOAD_MAX_BYTES if getattr(view_func, "accepts_uploads", False) else \
            settings.REQUEST_BODY_MAX_BYTES
        if getattr(request, "guard_body_length", 0) > limit:
            return errors.too_large(request)
        return None


def accepts_uploads(view: _View) -> _View:
    """Let ``view`` take a body of up to UPLOAD_MAX_BYTES (a file upload) rather than REQUEST_BODY_MAX_BYTES."""
    view.accepts_uploads = True  # type: ignore[attr-defined]  # a mark process_view reads (as csrf_exempt's)
    return view


class GuardedWSGIRequest(WSGIRequest):
    def _set_content_type_params(self, meta: dict[str, Any]) -> None:
        # As Django's, less decoding with the declared charset: the middleware judges it.
        self.content_type, self.content_params = parse_header_parameters(meta.get("CONTENT_TYPE", ""))


class GuardedWSGIHandler(WSGIHandler):
    request_class = GuardedWSGIRequest
