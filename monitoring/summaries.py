"""Completion monitoring: counts per state, district, school, grade and role, aggregated off the save path.

``completion_summary_refresh`` rebuilds one survey's CompletionSummary rows
from a replica (when one is up and current; the master otherwise): three
GROUP BY queries over the survey's respondents, whatever their number (by
school, grade and role; the page in-progress people sit on; completions per
school and hour), rolled up in Python to school, district and state rows,
then one transaction that replaces the survey's rows. A periodic Celery task
runs it for every open survey; the embedded default runs it on request.

``completion_overview`` reads only the summary, only the rows of the level it
shows, through the staff member's scope: the state and its districts, a
district and its schools, a school and its grade-and-role groups (in grade
order: ``respondents.grades``); a school coordinator's schools side by side.
So a page reads a few hundred rows at most, for 2,000 schools as for 20. A
scope that covers only some schools adds its school rows up itself (their
districts' rows count schools it may not see). Medians of the page reached
come from the merged page histograms, so they are exact at every level.
``completion_home`` says which level a staff member's page opens on: their
school, their schools, their district, or the state.

Pages are named as staff see them everywhere (``PageName``): the
definition's number and title, "Page 5 — Your teaching". A respondent's
"Page X of Y" counts only the pages that apply to them, so where pages have a
``show_if`` their X can be lower than the definition's number; such pages are
marked, with their condition in words. ``current_page`` is the page a
respondent's last save led to, the one they resume on.
"""
import csv
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import IO, TYPE_CHECKING, cast

from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.db.models.functions import TruncHour
from django.utils import timezone
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas

from accounts.audit import Action, audit_record
from accounts.scopes import Role, Scope
from fileformats.pdf import draw_text, fitted_text
from fileformats.tables import moment_text, spreadsheet_safe
from monitoring.models import CompletionSummary
from respondents.grades import grade_sort_key
from respondents.handout import handout_group, in_handout_order
from respondents.models import District, Respondent, School
from surveys.models import Survey
from surveys.rules import rule_describe
from surveys.selectors import survey_flow, survey_pages

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison, SupportsWrite

Status = Respondent.Status
Level = CompletionSummary.Level
COUNTS = ("rostered", "withdrawn", "not_started", "in_progress", "completed")
# The level of a school coordinator's schools by school: their school rows summed (no summary row is theirs).
MY_SCHOOLS = "schools"


@dataclass(frozen=True)
class PageName:
    """A page of the survey's definition as staff see it: its number and title, and when it is shown."""

    number: int
    title: str = ""
    # The page's show_if in words, to follow "if" ("you chose “Teacher” for “Your role”"); "" when it always applies.
    shown_if: str = ""

    def __str__(self) -> str:
        return f"Page {self.number} — {self.title}" if self.title else f"Page {self.number}"

    @property
    def conditional(self) -> bool:
        return bool(self.shown_if)

    @property
    def label(self) -> str:
        """The name, marked for a page that only some respondents see."""
        return f"{self} (conditional)" if self.shown_if else str(self)


def page_names(*, survey: Survey) -> dict[int, PageName]:
    """Return ``{number: PageName}`` of every page of ``survey``'s definition (the definition cache's rows)."""
    pages = survey_pages(survey=survey)
    shown_if: dict[int, str] = {}
    if any(page.show_if is not None for page in pages):
        flow = survey_flow(survey=survey)
        prompts, choice_labels = flow.texts(survey.default_language)
        shown_if = {number: rule_describe(rule, prompts=prompts, choice_labels=choice_labels)
                    for number, rule in flow.page_rules.items()}
    return {page.position: PageName(page.position, page.title, shown_if.get(page.position, "")) for page in pages}


def page_name(names: Mapping[int, PageName], number: int) -> PageName:
    """The PageName of page ``number`` in ``names`` (``page_names``); a page the definition no longer has is
    named by its number."""
    return names.get(number) or PageName(number)


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


def completion_summary_refresh(*, survey: Survey, using: str | None = None) -> int:
    """Rebuild ``survey``'s completion summary from database ``using`` (a replica); return the group rows written."""
    respondents = Respondent.objects.using(using).filter(survey=survey).order_by()
    active = Q(withdrawn_at__isnull=True)
    groups = respondents.values("school_id", "school__district_id", "grade", "role").annotate(
        rostered=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
        not_started=Count("pk", filter=active & Q(status=Status.NOT_STARTED)),
        in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
        last_activity=Max("last_saved_at"),
    )
    pages: dict[tuple[int | None, str, str], dict[str, int]] = {}
    for row in (respondents.filter(active, status=Status.IN_PROGRESS)
                .values("school_id", "grade", "role", "current_page").annotate(count=Count("pk"))):
        pages.setdefault((row["school_id"], row["grade"], row["role"]), {})[str(row["current_page"])] = row["count"]
    # Every group adds into its school, its district and the state (Completion.add, the same sum the pages use).
    state = Completion()
    districts: dict[int | None, Completion] = {}
    schools: dict[int | None, tuple[int | None, Completion]] = {}
    rows: list[CompletionSummary] = []
    now = timezone.now()
    for values in groups:
        district_id: int | None = values["school__district_id"]  # None: a respondent without a school
        key = (values["school_id"], values["grade"], values["role"])
        group = CompletionSummary(survey=survey, level=Level.GROUP, refreshed_at=now, district_id=district_id,
                                  pages=pages.get(key, {}), school_id=values["school_id"], grade=values["grade"],
                                  role=values["role"], rostered=values["rostered"], withdrawn=values["withdrawn"],
                                  not_started=values["not_started"], in_progress=values["in_progress"],
                                  completed=values["completed"], last_activity=values["last_activity"])
        rows.append(group)
        school = schools.setdefault(group.school_id, (district_id, Completion()))[1]
        for level in (school, districts.setdefault(district_id, Completion()), state):
            level.add(group)
    completed = (respondents.filter(active, status=Status.COMPLETED, completed_at__isnull=False)
                 .annotate(hour=TruncHour("completed_at", tzinfo=UTC)).values("school_id", "hour")
                 .annotate(count=Count("pk")))
    for hourly in completed:
        district_id, school = schools[hourly["school_id"]]
        for level in (school, districts[district_id], state):
            level.completions[hourly["hour"].isoformat()] += hourly["count"]

    def summary(completion: Completion, level: str, **where: int | None) -> CompletionSummary:
        return CompletionSummary(survey=survey, level=level, refreshed_at=now, pages=dict(completion.pages),
                                 completions=dict(completion.completions), last_activity=completion.last_activity,
                                 **{name: getattr(completion, name) for name in COUNTS}, **where)

    written = len(rows)
    rows += [summary(school, Level.SCHOOL, school_id=school_id, district_id=district_id)
             for school_id, (district_id, school) in schools.items()]
    rows += [summary(district, Level.DISTRICT, district_id=district_id) for district_id, district in districts.items()]
    rows.append(summary(state, Level.STATE))
    with transaction.atomic(durable=True):
        CompletionSummary.objects.filter(survey=survey).delete()
        CompletionSummary.objects.bulk_create(rows, batch_size=2000)
    return written


def completion_summaries_refresh(*, using: str | None = None) -> int:
    """Rebuild the completion summary of every open survey, reading database ``using``; return how many."""
    surveys = list(Survey.objects.filter(status=Survey.Status.OPEN))
    for survey in surveys:
        completion_summary_refresh(survey=survey, using=using)
    return len(surveys)


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


# ---------------------------------------------------------------- non-responders

NON_RESPONDER_COLUMNS = ["external_id", "grade", "role", "status", "current_page", "current_page_name",
                         "last_saved_at"]
WITH_CODES = ["display_name", "access_code"]


def non_responders(*, scope: Scope, survey: Survey, school: School, grade: str | None = None) -> QuerySet[Respondent]:
    """The school's respondents (in scope, not withdrawn) who have not finished: not started or in progress,
    by hand-out group (grade, or role for those without one: ``respondents.handout.in_handout_order``) then
    external id."""
    people = scope.respondents(survey).filter(
        school=school, withdrawn_at=None, status__in=[Status.NOT_STARTED, Status.IN_PROGRESS])
    if grade is not None:
        people = people.filter(grade=grade)
    return in_handout_order(people)


def non_responders_write_csv(*, scope: Scope, survey: Survey, school: School, people: QuerySet[Respondent],
                             stream: "SupportsWrite[str]", about: str = "") -> None:
    """Write the non-responders as CSV (times as exports write them: ``moment_text``); display names and codes
    only for a scope that may see codes (then audited as codes downloaded; ``about`` says which list, for the
    entry)."""
    columns = NON_RESPONDER_COLUMNS + (WITH_CODES if scope.can_see_codes else [])
    names = page_names(survey=survey)
    writer = csv.writer(stream)
    writer.writerow(columns)
    for person in people.iterator(chunk_size=2000):
        values: dict[str, object] = {name: getattr(person, name) for name in columns if name != "current_page_name"}
        values["current_page_name"] = page_name(names, person.current_page).label
        values["access_code"] = person.formatted_access_code
        values["last_saved_at"] = moment_text(person.last_saved_at)
        writer.writerow([spreadsheet_safe(values[name]) for name in columns])
    _audit_codes(scope, survey, school, f"not-finished list (CSV){about}")


def non_responders_write_pdf(*, scope: Scope, survey: Survey, school: School, people: QuerySet[Respondent],
                             stream: "SupportsWrite[bytes]", about: str = "") -> int:
    """A printable list for teachers, a page per grade (or role, for people without a grade): who has not
    finished, how far they are (the page they resume on, named as in the definition), and (for a scope that may
    see codes, then audited) their name and code to hand out again; return how many."""
    canvas = Canvas(cast(IO[bytes], stream), pagesize=letter, pageCompression=1)  # reportlab only writes to it
    canvas.setTitle(f"{survey.title}: not finished, {school.name}")
    width, height = letter
    margin, line = 0.6 * inch, 14
    codes = scope.can_see_codes
    names = page_names(survey=survey)
    columns = [("External id", 0), ("Status", 1.2), ("Page", 2.0)] + (
        [("Name", 4.5), ("Access code", 6.3)] if codes else [])
    ends = [x for _, x in columns[1:]] + [(width - 2 * margin) / inch]

    def header(group: str, page_number: int) -> float:
        draw_text(canvas, margin, height - margin, f"{survey.title}: not finished", size=13, bold=True)
        draw_text(canvas, margin, height - margin - 16, f"{school.name} ({school.code})"
                  + (f" · {group}" if group else "") + f" · printed {timezone.localtime():%Y-%m-%d %H:%M}"
                  + (f" · page {page_number}" if page_number > 1 else ""), size=10)
        canvas.setFont("Helvetica-Bold", 9)
        for title, x in columns:
            canvas.drawString(margin + x * inch, height - margin - 40, title)
        canvas.setFont("Helvetica", 9)
        return height - margin - 40 - line

    count, page_number = 0, 0
    group: str | None = None
    y = 0.0
    for person in people.iterator(chunk_size=2000):
        group_of_person = handout_group(person.grade, person.role)
        if group_of_person != group or y < margin:
            if count:
                canvas.showPage()
            page_number = 1 if group_of_person != group else page_number + 1
            group = group_of_person
            y = header(group, page_number)
        page = page_name(names, person.current_page)
        cells = [person.external_id, person.get_status_display(), str(page)] + (
            [person.display_name, person.formatted_access_code] if codes else [])
        for (title, x), end, text in zip(columns, ends, cells, strict=True):
            # Each cell cut to its column (less a gap); a page keeps its "(conditional)" whole; a name in any script.
            room = (end - x) * inch - 6
            if title == "Access code":
                canvas.setFont("Courier-Bold", 9)
                canvas.drawString(margin + x * inch, y, fitted_text(text, "Courier-Bold", 9, room))
                continue
            kept = page.label[len(str(page)):] if title == "Page" else ""
            draw_text(canvas, margin + x * inch, y, text, size=9, room=room, kept=kept)
        y -= line
        count += 1
    if not count:
        header("", 1)
        canvas.drawString(margin, height - margin - 60, "Everyone has finished.")
    canvas.showPage()
    canvas.save()
    _audit_codes(scope, survey, school, f"not-finished list (PDF){about}, {count} people")
    return count


def _audit_codes(scope: Scope, survey: Survey, school: School, detail: str) -> None:
    if scope.can_see_codes:
        audit_record(scope=scope, action=Action.CODES_DOWNLOADED, survey=survey, school=school, detail=detail)
