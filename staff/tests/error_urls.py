"""The project's URLs with a staff view and a respondent page that raise: the 500 pages' tests
(``pytest.mark.urls``)."""
from django.urls import path

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as project
from staff.access import staff_view


def raises(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("staff/raises/", staff_view()(raises)), path("raises/", raises), *project]
