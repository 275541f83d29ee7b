"""In-process timings of one survey request's parts, against the running stack (`make bench-micro`).

Prints milliseconds per call of: rendering a page fragment (what survey_content
answers), reading and writing a session with the production engine (Redis) and
with signed cookies, parsing a page save's body as multipart and urlencoded,
the Content-Security-Policy header with django-csp's middleware and ours,
building the JSON answer of a page save, and what the respondent login limits
add to a login in their counters' cache (Redis db 3).
"""
import functools
import time
from collections.abc import Callable
from importlib import import_module
from typing import cast
from urllib.parse import urlencode

from csp.middleware import CSPMiddleware as DjangoCSP
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.test import RequestFactory
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from bench.survey_document import bench_document
from infra.csp import CSPMiddleware
from infra.db_router import read_from_master
from respondents.login_limits import address_login_failed, address_login_succeeded, address_logins
from rosters.services import RosterEntry, roster_create
from surveys.selectors import page_definition
from surveys.services import survey_create
from taking.respondent_session import CODE_KEY, RespondentRequest
from taking.views import page_fragment


def per_call_ms(fn: Callable[[], object], n: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1000


def main(argv: list[str] | None = None) -> None:
    with read_from_master():
        survey = survey_create(document=bench_document(slug=f"micro-{time.time_ns()}", pages=4))
        respondent = roster_create(survey=survey, name="micro", entries=[RosterEntry()]).respondents.get()
    # What taking's respondent_required leaves on the request: RespondentRequest declares it.
    request = cast(RespondentRequest,
                   RequestFactory().get("/take/page/1/", headers={"X-Requested-With": "XMLHttpRequest"}))
    request.respondent_id, request.survey = respondent.pk, survey
    # A dict stands in for the session: page_fragment only reads the code it checks the respondent against.
    request.session = {CODE_KEY: respondent.access_code}  # type: ignore[assignment]
    get_token(request)

    def render(number: int) -> object:
        page = page_definition(survey=survey, number=number)
        assert page is not None  # the bench survey has these pages
        return page_fragment(request, page)

    renders = [per_call_ms(functools.partial(render, n), 300) for n in range(1, 5)]
    print(f"page fragment render (Jinja2, with the answers read): {sum(renders) / len(renders):.3f} ms")

    for engine in ("infra.sessions", "django.contrib.sessions.backends.signed_cookies"):
        store_class: type[SessionBase] = import_module(engine).SessionStore
        store = store_class()
        store.update({"respondent_id": respondent.pk, "survey_id": survey.pk})
        store.save()
        key = store.session_key

        def read(store_class: type[SessionBase] = store_class, key: str | None = key) -> None:
            store_class(key)["respondent_id"]

        def read_and_write(store_class: type[SessionBase] = store_class, key: str | None = key) -> None:
            session = store_class(key)
            session["respondent_id"]
            session.modified = True
            session.save()

        print(f"session {engine.rsplit('.', 1)[-1]:<16} read {per_call_ms(read, 3000):.3f} ms, "
              f"read + write {per_call_ms(read_and_write, 3000):.3f} ms")

    # A page save's body as FormData sends it (multipart) and as survey.js sends it (urlencoded).
    body = {"csrfmiddlewaretoken": "x" * 64, "save_id": "5f0c0b9e-3f0a-4d5e-9d7e-1234567890ab", "nav": "next",
            **{f"q-question_{n}": str(n) for n in range(6)}}
    factory = RequestFactory()
    for kind, data, content_type in (("multipart", encode_multipart(BOUNDARY, body), MULTIPART_CONTENT),
                                     ("urlencoded", urlencode(body), "application/x-www-form-urlencoded")):
        def parse(data: str | bytes = data, content_type: str = content_type) -> str | None:
            return factory.generic("POST", "/", data, content_type=content_type).POST["nav"]

        ms = per_call_ms(parse, 5000)
        print(f"page save body {kind:<10} ({len(data)} B): request and POST parsed {ms:.3f} ms")

    # The Content-Security-Policy header: django-csp's middleware, and ours (built once: infra/csp.py).
    for name, middleware in (("django-csp", DjangoCSP(HttpResponse)), ("infra.csp", CSPMiddleware(HttpResponse))):
        def respond(middleware: DjangoCSP | CSPMiddleware = middleware) -> None:
            csp_request = factory.get("/take/")
            middleware.process_request(csp_request)
            middleware.process_response(csp_request, HttpResponse())
        print(f"CSP header, {name:<10}: {per_call_ms(respond, 5000):.3f} ms a response")

    payload = {"saved": True, "page": 3, "next_page": 4, "next_url": "/take/page/4/", "progress": 15,
               "completed": False, "complete_url": None, "missing": []}
    print(f"JSON answer of a save: {per_call_ms(lambda: JsonResponse(payload), 20000):.3f} ms")
    print(login_limit_timings(2000))


def login_limit_timings(n: int) -> str:
    """What the respondent login limits (respondents/login_limits.py) cost a login, in ms: the check every attempt
    makes, and with it a valid login of a respondent new to the window, the same respondent again, a failed code."""
    address = f"microbench-{time.time_ns()}"  # its own counters, gone with the window
    new_ids, again_ids = iter(range(10**9)), iter(range(10**9))
    check = per_call_ms(lambda: address_logins(address=address), n)
    valid = per_call_ms(lambda: address_login_succeeded(
        logins=address_logins(address=address), respondent_id=next(new_ids), school_id=1), n)
    again = per_call_ms(lambda: address_login_succeeded(
        logins=address_logins(address=address), respondent_id=next(again_ids), school_id=1), n)
    failed = per_call_ms(lambda: address_login_failed(logins=address_logins(address=f"{address}-{next(new_ids) % 50}")),
                         n)
    return (f"login limits: a login's check {check:.3f} ms; with a valid login new to the window {valid:.3f} ms, "
            f"again in the window {again:.3f} ms; with a failed code {failed:.3f} ms")
