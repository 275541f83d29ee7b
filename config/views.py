from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe


@require_safe
def ping(request: HttpRequest) -> HttpResponse:
    """Answer "ok" without touching a database, cache or session.

    A load balancer's health check, and the ceiling `make bench` measures the
    survey views against: the cost of nginx, gunicorn and Django themselves.
    """
    return HttpResponse("ok", content_type="text/plain")
