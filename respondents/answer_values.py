"""What a stored answer may hold: the rules of ``Answer.value``, checked after the fact.

The page form turns what a respondent typed into these values; this module
says whether a value already in the database keeps the rules, so the fuzz
tests and ``make fuzz`` can prove that nothing invalid was ever stored.
"""
import re
from collections.abc import Sequence
from decimal import Decimal

from django.db.models import QuerySet

from respondents.models import Answer
from surveys.models import Choice, Question
from surveys.rules import WRITTEN, written_as_stored

_INTEGER = re.compile(r"^-?[0-9]+$")
_DECIMAL = re.compile(r"^-?[0-9]{1,12}(\.[0-9]{1,6})?$")


def answer_value_problem(question: Question, value: str, choice_values: Sequence[str]) -> str | None:
    """Return why ``value`` breaks ``question``'s rules, or None if it keeps them.

    ``choice_values`` are the values of the question's choices in order (a
    grid row's are its grid's). An empty value is always allowed: a question
    seen and left blank.
    """
    if value == "":
        return None
    if "\x00" in value:
        return "holds a NUL character"
    kind = question.kind
    if kind == Question.Kind.SINGLE:
        return None if value in choice_values else f"{value!r} is not one of the choices"
    if kind == Question.Kind.MULTIPLE:
        chosen = value.split(" ")
        if any(v not in choice_values for v in chosen):
            return f"{value!r} holds a value that is not a choice"
        if chosen != [v for v in choice_values if v in chosen]:
            return f"{value!r} is not the chosen values once each, in choice order"
        return None
    if kind == Question.Kind.INTEGER:
        return _number_problem(question, value, _INTEGER, "a whole number")
    if kind == Question.Kind.DECIMAL:
        return _number_problem(question, value, _DECIMAL, "a decimal number")
    if kind in WRITTEN:
        return None if written_as_stored(kind, value) else f"{value!r} is not written {WRITTEN[kind]}"
    if kind in (Question.Kind.SHORT_TEXT, Question.Kind.LONG_TEXT):
        if value != value.strip():
            return "is not trimmed of surrounding white space"
        limit = question.text_max_length
        if limit is not None and len(value) > limit:
            return f"is longer than {limit} characters"
        return None
    return f"a {kind} question takes no answer"


def _number_problem(question: Question, value: str, written: re.Pattern[str], what: str) -> str | None:
    if not written.match(value):
        return f"{value!r} is not {what}"
    number = Decimal(value)
    if question.min_value is not None and number < question.min_value:
        return f"{number} is below the minimum {question.min_value}"
    if question.max_value is not None and number > question.max_value:
        return f"{number} is above the maximum {question.max_value}"
    return None


def stored_answer_problems(answers: QuerySet[Answer]) -> list[tuple[Answer, str]]:
    """Return ``[(answer, problem), ...]`` for every answer in ``answers`` that breaks its question's rules.

    ``answers`` is a queryset of Answer; questions and choices are read once per question.
    """
    problems: list[tuple[Answer, str]] = []
    choices: dict[int, list[str]] = {}
    for answer in answers.select_related("question"):
        question = answer.question
        source = question.grid_id or question.pk
        if source not in choices:
            choices[source] = list(Choice.objects.filter(question_id=source).order_by("position")
                                   .values_list("value", flat=True))
        problem = answer_value_problem(question, answer.value, choices[source])
        if problem:
            problems.append((answer, problem))
    return problems
