"""How much of a long list a staff page shows: a page at a time (``?page=``), a file's first problems, the first
of those chosen on a confirm page; and where a bulk action goes back to."""
from collections.abc import Sequence
from typing import Any, TypeVar

from django.core.paginator import Page, Paginator
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property

PAGE_SIZE = 100
PROBLEMS_SHOWN = 50
# A list that may hold millions (a survey's people) is counted up to here: COUNT(*) over two million rows costs
# a second a page, and nobody pages past a hundred pages; the page says "more than 10,000" and asks for a
# narrower search.
COUNT_CAP = 10_000
CONFIRM_SHOWN = 200  # people or accounts listed by name on a confirm page; the count says how many in all

T = TypeVar("T", bound=Model)


class CappedPaginator(Paginator):  # (Paginator is generic in its stubs only)
    """A Paginator that counts at most ``cap`` items (one ``SELECT count(*) FROM (... LIMIT cap + 1)``);
    ``capped`` says whether there are more, which no page reaches."""

    def __init__(self, object_list: QuerySet[Any] | Sequence[Any], per_page: int, *, cap: int) -> None:
        super().__init__(object_list, per_page)
        self.cap = cap

    @cached_property
    def _counted(self) -> int:
        if not isinstance(self.object_list, QuerySet):
            return len(self.object_list[:self.cap + 1])
        # Unordered: counting needs no order, and an ORDER BY in the subquery would make PostgreSQL walk the order's
        # index (or sort) instead of the search's own index.
        return self.object_list.order_by()[:self.cap + 1].count()

    @cached_property
    def count(self) -> int:
        return min(self._counted, self.cap)

    @property
    def capped(self) -> bool:
        return self._counted > self.cap


def page_of(request: HttpRequest, items: QuerySet[T] | Sequence[T], *, count_cap: int | None = None) -> Page[T]:
    """Return the page of ``items`` that ``?page=`` asks for: the first when it is not a number, the last when it
    is past the end. With ``count_cap`` the list is counted only that far (``CappedPaginator``)."""
    paginator = Paginator(items, PAGE_SIZE) if count_cap is None else CappedPaginator(items, PAGE_SIZE, cap=count_cap)
    return paginator.get_page(request.GET.get("page"))


def back_to(request: HttpRequest, default: str) -> str:
    """The staff page the form came from (``next``: a path of this site), or ``default``."""
    target = (request.POST if request.method == "POST" else request.GET).get("next", "")
    return target if target.startswith("/staff/") and "//" not in target else default
