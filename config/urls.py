from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from config.views import ping

urlpatterns = [
    path("admin/", admin.site.urls),
    path("ping/", ping, name="ping"),
    path("", include("surveys.urls")),
]

if "debug_toolbar" in settings.INSTALLED_APPS:
    urlpatterns.append(path("__debug__/", include("debug_toolbar.urls")))
