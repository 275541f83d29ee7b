"""Reads of survey definitions for the survey-taking views: cached, assembled once per process, frozen.

Answers and respondents are read in ``respondents.selectors``. Read next: ``docs/architecture.md``, "Caching rules".
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from surveys.caching import definition_memo
from surveys.flow import SurveyFlow, flow_compile
from surveys.models import Choice, Page, Question, Survey, translated_text

Translations = Mapping[str, Mapping[str, str]]


def _frozen_translations(translations: dict[str, dict[str, str]] | None) -> Translations:
    return MappingProxyType({language: MappingProxyType(dict(texts))
                             for language, texts in (translations or {}).items()})


class _Translated:
    """``translated()`` for a frozen copy of a definition row, as the row has it."""

    __slots__ = ()
    translations: Translations  # each copy's own field

    def translated(self, field: str, language: str | None = None) -> str:
        """Return the text of ``field`` in ``language`` (default: the active one), else in the first language."""
        return translated_text(self, field, language)


@dataclass(frozen=True, eq=False)
class ChoiceDefinition(_Translated):
    """One choice of a question."""

    pk: int
    position: int
    value: str
    label: str
    translations: Translations

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, eq=False)
class QuestionDefinition(_Translated):
    """One question of a page: what the page form, its template and the page save read of it.

    ``choice_list`` holds its choices in order (a grid row's are its grid's),
    and a grid's ``row_list`` its rows. Two copies are equal only when they are
    the same object: each page definition holds one copy of each question.
    """

    pk: int
    survey_id: int
    page_id: int
    grid_id: int | None
    position: int
    code: str
    kind: str
    prompt: str
    help_text: str
    required: bool
    min_value: int | None
    max_value: int | None
    max_length: int | None
    constraint_message: str
    required_message: str
    translations: Translations
    default_value: str
    # Read from the row's own properties, so that they say what Question says.
    is_answerable: bool
    text_max_length: int | None
    choice_list: tuple[ChoiceDefinition, ...] = ()
    row_list: tuple[QuestionDefinition, ...] = ()

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, eq=False)
class PageHeading(_Translated):
    """A page's own texts, shown above its questions, and its place in the survey."""

    pk: int
    position: int
    title: str
    intro: str
    translations: Translations


@dataclass(frozen=True, eq=False)
class PageDefinition:
    """One page of a survey, ready to render and to validate answers against.

    ``items`` are the page's top-level questions in order; each choice question
    carries ``choice_list`` and each grid ``row_list`` (rows carry the grid's
    choices). ``answerable`` maps a question code to every question on the
    page that takes an answer: grid rows included, grids themselves not.
    """

    survey: Survey
    page: PageHeading
    page_count: int
    items: tuple[QuestionDefinition, ...]
    answerable: Mapping[str, QuestionDefinition]

    @property
    def number(self) -> int:
        return self.page.position


def survey_get(*, survey_id: int | None) -> Survey | None:
    """Return the survey with ``survey_id``, or None."""
    return definition_memo.get(("survey", survey_id), lambda: next(iter(Survey.cached.filter(pk=survey_id)), None))


def survey_pages(*, survey: Survey) -> tuple[Page, ...]:
    """Return the survey's pages in order."""
    return definition_memo.get(
        ("pages", survey.pk), lambda: tuple(Page.cached.filter(survey_id=survey.pk).order_by("position"))
    )


def page_count(*, survey: Survey) -> int:
    """Return how many pages the survey has."""
    return len(survey_pages(survey=survey))


def page_definition(*, survey: Survey, number: int) -> PageDefinition | None:
    """Return page ``number`` (from 1) of ``survey`` as a PageDefinition, or None if out of range."""
    # Checked before the memo, which then holds only pages that exist, whatever numbers URLs carry.
    if not 1 <= number <= page_count(survey=survey):
        return None
    return definition_memo.get(("page", survey.pk, number), lambda: _page_definition(survey, number))


def _page_definition(survey: Survey, number: int) -> PageDefinition:
    pages = survey_pages(survey=survey)
    page = pages[number - 1]
    questions: list[Question] = list(Question.cached.filter(page_id=page.pk).order_by("grid_id", "position"))
    choices: dict[int, list[ChoiceDefinition]] = {}
    for choice in Choice.cached.filter(question__page_id=page.pk).order_by("question_id", "position"):
        choices.setdefault(choice.question_id, []).append(_choice_definition(choice))
    # Rows first, so that each grid is made with its rows; a row takes its grid's choices.
    rows: dict[int, list[QuestionDefinition]] = {}
    for question in questions:
        if question.grid_id is not None:
            rows.setdefault(question.grid_id, []).append(
                _question_definition(question, choices=choices.get(question.grid_id, ())))
    items = tuple(
        _question_definition(question, choices=choices.get(question.pk, ()), rows=rows.get(question.pk, ()))
        for question in questions if question.grid_id is None
    )
    answerable = {
        question.code: question for item in items for question in item.row_list or (item,) if question.is_answerable
    }
    return PageDefinition(survey=survey, page=_page_heading(page), page_count=len(pages), items=items,
                          answerable=MappingProxyType(answerable))


def _page_heading(page: Page) -> PageHeading:
    return PageHeading(pk=page.pk, position=page.position, title=page.title, intro=page.intro,
                       translations=_frozen_translations(page.translations))


def _choice_definition(choice: Choice) -> ChoiceDefinition:
    return ChoiceDefinition(pk=choice.pk, position=choice.position, value=choice.value, label=choice.label,
                            translations=_frozen_translations(choice.translations))


def _question_definition(question: Question, *, choices: Iterable[ChoiceDefinition],
                         rows: Iterable[QuestionDefinition] = ()) -> QuestionDefinition:
    return QuestionDefinition(
        pk=question.pk, survey_id=question.survey_id, page_id=question.page_id, grid_id=question.grid_id,
        position=question.position, code=question.code, kind=question.kind, prompt=question.prompt,
        help_text=question.help_text, required=question.required, min_value=question.min_value,
        max_value=question.max_value, max_length=question.max_length, constraint_message=question.constraint_message,
        required_message=question.required_message, translations=_frozen_translations(question.translations),
        default_value=question.default_value, is_answerable=question.is_answerable, text_max_length=question.text_max_length, choice_list=tuple(choices),
        row_list=tuple(rows),
    )


def answerable_questions(*, survey: Survey) -> tuple[Question, ...]:
    """Return every question of the survey that takes an answer, in the order a respondent sees them."""
    return definition_memo.get(("answerable", survey.pk), lambda: _answerable_questions(survey))


def _answerable_questions(survey: Survey) -> tuple[Question, ...]:
    positions = {page.pk: page.position for page in survey_pages(survey=survey)}
    questions: list[Question] = list(Question.cached.filter(survey_id=survey.pk))
    grid_positions = {q.pk: q.position for q in questions if q.kind == Question.Kind.GRID}

    def order(q: Question) -> tuple[int, int, int]:
        top = grid_positions[q.grid_id] if q.grid_id else q.position
        return (positions[q.page_id], top, q.position if q.grid_id else -1)

    return tuple(sorted((q for q in questions if q.is_answerable), key=order))


def required_questions(*, survey: Survey) -> tuple[tuple[int, Question], ...]:
    """Return ``((page_number, question), ...)`` for every required question that takes an answer."""
    def build() -> tuple[tuple[int, Question], ...]:
        positions = {page.pk: page.position for page in survey_pages(survey=survey)}
        return tuple((positions[q.page_id], q) for q in answerable_questions(survey=survey) if q.required)

    return definition_memo.get(("required", survey.pk), build)


def survey_flow(*, survey: Survey) -> SurveyFlow:
    """Return the survey's compiled show_if and constraint rules (``surveys/flow.py``)."""
    return definition_memo.get(("flow", survey.pk), lambda: _survey_flow(survey))


def _survey_flow(survey: Survey) -> SurveyFlow:
    pages = survey_pages(survey=survey)
    questions: list[Question] = list(Question.cached.filter(survey_id=survey.pk))
    # Once a definition a process: the choices too, as rules, calculations (a numbered choice is a number) and
    # cascading selects (a choice's show_if) read them.
    choices: dict[int, list[Choice]] = {}
    for choice in Choice.cached.filter(question__survey_id=survey.pk).order_by("question_id", "position"):
        choices.setdefault(choice.question_id, []).append(choice)
    return flow_compile(page_count=len(pages), pages=pages, questions=questions, choices=choices,
                        languages=tuple(survey.languages))


def question_ids(*, survey: Survey) -> Mapping[str, int]:
    """Return ``{code: question id}`` of every question of the survey that takes an answer."""
    return definition_memo.get(
        ("ids", survey.pk),
        lambda: MappingProxyType({q.code: q.pk for q in answerable_questions(survey=survey)}),
    )
