"""How much of a long list a staff page shows: a page at a time (``?page=``), or a file's first problems."""
from django.core.paginator import Paginator

PAGE_SIZE = 100
PROBLEMS_SHOWN = 50


def page_of(request, items):
    """Return the page of ``items`` that ``?page=`` asks for: the first when it is not a number, the last when it
    is past the end."""
    return Paginator(items, PAGE_SIZE).get_page(request.GET.get("page"))
