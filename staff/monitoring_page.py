"""The monitoring page's table columns and charts.

The charts are plain data for ``json_script``: staff/static/staff/monitoring.js
draws them with Chart.js, and the template writes the same figures as a table
beside each chart (what is read with JavaScript off, and by screen readers).
"""
from collections.abc import Sequence
from datetime import datetime
from urllib.parse import urlencode

from django.http import QueryDict
from django.utils import timezone

from monitoring.selectors import MY_SCHOOLS, SORTS, Completion, CompletionHome, CompletionOverview
from surveys.page_names import page_name

# The table's columns: sort key, heading, numeric (a first click sorts high to low).
COLUMNS = [
    ("name", "Group", False), ("rostered", "Rostered", True), ("withdrawn", "Withdrawn", True),
    ("not_started", "Not started", True), ("in_progress", "In progress", True), ("page", "Median page", True),
    ("completed", "Completed", True), ("rate", "Completion rate", True), ("activity", "Last activity", True),
]

CHILDREN = {"state": "district", MY_SCHOOLS: "school", "district": "school", "school": "grade and role"}


def monitoring_trail(overview: CompletionOverview, home: CompletionHome) -> list[tuple[str, str | None]]:
    """The page's breadcrumbs after the survey's: [(label, query string, or None for the page itself)], from
    "Completion" (the level the staff member's page opens on, ``home``) to this one; a district between only when
    the page opens on the state."""
    place = overview.school or overview.district
    if home.holds(overview) or place is None:
        return [("Completion", None)]
    trail: list[tuple[str, str | None]] = [("Completion", "")]
    if overview.school is not None and home.level == "state":
        district = overview.school.district
        trail.append((district.name, "?" + urlencode({"district": district.code})))
    trail.append((place.name, None))
    return trail


def monitoring_charts(
        overview: CompletionOverview, rows: Sequence[Completion], *, hours: Sequence[tuple[datetime, int]],
) -> tuple[dict[str, Sequence[tuple[object, object]]], dict[str, dict[str, object]]]:
    """The three charts of a monitoring page: completion rate of each row (sorted, the whole's rate marked),
    completions per hour, and the page where in-progress respondents sit (named as in the definition, a
    conditional page marked and its condition given); with ``tables``, their figures as (label, value) pairs
    (a page's label is its PageName), which ``json_script`` does not get."""
    by_name = SORTS["name"]
    by_rate = sorted(rows, key=lambda row: (-row.completion_rate, by_name(row)))
    stops = [(page_name(overview.pages, page), count) for page, count in overview.whole.stops()]
    tables: dict[str, Sequence[tuple[object, object]]] = {
        "rates": [(row.label, row.completion_rate) for row in by_rate],
        "hours": [(hour, count) for hour, count in hours if count], "stops": stops}
    return tables, {
        "rates": {
            "title": f"Completion rate by {CHILDREN[overview.level]}",
            "labels": [row.label for row in by_rate],
            "values": [row.completion_rate for row in by_rate],
            "reference": overview.whole.completion_rate,
            "reference_label": f"{overview.whole.label}: {overview.whole.completion_rate}%",
        },
        "hours": {
            "title": "Completions per hour",
            "labels": [timezone.localtime(hour).strftime("%m-%d %H:00") for hour, _ in hours],
            "values": [count for _, count in hours],
        },
        "stops": {
            "title": "Where in-progress respondents stopped: the page they resume on",
            "labels": [name.label for name, _ in stops],
            "values": [count for _, count in stops],
            "notes": [f"Shown only if {name.shown_if}" if name.conditional else "" for name, _ in stops],
            "conditional": overview.conditional,
        },
    }


def sort_columns(query: QueryDict, sort: str) -> list[dict[str, object]]:
    """The table's headings with their sort links (keeping the rest of ``query``, a QueryDict) and aria-sort."""
    columns: list[dict[str, object]] = []
    for key, title, numeric in COLUMNS:
        current = sort.lstrip("-") == key
        descending = sort.startswith("-")
        if current:
            next_sort = key if descending else f"-{key}"
        else:
            next_sort = f"-{key}" if numeric else key
        params = query.copy()
        params["sort"] = next_sort
        columns.append({"title": title, "numeric": numeric, "href": f"?{params.urlencode()}",
                        "aria_sort": ("descending" if descending else "ascending") if current else ""})
    return columns
