"""Reads for the staff screens of people and rosters: counts by school and grade, the search of a survey's people
across a scope (a school's list is one of its searches), the roster uploads in a scope, a school's login limit hits."""
import operator
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from typing import TYPE_CHECKING, TypedDict

from django.db import models
from django.db.models import Case, Count, Q, QuerySet, Value, When
from django.db.models.functions import RTrim, Trim, Upper
from django.db.models.lookups import Contains, StartsWith
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.scopes import Role, Scope
from respondents import access_codes
from respondents.grades import grade_sort_key
from respondents.models import LoginLimitHit, Respondent, School
from respondents.name_folding import NameFolded, fold_name
from rosters.models import Roster
from surveys.models import Survey

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


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

    ANYTHING = "anything", _("Name, external id or access code")
    NAME = "name", _("Name on the slip (accents and case aside)")
    EXTERNAL_ID = "external_id", _("External id (starts with)")
    CODE = "code", _("Access code (starts with)")
    SCHOOL = "school", _("School (code, or part of its name)")


# What a role that may not see codes may not search by either: the code, and the name printed next to it on the
# slip (analysts read answers, never who holds which code). "Anything" is, for them, the external id.
SEARCH_BY_CODE_HOLDERS = frozenset({SearchBy.CODE, SearchBy.NAME})


@dataclass(frozen=True)
class PeopleSearch:
    """One search of a survey's people: the text and what it matches, a grade, a status, one school."""

    query: str = ""
    by: str = SearchBy.ANYTHING
    grade: str = ""
    status: str = ""
    school: School | None = None


def respondents_search(*, scope: Scope, survey: Survey, search: PeopleSearch) -> QuerySet[Respondent]:
    """The respondents of ``survey`` in ``scope`` that ``search`` finds, with their schools, by school then
    external id (an index holds that order: a page is read from it, not sorted out of millions).

    Each kind of text uses an index at two million people (``respondents/migrations/0016_search_indexes.py`` and
    ``0019_search_folded_names.py``): a name with accents, case and punctuation aside, anywhere in it, or for one
    or two letters the start of one of its words (``_name_matches``); an external id from its start, case aside; a
    code from its start, typed as people type codes (``access_codes.normalize_prefix``: a text no code starts with
    finds nobody); a school by its code exactly or a part of its name (the schools first, then their people).
    "Anything" is the first three at once (one of them matching), or for a role that sees no codes the external id
    alone.
    """
    if search.by in SEARCH_BY_CODE_HOLDERS and not scope.can_see_codes:
        return Respondent.objects.none()
    people = scope.respondents(survey).select_related("school")
    if search.school is not None:
        people = people.filter(school=search.school)
    query = search.query.strip()
    if query and search.by == SearchBy.SCHOOL:
        schools = scope.schools().filter(Q(code__iexact=query) | Q(name__icontains=query))
        people = people.filter(school_id__in=list(schools.values_list("pk", flat=True)[:SCHOOLS_MATCHED_MAX]))
    elif query:
        kinds = [search.by] if search.by != SearchBy.ANYTHING else (
            [SearchBy.NAME, SearchBy.EXTERNAL_ID, SearchBy.CODE] if scope.can_see_codes else [SearchBy.EXTERNAL_ID])
        matches = [match for match in (TEXT_MATCHES[kind](query) for kind in kinds) if match is not None]
        people = people.filter(reduce(operator.or_, matches)) if matches else people.none()
    if search.grade:
        people = people.filter(grade=search.grade)
    if search.status == "withdrawn":
        people = people.filter(withdrawn_at__isnull=False)
    elif search.status:
        people = people.filter(status=search.status, withdrawn_at__isnull=True)
    return people.order_by("school_id", "external_id", "pk")


def _name_matches(query: str) -> Q | None:
    """The names ``query`` finds, both folded in the database (``respondents/name_folding.py``: accents, case and
    punctuation aside): anywhere in the name when a word of it has three letters or more (the trigram index's),
    else at the start of one of the name's words, its first or a later one (``LIKE '% RO%'``: pg_trgm finds no
    trigram inside one or two letters and would read its whole index, but a word's start is one: "  r", " ro").
    None when nothing of it is a letter or a digit."""
    words = (fold_name(query) or "").split()
    if not words:
        return None
    name, typed = NameFolded("display_name"), NameFolded(Value(query))
    if max(len(word) for word in words) >= TRIGRAM:
        return Q(Contains(name, Trim(typed)))
    return Q(Contains(name, RTrim(typed)))


def _external_id_matches(query: str) -> Q:
    """External ids that start with ``query``, case aside (``UPPER(external_id) LIKE 'Q12%'``: the prefix index's)."""
    return Q(StartsWith(Upper("external_id"), query.upper()))


def _code_matches(query: str) -> Q | None:
    """Codes that start with ``query`` as typed (a whole code: that code, through the unique index; a part: the
    codes' ``varchar_pattern_ops`` index), or None when no code starts so."""
    code = access_codes.normalize_prefix(query)
    if code is None:
        return None
    return Q(access_code=code) if len(code) == access_codes.LENGTH else Q(access_code__startswith=code)


TEXT_MATCHES: dict[str, Callable[[str], Q | None]] = {
    SearchBy.NAME: _name_matches, SearchBy.EXTERNAL_ID: _external_id_matches, SearchBy.CODE: _code_matches}
# The shortest text the trigram index of names can serve anywhere in a name (pg_trgm's trigrams).
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


class LeftOut(models.TextChoices):
    """Why one of the people chosen is left out of an action: what the confirm page says of them."""

    ALREADY_WITHDRAWN = "already_withdrawn", _("already withdrawn")
    NOT_WITHDRAWN = "not_withdrawn", _("not withdrawn")
    WITHDRAWN = "withdrawn", _("withdrawn")
    NO_SCHOOL = "no_school", _("without a school")
    OUT_OF_SCOPE = "out_of_scope", _("not in your schools")


def _left_out_reason(action: str) -> Case:
    """Why ``action`` leaves a person out (a LeftOut value), or "" for those it changes: a restore takes the
    withdrawn; the rest take the others, and slips also need a school (the slip names it)."""
    if action == PeopleAction.RESTORE:
        whens = [When(withdrawn_at__isnull=True, then=Value(LeftOut.NOT_WITHDRAWN))]
    else:
        whens = [When(withdrawn_at__isnull=False, then=Value(
            LeftOut.ALREADY_WITHDRAWN if action == PeopleAction.WITHDRAW else LeftOut.WITHDRAWN))]
        if action == PeopleAction.SLIPS:
            whens.append(When(school__isnull=True, then=Value(LeftOut.NO_SCHOOL)))
    return Case(*whens, default=Value(""), output_field=models.CharField())


def _chosen(scope: Scope, survey: Survey, respondent_ids: Iterable[int],
            search: PeopleSearch | None) -> QuerySet[Respondent]:
    """The chosen people in ``scope``: the ticked ``respondent_ids``, or everyone ``search`` finds."""
    people = respondents_search(scope=scope, survey=survey, search=search or PeopleSearch())
    return people if search is not None else people.filter(pk__in=list(respondent_ids))


def respondents_for_action(*, scope: Scope, survey: Survey, action: str, respondent_ids: Iterable[int] = (),
                           search: PeopleSearch | None = None) -> QuerySet[Respondent]:
    """Those of the chosen people (the ticked ``respondent_ids``, or everyone ``search`` finds) that ``action``
    would change, in ``scope``, in the search's order: the withdrawn for a restore, the others for the rest (a
    slip also needs a school). What the confirm page lists; the service checks it all again."""
    return _chosen(scope, survey, respondent_ids, search).annotate(left_out=_left_out_reason(action)).filter(
        left_out="")


@dataclass(frozen=True)
class Chosen:
    """The people chosen for an action, as its confirm page tells them: how many were chosen, the ids the action
    takes (in the search's order), and how many it leaves out and why ({LeftOut: count})."""

    chosen: int
    ids: list[int]
    left_out: dict[str, int]

    @property
    def left_out_count(self) -> int:
        return sum(self.left_out.values())


def people_chosen(*, scope: Scope, survey: Survey, action: str, respondent_ids: Iterable[int] = (),
                  search: PeopleSearch | None = None, limit: int = SELECTION_MAX) -> Chosen | None:
    """Who of the chosen people (the ticked ``respondent_ids``, or everyone ``search`` finds) ``action`` takes,
    and who it leaves out and why: one query of the chosen in ``scope`` (ticked ids the scope does not reach are
    left out as not in it). None when more than ``limit`` are chosen: the caller asks for fewer."""
    ticked = set() if search is not None else set(respondent_ids)
    rows = list(_chosen(scope, survey, ticked, search).annotate(left_out=_left_out_reason(action))
                .values_list("pk", "left_out")[:limit + 1])
    if len(rows) > limit:
        return None
    left_out = Counter(reason for _, reason in rows if reason)
    if search is None and len(ticked) > len(rows):
        left_out[LeftOut.OUT_OF_SCOPE] = len(ticked) - len(rows)
    return Chosen(chosen=len(rows) + left_out[LeftOut.OUT_OF_SCOPE], ids=[pk for pk, reason in rows if not reason],
                  left_out={reason: left_out[reason] for reason in LeftOut if left_out[reason]})


class LeftOutReason(TypedDict):
    """What ``people_left_out`` adds to each person: why the action leaves them out (a LeftOut value)."""

    left_out: str


def people_left_out(*, scope: Scope, survey: Survey, action: str, respondent_ids: Iterable[int] = (),
                    search: PeopleSearch | None = None) -> "QuerySet[WithAnnotations[Respondent, LeftOutReason]]":
    """The chosen people in ``scope`` that ``action`` leaves out, each with ``left_out`` (a LeftOut value), in the
    search's order: who the confirm page names as left out."""
    return _chosen(scope, survey, respondent_ids, search).annotate(left_out=_left_out_reason(action)).exclude(
        left_out="")


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
