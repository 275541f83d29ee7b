"""infra/csp.py: the policy header is built once, and is the header django-csp itself builds."""
import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.decorators import csp_update
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

from infra.csp import CSPMiddleware, _built


def answer(middleware, response=None, *, nonce=False):
    request = RequestFactory().get("/take/")
    middleware.process_request(request)
    if nonce:
        str(request.csp_nonce)
    return middleware.process_response(request, response or HttpResponse("ok"))


@pytest.fixture
def middleware():
    _built.cache_clear()
    return CSPMiddleware(lambda request: HttpResponse())


def test_the_header_is_django_csps_and_built_once(middleware):
    expected = answer(BaseCSPMiddleware(lambda request: HttpResponse()))[HEADER]
    assert "default-src 'self'" in expected and "frame-ancestors 'none'" in expected
    assert answer(middleware)[HEADER] == expected
    assert answer(middleware)[HEADER] == expected
    assert _built.cache_info().misses == 1 and _built.cache_info().hits == 1
    assert HEADER_REPORT_ONLY not in answer(middleware)


def test_a_decorated_view_gets_django_csps_own_header(middleware):
    @csp_update({"img-src": "https://maps.example.org"})
    def view(request):
        return HttpResponse()

    decorated = answer(middleware, view(RequestFactory().get("/")))[HEADER]
    assert "https://maps.example.org" in decorated
    assert "https://maps.example.org" not in answer(middleware)[HEADER]


def test_a_request_that_asked_for_a_nonce_gets_django_csps_own_header(middleware, settings):
    from csp.constants import NONCE, SELF

    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"script-src": [SELF, NONCE]}}
    assert "'nonce-" in answer(middleware, nonce=True)[HEADER]
    assert "'nonce-" not in answer(middleware)[HEADER]


def test_a_changed_policy_is_built_again(middleware, settings):
    answer(middleware)
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    assert answer(middleware)[HEADER].startswith("default-src 'none'")


def test_a_nonce_asked_for_after_the_header_is_an_error(middleware):
    from csp.exceptions import CSPNonceError

    request = RequestFactory().get("/take/")
    middleware.process_request(request)
    middleware.process_response(request, HttpResponse())
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)
