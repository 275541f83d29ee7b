"""Which respondents an export holds: by status, by district or school, by the day they completed.

``export_filter_make`` reads what was typed, ``export_filter_check`` checks it against the scope (every problem at
once), ``export_filter_apply`` puts it into the query. Read next: ``docs/architecture.md``, "Filtered exports".
"""
import operator
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import reduce
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q, QuerySet

from accounts.scopes import Scope
from respondents.code_lists import join_codes, split_codes
from respondents.models import District, Respondent, School

# The statuses an export may be filtered by, in the order they are listed, with their words.
STATUSES = {
    "completed": "completed",
    "in_progress": "in progress",
    "not_started": "not started",
    "withdrawn": "withdrawn",
}
# The statuses whose respondents have a completion time (a withdrawn one may have completed before).
COMPLETION_STATUSES = frozenset({"completed", "withdrawn"})
# The filter's parts, as the form's fields and the command's options name them.
PARTS = {"statuses": "--status", "districts": "--district", "schools": "--school",
         "completed_from": "--completed-from", "completed_to": "--completed-to"}


@dataclass(frozen=True)
class FilterProblem:
    part: str  # one of PARTS, or "" for the filter as a whole
    message: str


class ExportFilterError(ValueError):
    """A filter that cannot be used as asked; ``problems`` lists every reason, each with its part."""

    def __init__(self, problems: Iterable[FilterProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__(" ".join(problem.message for problem in self.problems))


@dataclass(frozen=True)
class ExportFilter:
    """Which respondents an export holds, as codes (``docs/architecture.md``, "Filtered exports"); empty parts filter
    nothing."""

    statuses: tuple[str, ...] = ()
    districts: tuple[str, ...] = ()
    schools: tuple[str, ...] = ()
    completed_from: date | None = None
    completed_to: date | None = None

    def __post_init__(self) -> None:
        # Codes in one order whatever order they were typed in, each once: the same filter is the same value.
        for name in ("districts", "schools"):
            object.__setattr__(self, name, tuple(sorted(set(getattr(self, name)))))
        object.__setattr__(self, "statuses", tuple(s for s in STATUSES if s in set(self.statuses))
                           + tuple(sorted(set(self.statuses) - set(STATUSES))))

    @property
    def is_empty(self) -> bool:
        return not (self.statuses or self.districts or self.schools or self.completed_from or self.completed_to)

    def as_dict(self) -> dict[str, Any]:
        """Return the filter as JSON keeps it (``from_dict`` reads it back)."""
        return {"statuses": list(self.statuses), "districts": list(self.districts), "schools": list(self.schools),
                "completed_from": _iso(self.completed_from), "completed_to": _iso(self.completed_to)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "ExportFilter":
        data = data or {}
        return cls(statuses=tuple(data.get("statuses", ())), districts=tuple(data.get("districts", ())),
                   schools=tuple(data.get("schools", ())),
                   completed_from=_date(data.get("completed_from")), completed_to=_date(data.get("completed_to")))

    def describe(self) -> str:
        """Return the filter in words with its codes, on one line: the exports list and the audit log say it so."""
        if self.is_empty:
            return "every respondent"
        parts = []
        if self.statuses:
            parts.append("status " + " or ".join(STATUSES.get(s, s) for s in self.statuses))
        if self.districts:
            parts.append(("district " if len(self.districts) == 1 else "districts ") + join_codes(self.districts))
        if self.schools:
            parts.append(("school " if len(self.schools) == 1 else "schools ") + join_codes(self.schools))
        if self.completed_from or self.completed_to:
            parts.append(self._describe_completion())
        return "; ".join(parts)

    def _describe_completion(self) -> str:
        zone = settings.TIME_ZONE
        if self.completed_from and self.completed_to:
            if self.completed_from == self.completed_to:
                return f"completed on {_iso(self.completed_from)} ({zone})"
            return f"completed from {_iso(self.completed_from)} to {_iso(self.completed_to)}, both days included " \
                   f"({zone})"
        if self.completed_from:
            return f"completed on or after {_iso(self.completed_from)} ({zone})"
        return f"completed on or before {_iso(self.completed_to)} ({zone})"

    def as_options(self) -> str:
        """Return the filter as ``manage.py export_responses`` takes it (empty for no filter)."""
        options = [f"--status {s}" for s in self.statuses]
        options += [f"--district {shlex.quote(code)}" for code in self.districts]
        options += [f"--school {shlex.quote(code)}" for code in self.schools]
        if self.completed_from:
            options.append(f"--completed-from {_iso(self.completed_from)}")
        if self.completed_to:
            options.append(f"--completed-to {_iso(self.completed_to)}")
        return " ".join(options)


NO_FILTER = ExportFilter()


def export_filter_make(*, scope: Scope, statuses: Iterable[str] = (), districts: Iterable[str] = (),
                       schools: Iterable[str] = (), completed_from: str | date | None = None,
                       completed_to: str | date | None = None, deidentified: bool = False) -> ExportFilter:
    """Return the ExportFilter of what was typed (codes separated by commas or spaces may come as one text;
    days as ``YYYY-MM-DD``); raise ExportFilterError with every problem, after ``export_filter_check``."""
    problems: list[FilterProblem] = []
    days: dict[str, date | None] = {}
    for part, value in (("completed_from", completed_from), ("completed_to", completed_to)):
        days[part] = None
        if isinstance(value, date):
            days[part] = value
        elif value and value.strip():
            try:
                days[part] = date.fromisoformat(value.strip())
            except ValueError:
                problems.append(FilterProblem(part, f"'{value.strip()}' is not a day: write it as YYYY-MM-DD "
                                                    f"(2026-11-30)."))
    export_filter = ExportFilter(statuses=tuple(_codes(statuses, lower=True)), districts=tuple(_codes(districts)),
                                 schools=tuple(_codes(schools)), completed_from=days["completed_from"],
                                 completed_to=days["completed_to"])
    try:
        export_filter_check(scope=scope, export_filter=export_filter, deidentified=deidentified)
    except ExportFilterError as error:
        problems.extend(error.problems)
    if problems:
        raise ExportFilterError(sorted(problems, key=lambda p: list(PARTS).index(p.part) if p.part in PARTS else -1))
    return export_filter


def export_filter_check(*, scope: Scope, export_filter: ExportFilter, deidentified: bool = False) -> None:
    """Raise ExportFilterError listing every problem of ``export_filter`` for ``scope``: an unknown status, a
    completion range that ends before it starts or that names a status without a completion time, a district
    or school code that is unknown or outside the scope, a school inside a chosen district; withdrawn
    respondents asked of a de-identified export (which leaves them out)."""
    problems: list[FilterProblem] = []
    unknown = [s for s in export_filter.statuses if s not in STATUSES]
    if unknown:
        problems.append(FilterProblem("statuses", f"Unknown status {', '.join(repr(s) for s in unknown)}: "
                                                  f"choose from {', '.join(STATUSES)}."))
    if deidentified and "withdrawn" in export_filter.statuses:
        problems.append(FilterProblem("statuses", "A de-identified export leaves withdrawn respondents out: "
                                                  "ask for them without de-identifying."))
    start, end = export_filter.completed_from, export_filter.completed_to
    if start and end and end < start:
        problems.append(FilterProblem("completed_to", f"The completion range ends ({_iso(end)}) before it starts "
                                                      f"({_iso(start)})."))
    if start or end:
        without = [STATUSES[s] for s in export_filter.statuses if s in STATUSES and s not in COMPLETION_STATUSES]
        if without:
            problems.append(FilterProblem(
                "statuses", f"A completion date range keeps only respondents who completed: "
                            f"{' and '.join(repr(s) for s in without)} cannot have a completion date. Choose "
                            f"'completed' (or 'withdrawn'), or leave the dates empty."))
    problems += _place_problems(scope=scope, export_filter=export_filter)
    if problems:
        raise ExportFilterError(problems)


def _place_problems(*, scope: Scope, export_filter: ExportFilter) -> list[FilterProblem]:
    problems = []
    districts = dict(District.objects.filter(code__in=export_filter.districts).values_list("code", "pk"))
    in_scope = set(scope.districts().filter(pk__in=districts.values()).values_list("pk", flat=True))
    for code in export_filter.districts:
        if code not in districts:
            problems.append(FilterProblem("districts", f"No district has the code '{code}'."))
        elif districts[code] not in in_scope:
            problems.append(FilterProblem("districts", f"District {code} is outside your scope: you may export "
                                                       f"only the schools you are named to."))
    schools = {code: (pk, district_id) for code, pk, district_id in
               School.objects.filter(code__in=export_filter.schools).values_list("code", "pk", "district_id")}
    chosen = {pk: code for code, pk in districts.items() if pk in in_scope}
    for code in export_filter.schools:
        if code not in schools:
            problems.append(FilterProblem("schools", f"No school has the code '{code}'."))
        elif not scope.covers_school(schools[code][0]):
            problems.append(FilterProblem("schools", f"School {code} is outside your scope: you may export only "
                                                     f"the schools you are named to."))
        elif schools[code][1] in chosen:
            problems.append(FilterProblem("schools", f"School {code} is in district {chosen[schools[code][1]]}, "
                                                     f"which is chosen whole: choose the district or the school."))
    return problems


def export_filter_apply(respondents: QuerySet[Respondent], export_filter: ExportFilter) -> QuerySet[Respondent]:
    """Return ``respondents`` narrowed to those ``export_filter`` keeps, in the query itself."""
    kept = [Q(status__in=active, withdrawn_at__isnull=True)] if (
        active := [s for s in export_filter.statuses if s != "withdrawn"]) else []
    if "withdrawn" in export_filter.statuses:
        kept.append(Q(withdrawn_at__isnull=False))
    place = [*([Q(school__district__code__in=export_filter.districts)] if export_filter.districts else []),
             *([Q(school__code__in=export_filter.schools)] if export_filter.schools else [])]
    for either in (kept, place):  # the choices of one part joined by "or", the parts by "and"
        if either:
            respondents = respondents.filter(reduce(operator.or_, either))
    start, end = completion_bounds(export_filter)
    if start is not None:
        respondents = respondents.filter(completed_at__gte=start)
    if end is not None:
        respondents = respondents.filter(completed_at__lt=end)
    return respondents


def completion_bounds(export_filter: ExportFilter) -> tuple[datetime | None, datetime | None]:
    """Return the completion range as instants: the first of its first day, and the first of the day after its
    last, in the deployment's time zone (an end excluded: a respondent who completed at 23:59:59.9 of the last
    day is in). A day that starts in a daylight-saving gap starts when the clocks have moved."""
    zone = ZoneInfo(settings.TIME_ZONE)
    start = _day_start(export_filter.completed_from, zone) if export_filter.completed_from else None
    end = (_day_start(export_filter.completed_to + timedelta(days=1), zone)
           if export_filter.completed_to else None)
    return start, end


def _day_start(day: date, zone: ZoneInfo) -> datetime:
    # fold=0: of a midnight that happens twice, the first; of one the clocks skip, the instant they jump (the
    # offset before the change applied to 00:00 is that instant).
    # In UTC: Python compares and subtracts two times of one zone by their clock faces, not as instants.
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


def _codes(values: Iterable[str] | str, *, lower: bool = False) -> list[str]:
    """The codes in ``values``: each item may hold several (``split_codes``: commas, spaces, new lines)."""
    if isinstance(values, str):
        values = [values]
    codes = [code for value in values for code in split_codes(value)]
    return [code.lower().replace("-", "_") for code in codes] if lower else codes


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _date(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None

