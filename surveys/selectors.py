"""Reads of survey definitions for the survey-taking views.

Every read here goes through the ``cached`` managers (django-cache-machine), so
with a warm cache a survey-taking request reads nothing about the definition
from the database, and what they assemble is kept in ``definition_memo`` for
the process (see ``surveys/caching.py``): callers must not change what these
functions return. Answers and respondents are read in ``respondents.selectors``.
"""
from dataclasses import dataclass, field

from surveys.caching import definition_memo
from surveys.flow import SurveyFlow, flow_compile
from surveys.models import Choice, Page, Question, Survey


@dataclass
class PageDefinition:
    """One page of a survey, ready to render and to validate answers against.

    ``items`` are the page's top-level questions in order; each choice question
    carries ``choice_list`` and each grid ``row_list`` (rows carry the grid's
    choices). ``answerable`` maps a question code to every question on the
    page that takes an answer: grid rows included, grids themselves not.
    """

    survey: Survey
    page: Page
    page_count: int
    items: list[Question]
    answerable: dict[str, Question] = field(default_factory=dict)

    @property
    def number(self):
        return self.page.position


def survey_get(*, survey_id):
    """Return the survey with ``survey_id``, or None."""
    return definition_memo.get(("survey", survey_id), lambda: next(iter(Survey.cached.filter(pk=survey_id)), None))


def survey_pages(*, survey):
    """Return the survey's pages in order."""
    return definition_memo.get(
        ("pages", survey.pk), lambda: list(Page.cached.filter(survey_id=survey.pk).order_by("position"))
    )


def page_count(*, survey):
    """Return how many pages the survey has."""
    return len(survey_pages(survey=survey))


def page_definition(*, survey, number):
    """Return page ``number`` (from 1) of ``survey`` as a PageDefinition, or None if out of range."""
    # Checked before the memo, which then holds only pages that exist, whatever numbers URLs carry.
    if not 1 <= number <= page_count(survey=survey):
        return None
    return definition_memo.get(("page", survey.pk, number), lambda: _page_definition(survey, number))


def _page_definition(survey, number):
    pages = survey_pages(survey=survey)
    page = pages[number - 1]
    questions = list(Question.cached.filter(page_id=page.pk).order_by("grid_id", "position"))
    choices_by_question = {}
    for choice in Choice.cached.filter(question__page_id=page.pk).order_by("question_id", "position"):
        choices_by_question.setdefault(choice.question_id, []).append(choice)

    by_id = {q.pk: q for q in questions}
    items, answerable = [], {}
    for question in questions:
        question.choice_list = choices_by_question.get(question.grid_id or question.pk, [])
        question.row_list = []
    for question in questions:
        if question.grid_id is None:
            items.append(question)
        else:
            by_id[question.grid_id].row_list.append(question)
    for item in items:
        for question in item.row_list or [item]:
            if question.is_answerable:
                answerable[question.code] = question
    return PageDefinition(survey=survey, page=page, page_count=len(pages), items=items, answerable=answerable)


def answerable_questions(*, survey):
    """Return every question of the survey that takes an answer, in the order a respondent sees them."""
    return definition_memo.get(("answerable", survey.pk), lambda: _answerable_questions(survey))


def _answerable_questions(survey):
    positions = {page.pk: page.position for page in survey_pages(survey=survey)}
    questions = list(Question.cached.filter(survey_id=survey.pk))
    grid_positions = {q.pk: q.position for q in questions if q.kind == Question.Kind.GRID}

    def order(q):
        top = grid_positions[q.grid_id] if q.grid_id else q.position
        return (positions[q.page_id], top, q.position if q.grid_id else -1)

    return sorted((q for q in questions if q.is_answerable), key=order)


def required_questions(*, survey):
    """Return ``[(page_number, question), ...]`` for every required question that takes an answer."""
    def build():
        positions = {page.pk: page.position for page in survey_pages(survey=survey)}
        return [(positions[q.page_id], q) for q in answerable_questions(survey=survey) if q.required]

    return definition_memo.get(("required", survey.pk), build)


def survey_flow(*, survey) -> SurveyFlow:
    """Return the survey's compiled show_if and constraint rules (``surveys/flow.py``)."""
    return definition_memo.get(("flow", survey.pk), lambda: _survey_flow(survey))


def _survey_flow(survey):
    pages = survey_pages(survey=survey)
    questions = list(Question.cached.filter(survey_id=survey.pk))
    choices = {}
    if any(q.show_if is not None or q.constraint is not None for q in questions) or any(
            p.show_if is not None for p in pages):
        for choice in Choice.cached.filter(question__survey_id=survey.pk).order_by("question_id", "position"):
            choices.setdefault(choice.question_id, []).append(choice)
    return flow_compile(page_count=len(pages), pages=pages, questions=questions, choices=choices,
                        languages=tuple(survey.languages))


def question_ids(*, survey) -> dict[str, int]:
    """Return ``{code: question id}`` of every question of the survey that takes an answer."""
    return definition_memo.get(("ids", survey.pk), lambda: {q.code: q.pk for q in answerable_questions(survey=survey)})
