"""Refuse, before any view or middleware reads it, a request Django would choke on: a charset other than UTF-8, a
NUL in the path or query, a body over its limit (``@accepts_uploads`` views take files up to ``UPLOAD_MAX_BYTES``).

Which requests Django would answer with a 500, and why this runs first: docs/architecture.md, "Bad input".
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
