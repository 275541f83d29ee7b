"""django-csp's middleware, with the policy header built once per process.

django-csp 4.0 builds the Content-Security-Policy header on every response:
``dataclasses.asdict`` (a deep copy) of the policy's parts, then the string, for
the policy and again for the report-only one. Here the policy never changes
between responses: no view uses a nonce (no inline script or style anywhere) or
django-csp's per-view decorators. So a response that carries nothing of its own
gets the header built on first use; any other (a decorator's config, update,
replace or exemption, or a request that asked for a nonce) goes through
django-csp unchanged. A settings change (a test's override) forgets the built
header.
"""
from functools import cache
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

# What django-csp's decorators set on a response; any of them means a policy of its own.
PER_RESPONSE = ("_csp_config", "_csp_update", "_csp_replace", "_csp_exempt",
                "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro", "_csp_exempt_ro")


class CSPMiddleware(BaseCSPMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if getattr(request, "_csp_nonce", None) is not None or any(hasattr(response, a) for a in PER_RESPONSE):
            return super().process_response(request, response)
        headers = _plain_headers(self, request.path_info)
        if headers is None:  # DEBUG's exemptions or excluded prefixes: django-csp decides
            return super().process_response(request, response)
        for header, value in headers:
            if header not in response:
                response[header] = value
        # As django-csp: a nonce asked for after the header is written is an error, not a silent gap (its attribute,
        # which HttpRequest does not declare).
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response


def _plain_headers(middleware: BaseCSPMiddleware, path: str) -> list[tuple[str, str]] | None:
    """Return ``[(header, value)]`` of a response with no policy of its own, or None where django-csp has rules
    that depend on the request (excluded URL prefixes, DEBUG's exemptions)."""
    policies = (getattr(settings, "CONTENT_SECURITY_POLICY", None) or {},
                getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None) or {})
    if settings.DEBUG or any(policy.get("EXCLUDE_URL_PREFIXES") for policy in policies):
        return None
    return _built(middleware)


@cache
def _built(middleware: BaseCSPMiddleware) -> list[tuple[str, str]]:

    request, response = HttpRequest(), HttpResponse()
    request.path_info = "/"
    BaseCSPMiddleware.process_response(middleware, request, response)
    return [(header, response[header]) for header in (HEADER, HEADER_REPORT_ONLY) if header in response]


@receiver(setting_changed, dispatch_uid="csp-header-forget")
def _forget(setting: str, **kwargs: Any) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY") or setting == "DEBUG":
        _built.cache_clear()
