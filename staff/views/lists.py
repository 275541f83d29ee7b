"""How much of a long list a staff page shows: a page at a time (``?page=``), a file's first problems, the first
of those chosen on a confirm page; and where a bulk action goes back to."""
from django.core.paginator import Paginator

PAGE_SIZE = 100
PROBLEMS_SHOWN = 50
CONFIRM_SHOWN = 200  # people or accounts listed by name on a confirm page; the count says how many in all


def page_of(request, items):
    """Return the page of ``items`` that ``?page=`` asks for: the first when it is not a number, the last when it
    is past the end."""
    return Paginator(items, PAGE_SIZE).get_page(request.GET.get("page"))


def back_to(request, default):
    """The staff page the form came from (``next``: a path of this site), or ``default``."""
    target = (request.POST if request.method == "POST" else request.GET).get("next", "")
    return target if target.startswith("/staff/") and "//" not in target else default
