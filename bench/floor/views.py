"""The bench's floor: what a survey request cannot avoid, and nothing else (`make bench` reports the survey mix
against it as ``floor_rps`` and ``floor_ratio``; docs/performance.md).

GET reads the session from its store (Redis on the stack), makes one SELECT through pgbouncer and renders a
small Django template with a CSRF token; POST passes the CSRF check and writes five rows with one ``bulk_create``
in a transaction, then answers a little JSON, as a page save does. Both run through the same middleware as the
survey views. Routed only when ``BENCH_FLOOR_VIEWS`` is on (the one-box stack; never a real deployment).
"""
import secrets

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from bench.floor.services import floor_rows_recent, floor_rows_save

FLOOR_KEY = "floor"
VALUES = 5


@require_http_methods(["GET", "POST"])
@never_cache
def floor(request: HttpRequest) -> HttpResponse:
    session_key = request.session.get(FLOOR_KEY)
    if session_key is None:
        # The first visit makes the session (a survey's login); every later one only reads it.
        session_key = request.session[FLOOR_KEY] = secrets.token_hex(16)
    if request.method == "POST":
        values = [request.POST.get(f"v{position}", "")[:200] for position in range(VALUES)]
        return JsonResponse({"saved": floor_rows_save(session_key=session_key, values=values)})
    rows = floor_rows_recent(session_key=session_key, count=VALUES)
    return render(request, "floor/floor.html", {"rows": rows, "positions": range(VALUES)})
