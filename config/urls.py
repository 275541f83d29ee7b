from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from config.views import ping
from infra import errors

handler400 = "infra.errors.bad_request"
handler403 = "infra.errors.permission_denied"
handler404 = "infra.errors.page_not_found"
handler500 = "infra.errors.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("staff/", include("staff.urls")),
    path("ping/", ping, name="ping"),
    # nginx sends a body over its limit here (error_page 413), so both answer alike.
    path("errors/413/", errors.too_large_view, name="too-large"),
    path("", include("taking.urls")),
]

if settings.BENCH_FLOOR_VIEWS:
    from bench.floor.views import floor

    urlpatterns.insert(0, path("bench/floor/", floor, name="bench-floor"))

if "debug_toolbar" in settings.INSTALLED_APPS:
    urlpatterns.append(path("__debug__/", include("debug_toolbar.urls")))
