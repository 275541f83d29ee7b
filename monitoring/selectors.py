"""What the monitoring pages read: one level of a survey's completion from its summary, through the staff
member's scope, and who at a school has not finished (docs/architecture.md, "Completion monitoring")."""
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import QuerySet

from accounts.scopes import Role, Scope
from monitoring.models import CompletionSummary
from respondents.grades import grade_sort_key
from respondents.handout import in_handout_order
from respondents.models import District, Respondent, School
from surveys.models import Survey
from surveys.page_names import PageName, page_name, page_names

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

Status = Respondent.Status
Level = CompletionSummary.Level
COUNTS = ("rostered", "withdrawn", "not_started", "in_progress", "completed")
# The level of a school coordinator's schools by school: their school rows summed (no summary row is theirs).
MY_SCHOOLS = "schools"


@dataclass
class Completion:
    """Counts of one group (the state, a district, a school, a grade and role)."""

    label: str = ""
    code: str = ""
    grade: str = ""  # of a grade-and-role group, which sorts by it (``grade_sort_key``)
    rostered: int = 0
    withdrawn: int = 0
    not_started: int = 0
    in_progress: int = 0
    completed: int = 0
    pages: Counter[int] = field(default_factory=Counter)  # in-progress respondents by the page they are on
    completions: Counter[str] = field(default_factory=Counter)  # completions by hour (ISO 8601, UTC)
    last_activity: datetime | None = None
    # The definition's pages (``page_names``), to name the median page; not a count, so ``add`` leaves it.
    page_names: dict[int, PageName] = field(default_factory=dict, repr=False, compare=False)

    def add(self, row: "CompletionSummary | Completion") -> None:
        """Add the counts and histograms of ``row`` (a CompletionSummary or a Completion)."""
        for name in COUNTS:
            setattr(self, name, getattr(self, name) + getattr(row, name))
        self.pages.update({int(page): count for page, count in row.pages.items()})
        self.completions.update(row.completions)
        if row.last_activity and (self.last_activity is None or row.last_activity > self.last_activity):
            self.last_activity = row.last_activity

    @property
    def completion_rate(self) -> float:
        """Completed of rostered (withdrawn people left out), in percent, one decimal."""
        return round(100 * self.completed / self.rostered, 1) if self.rostered else 0.0

    @property
    def median_page(self) -> int | None:
        """The median page in-progress respondents have reached (the lower one of an even count: a page), or None."""
        total = sum(self.pages.values())
        if not total:
            return None
        middle, seen = (total + 1) // 2, 0
        for page in sorted(self.pages):
            seen += self.pages[page]
            if seen >= middle:
                return page
        return None

    @property
    def median_page_name(self) -> PageName | None:
        """The median page as a PageName, or None."""
        median = self.median_page
        return None if median is None else page_name(self.page_names, median)

    def stops(self) -> list[tuple[int, int]]:
        """Where in-progress respondents sit: [(page, count)] for every page from 1 to the last one reached."""
        return [(page, self.pages.get(page, 0)) for page in range(1, max(self.pages, default=0) + 1)]


@dataclass(frozen=True)
class CompletionOverview:
    """One level of a survey's completion: ``whole`` (the state or the scope's schools, a district, a school)
    and its ``children`` (districts, schools, grade-and-role groups), with when the counts were made."""

    level: str
    whole: Completion
    children: list[Completion]
    refreshed_at: datetime | None
    district: District | None = None
    school: School | None = None
    # {number: PageName} of the survey's definition (``page_names``).
    pages: dict[int, PageName] = field(default_factory=dict)

    @property
    def conditional(self) -> bool:
        """Whether some page is shown only to some respondents."""
        return any(name.conditional for name in self.pages.values())


@dataclass(frozen=True)
class CompletionHome:
    """Where a staff member's completion page opens: a level (Level, or MY_SCHOOLS), and its district or school."""

    level: str
    district: District | None = None
    school: School | None = None

    def holds(self, overview: CompletionOverview) -> bool:
        """Whether ``overview`` is this level (the page opened on)."""
        return overview.level == self.level and overview.school == self.school and (
            overview.school is not None or overview.district == self.district)


def completion_home(*, scope: Scope) -> CompletionHome:
    """Where ``scope``'s completion page opens, so that nobody clicks through a level that holds only what is
    theirs: a scope of one school on that school; a school coordinator's several schools side by side
    (MY_SCHOOLS); a scope within one district (a district coordinator's) on that district; else the state (or
    the scope's schools) by district. At most one query."""
    if scope.school_ids is None:
        return CompletionHome(Level.STATE)
    if len(scope.school_ids) == 1:
        school = scope.schools().first()
        return CompletionHome(Level.SCHOOL, school=school) if school else CompletionHome(MY_SCHOOLS)
    if scope.role == Role.SCHOOL_COORDINATOR:
        return CompletionHome(MY_SCHOOLS)
    districts = list(scope.districts().order_by("code")[:2])
    return CompletionHome(Level.DISTRICT, district=districts[0]) if len(districts) == 1 else CompletionHome(Level.STATE)


def completion_overview(*, scope: Scope, survey: Survey, district: District | None = None,
                        school: School | None = None) -> CompletionOverview:
    """The survey's completion within ``scope``: the state (or the scope's schools) by district, a school
    coordinator's schools by school (MY_SCHOOLS), a ``district`` by school, or a ``school`` by grade and role.
    The caller has checked the district or school is in scope."""
    summary = CompletionSummary.objects.filter(survey=survey)
    names = page_names(survey=survey)
    if scope.school_ids is not None:
        summary = summary.filter(school_id__in=scope.school_ids)
    if school is not None:
        rows = summary.filter(school=school, level__in=[Level.SCHOOL, Level.GROUP]).order_by("level", "grade", "role")
        return _overview(Level.SCHOOL, school.name, rows, group_of=_group, pages=names,
                         district=school.district, school=school)
    if district is not None:
        rows = summary.filter(district=district).select_related("school").order_by("school__code")
        rows = rows.filter(level__in=[Level.DISTRICT, Level.SCHOOL] if scope.all_schools else [Level.SCHOOL])
        return _overview(Level.DISTRICT, district.name, rows, group_of=_school, pages=names,
                         district=district)
    if scope.all_schools:
        rows = summary.filter(level__in=[Level.STATE, Level.DISTRICT]).select_related("district").order_by(
            "district__code")
        return _overview(Level.STATE, survey.title, rows, group_of=_district, pages=names)
    if scope.role == Role.SCHOOL_COORDINATOR:
        rows = summary.filter(level=Level.SCHOOL).select_related("school").order_by("school__code")
        return _overview(MY_SCHOOLS, "Your schools", rows, group_of=_school, pages=names)
    rows = summary.filter(level=Level.SCHOOL).select_related("district").order_by("district__code")
    return _overview(Level.STATE, "Your schools", rows, group_of=_district, pages=names)


def _overview(level: str, label: str, rows: Iterable[CompletionSummary], *,
              group_of: Callable[[CompletionSummary], tuple[str, str]], pages: dict[int, PageName],
              district: District | None = None, school: School | None = None) -> CompletionOverview:
    """The row at ``level`` as the whole (or, for a scope that has no such row, the sum of the others) and the
    other rows summed into children keyed by ``group_of``; each names its pages from ``pages``."""
    whole: Completion | None = None
    summed = Completion(label=label, page_names=pages)
    children: dict[str, Completion] = {}
    refreshed_at: datetime | None = None
    for row in rows:
        refreshed_at = row.refreshed_at if refreshed_at is None else max(refreshed_at, row.refreshed_at)
        if row.level == level:
            whole = Completion(label=label, page_names=pages)
            whole.add(row)
            continue
        key, child_label = group_of(row)
        child = children.get(key)
        if child is None:
            child = children[key] = Completion(label=child_label, code=key, page_names=pages,
                                               grade=row.grade if row.level == Level.GROUP else "")
        child.add(row)
        summed.add(row)
    return CompletionOverview(level=level, whole=whole or summed, children=list(children.values()),
                              refreshed_at=refreshed_at, pages=pages, district=district, school=school)


def _district(row: CompletionSummary) -> tuple[str, str]:
    return (row.district.code, row.district.name) if row.district else ("", "No school")


def _school(row: CompletionSummary) -> tuple[str, str]:
    return (row.school.code, row.school.name) if row.school else ("", "No school")


def _group(row: CompletionSummary) -> tuple[str, str]:
    return f"{row.grade}/{row.role}", " · ".join(
        part for part in (row.grade and f"grade {row.grade}", row.role) if part) or "—"


# Sort keys of the monitoring tables: name (the default; a grade-and-role group by its grade first, in grade order),
# then each count; a "-" before one sorts high first.
SORTS: dict[str, Callable[[Completion], "SupportsRichComparison"]] = {
    "name": lambda c: (grade_sort_key(c.grade), c.label.casefold(), c.code), "code": lambda c: c.code,
    **{name: (lambda name: lambda c: getattr(c, name))(name) for name in COUNTS},
    "rate": lambda c: c.completion_rate, "page": lambda c: c.median_page or 0,
    "activity": lambda c: c.last_activity or datetime.min.replace(tzinfo=UTC)}


def completion_rows(children: Iterable[Completion], *, sort: str = "name", query: str = "",
                    below: float | None = None) -> list[Completion]:
    """``children`` filtered (name or code containing ``query``; completion rate under ``below`` percent) and
    sorted by ``sort`` (a key of SORTS, "-" first for high to low; an unknown key sorts by name)."""
    query = query.strip().casefold()
    rows = [c for c in children if (not query or query in c.label.casefold() or query in c.code.casefold())
            and (below is None or c.completion_rate < below)]
    key = SORTS.get(sort.lstrip("-"), SORTS["name"])
    return sorted(rows, key=key, reverse=sort.startswith("-") and sort.lstrip("-") in SORTS)


# The longest series of hours a chart shows (the latest ones): 62 days.
HOURS_SHOWN = 24 * 62


def completions_per_hour(completion: Completion, *, opens_at: datetime | None = None,
                         until: datetime | None = None) -> list[tuple[datetime, int]]:
    """Completions per hour, every hour from the survey's opening (or the first completion) to the last
    completion (or ``until``, when later): [(hour, count)], oldest first; [] before any completion."""
    if not completion.completions:
        return []
    hours = {datetime.fromisoformat(hour): count for hour, count in completion.completions.items()}
    first, last = min(hours), max(hours)
    if opens_at is not None:
        first = min(first, opens_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0))
    if until is not None:
        last = max(last, until.astimezone(UTC).replace(minute=0, second=0, microsecond=0))
    first = max(first, last - timedelta(hours=HOURS_SHOWN - 1))
    series: list[tuple[datetime, int]] = []
    hour = first
    while hour <= last:
        series.append((hour, hours.get(hour, 0)))
        hour += timedelta(hours=1)
    return series


def non_responders(*, scope: Scope, survey: Survey, school: School, grade: str | None = None) -> QuerySet[Respondent]:
    """The school's respondents (in scope, not withdrawn) who have not finished: not started or in progress,
    by hand-out group (grade, or role for those without one: ``respondents.handout.in_handout_order``) then
    external id."""
    people = scope.respondents(survey).filter(
        school=school, withdrawn_at=None, status__in=[Status.NOT_STARTED, Status.IN_PROGRESS])
    if grade is not None:
        people = people.filter(grade=grade)
    return in_handout_order(people)

