"""Reads for the staff screens of people and rosters: counts by school and grade, the search of a survey's people
across a scope (a school's list is one of its searches), the roster uploads in a scope, a school's login limit hits."""
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db import models
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Lower, Upper
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.scopes import Role, Scope
from respondents import access_codes
from respondents.grades import grade_sort_key
from respondents.models import LoginLimitHit, Respondent, School
from rosters.models import Roster
from surveys.models import Survey


def school_counts(*, scope: Scope, survey: Survey,
                  schools: Iterable[School]) -> list[tuple[School, dict[str, int]]]:
    """``schools`` (a page of those in ``scope``: ``rosters.directory.school_directory_search``) with their
    respondents in ``survey``: [(School, {total, withdrawn, completed, in_progress}), ...]. One query, grouped over
    those schools' people only, whatever the number of schools in the state."""
    Status = Respondent.Status
    active = Q(withdrawn_at__isnull=True)
    schools = list(schools)
    counts = {
        school_id: {"total": total, "withdrawn": withdrawn, "completed": completed, "in_progress": in_progress}
        for school_id, total, withdrawn, completed, in_progress in scope.respondents(survey).filter(
            school_id__in=[school.pk for school in schools]).values_list("school_id").annotate(
            total=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
            completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
            in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        ).order_by()
    } if schools else {}
    empty = {"total": 0, "withdrawn": 0, "completed": 0, "in_progress": 0}
    return [(school, counts.get(school.pk, empty)) for school in schools]


class SearchBy(models.TextChoices):
    """What the staff search's text is matched against."""

    EXTERNAL_ID = "external_id", _("External id (starts with)")
    NAME = "name", _("Name on the slip (contains)")
    CODE = "code", _("Access code (the whole code)")
    SCHOOL = "school", _("School (code, or part of its name)")


# What a role that may not see codes may not search by either: the code, and the name printed next to it on the
# slip (analysts read answers, never who holds which code).
SEARCH_BY_CODE_HOLDERS = frozenset({SearchBy.CODE, SearchBy.NAME})


@dataclass(frozen=True)
class PeopleSearch:
    """One search of a survey's people: the text and what it matches, a grade, a status, one school."""

    query: str = ""
    by: str = SearchBy.EXTERNAL_ID
    grade: str = ""
    status: str = ""
    school: School | None = None


def respondents_search(*, scope: Scope, survey: Survey, search: PeopleSearch) -> QuerySet[Respondent]:
    """The respondents of ``survey`` in ``scope`` that ``search`` finds, with their schools, by school then
    external id (an index holds that order: a page is read from it, not sorted out of millions).

    Each kind of text uses an index at two million people (``respondents/migrations/0016_search_indexes.py``):
    an external id matches from its start, case aside (a b-tree over ``upper(external_id)``); a name anywhere in
    it, case aside (a trigram index; a query under three letters cannot use one and reads the scope's rows); a
    code exactly, in the form login reads it (``access_codes.normalize``: a typed code that cannot be one finds
    nobody); a school by its code exactly or a part of its name (the schools first, then their people).
    """
    if search.by in SEARCH_BY_CODE_HOLDERS and not scope.can_see_codes:
        return Respondent.objects.none()
    people = scope.respondents(survey).select_related("school")
    if search.school is not None:
        people = people.filter(school=search.school)
    query = search.query.strip()
    if query and search.by == SearchBy.EXTERNAL_ID:
        people = people.annotate(external_id_upper=Upper("external_id")).filter(
            external_id_upper__startswith=query.upper())
    elif query and search.by == SearchBy.NAME and len(query) >= TRIGRAM:
        people = people.filter(display_name__icontains=query)  # UPPER(display_name) LIKE: the trigram index's
    elif query and search.by == SearchBy.NAME:
        # Under three letters pg_trgm finds no trigram and would read its whole index (every row) before the
        # rows themselves: written in lower case, the condition matches no index, and the rows in scope are read
        # in the search's order instead.
        people = people.annotate(display_name_lower=Lower("display_name")).filter(
            display_name_lower__contains=query.lower())
    elif query and search.by == SearchBy.CODE:
        code = access_codes.normalize(query)
        people = people.filter(access_code=code) if code else people.none()
    elif query and search.by == SearchBy.SCHOOL:
        schools = scope.schools().filter(Q(code__iexact=query) | Q(name__icontains=query))
        people = people.filter(school_id__in=list(schools.values_list("pk", flat=True)[:SCHOOLS_MATCHED_MAX]))
    if search.grade:
        people = people.filter(grade=search.grade)
    if search.status == "withdrawn":
        people = people.filter(withdrawn_at__isnull=False)
    elif search.status:
        people = people.filter(status=search.status, withdrawn_at__isnull=True)
    return people.order_by("school_id", "external_id", "pk")


# The shortest text the trigram index of names can serve (pg_trgm's trigrams).
TRIGRAM = 3
# A school search matching more schools than this (a word in every name) finds the people of the first ones only.
SCHOOLS_MATCHED_MAX = 500


class PeopleAction(models.TextChoices):
    """What can be done to people chosen in a search (``rosters.services`` and ``rosters.slips`` do it)."""

    WITHDRAW = "withdraw", _("Withdraw")
    RESTORE = "restore", _("Restore")
    REISSUE = "reissue", _("Give new codes")
    SLIPS = "slips", _("Print their slips")


# The most people one action takes: "everyone this search finds" beyond it asks for a narrower search.
SELECTION_MAX = 10_000


def respondents_for_action(*, scope: Scope, survey: Survey, action: str, respondent_ids: Iterable[int] = (),
                           search: PeopleSearch | None = None) -> QuerySet[Respondent]:
    """Those of the chosen people (the ticked ``respondent_ids``, or everyone ``search`` finds) that ``action``
    would change, in ``scope``, in the search's order: the withdrawn for a restore, the others for the rest (a
    slip also needs a school). What the confirm page lists; the service checks it all again."""
    people = respondents_search(scope=scope, survey=survey, search=search or PeopleSearch())
    if search is None:
        people = people.filter(pk__in=list(respondent_ids))
    if action == PeopleAction.RESTORE:
        return people.filter(withdrawn_at__isnull=False)
    people = people.filter(withdrawn_at__isnull=True)
    return people.filter(school__isnull=False) if action == PeopleAction.SLIPS else people


def grade_counts(*, scope: Scope, survey: Survey, school: School) -> list[tuple[str, int]]:
    """[(grade, respondents who may log in)] of a school in ``survey`` (in scope), in grade order (K, 1..12, the
    rest, no grade last: ``grade_sort_key``, after the query); one query."""
    rows = (scope.respondents(survey).filter(school=school, withdrawn_at=None).order_by()
            .values("grade").annotate(count=Count("pk")).values_list("grade", "count"))
    return sorted(rows, key=lambda row: grade_sort_key(row[0]))


def rosters_in_scope(*, scope: Scope, survey: Survey | None = None) -> QuerySet[Roster]:
    """The survey's (every survey's for None) roster uploads in ``scope``: all of them for a state administrator,
    one's own otherwise. Only its uploader applies or discards one (``rosters/importing.py``)."""
    rosters = Roster.objects.select_related("survey", "uploaded_by")
    if survey is not None:
        rosters = rosters.filter(survey=survey)
    return rosters if scope.all_schools and scope.role == Role.STATE_ADMIN else rosters.filter(
        uploaded_by_id=scope.user_id)


# A school's page shows the login limit hits of its addresses that ended in the last day, the latest first.
LOGIN_LIMIT_HITS_SINCE = timedelta(days=1)
LOGIN_LIMIT_HITS_SHOWN = 10


def login_limit_hits(*, scope: Scope, school: School) -> list[LoginLimitHit]:
    """The addresses refused respondent logins (``respondents/login_limits.py``) from which respondents of ``school``
    had logged in: those still refused and those that ended in the last day, newest first; none out of ``scope``."""
    if not scope.covers_school(school.pk):
        return []
    since = timezone.now() - LOGIN_LIMIT_HITS_SINCE
    return list(school.login_limit_hits.filter(limited_until__gte=since)
                .order_by("-limited_at", "-pk")[:LOGIN_LIMIT_HITS_SHOWN])
