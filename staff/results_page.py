"""The results page's sections and charts: each question on its own, a grid's rows together (one table, one
stacked 100% bar chart).

The charts are plain data for ``json_script``: staff/static/staff/results.js draws them with Chart.js, and the
template writes the same figures as tables (what is read with JavaScript off, and by screen readers). A suppressed
count is never in the data: its bar (or its part of a grid row's bar) is null, and its label says "(suppressed)".
"""
from collections.abc import Iterable
from dataclasses import dataclass

from results.selectors import QuestionResult, SurveyResults


@dataclass(frozen=True)
class GridSection:
    """A grid's rows (QuestionResults, ``heading`` the grid's prompt) with the choices they share."""

    code: str
    prompt: str
    labels: tuple[str, ...]
    rows: tuple[QuestionResult, ...]

    @property
    def has_figures(self) -> bool:
        return any(_drawn(row) for row in self.rows)


def _drawn(row: QuestionResult) -> bool:
    """Whether a grid row has a bar: percentages to draw (how many answered shown, and someone did)."""
    return bool(row.cells and row.answered)


def results_sections(results: SurveyResults) -> list[GridSection | QuestionResult]:
    """The page's questions in order, a grid's rows gathered into one GridSection."""
    by_code = {question.code: question for question in results.questions}
    language = results.page.survey.default_language
    sections: list[GridSection | QuestionResult] = []
    for item in results.page.items:
        if item.row_list:
            rows = tuple(by_code[row.code] for row in item.row_list if row.code in by_code)
            if rows:
                sections.append(GridSection(code=item.code, prompt=item.translated("prompt", language), rows=rows,
                                            labels=tuple(c.translated("label", language) for c in item.choice_list)))
        elif item.code in by_code:
            sections.append(by_code[item.code])
    return sections


def results_charts(sections: Iterable[GridSection | QuestionResult]) -> list[dict[str, object]]:
    """The charts' data: a bar chart of each question's counts, and a stacked 100% bar chart of each grid (a row a
    bar, a choice a colour, the row's percentages: none for a row whose count of those who answered is hidden);
    none for a question counted only, with too few answers, or none."""
    charts: list[dict[str, object]] = []
    for section in sections:
        if isinstance(section, GridSection):
            if section.has_figures:
                charts.append(_grid_chart(section))
        elif section.cells and section.answered != 0:
            charts.append({"code": section.code, "kind": "bar",
                           "labels": [c.label + (" (suppressed)" if c.suppressed else "") for c in section.cells],
                           "values": [c.count for c in section.cells]})
    return charts


def _grid_chart(grid: GridSection) -> dict[str, object]:
    rows: list[str | list[str]] = []
    series: list[list[float | None]] = [[] for _ in grid.labels]
    for row in grid.rows:
        shown = _drawn(row)
        if row.too_few:
            note = ["too few answers to show"]
        elif row.answered is None:
            note = ["not drawn: how many answered is suppressed"]
        elif not shown:
            note = ["no answers in this selection"]
        else:
            note = [f"{c.label} (suppressed)" for c in row.cells if c.suppressed]
        # A label of several lines: the row's prompt, then what is not drawn.
        rows.append([row.prompt, ", ".join(note)] if note else row.prompt)
        cells = row.cells if shown else ()
        for values, cell in zip(series, (*cells, *([None] * (len(grid.labels) - len(cells)))), strict=True):
            values.append(None if cell is None or cell.suppressed else cell.percent)
    return {"code": grid.code, "kind": "stacked", "labels": rows,
            "series": [{"label": label, "values": values} for label, values in zip(grid.labels, series, strict=True)]}
