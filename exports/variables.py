"""The variables of a response export: names, labels, value labels, measurement levels and missing-value codes.

``variables_plan`` plans one ``Variable`` per column, once, for the data file, the syntax files and the codebook
alike. Read next: ``docs/architecture.md``, "Response exports" (missing values, names, levels).
"""
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Model

from respondents.models import District, Respondent, School, text_max_length
from surveys.calculations import NUMBER
from surveys.models import Choice, Question, Survey
from surveys.rules import MAX_TEXT
from surveys.selectors import answerable_questions, survey_flow, survey_pages
from surveys.variable_names import NAME_MAX_LENGTH, ROSTER_PREFIX, is_reserved


@dataclass(frozen=True)
class MissingCode:
    code: int
    stata: str  # Stata's extended missing value for it
    label: str


NOT_SAVED = MissingCode(-99, ".a", "Page not saved (not reached)")
LEFT_BLANK = MissingCode(-98, ".b", "Seen and left blank")
NOT_ASKED = MissingCode(-97, ".c", "Not asked: its skip logic (show_if) did not hold")
MISSING_CODES = (NOT_SAVED, LEFT_BLANK, NOT_ASKED)
# A question not asked, in CSV and XLSX cells and wherever a variable carries no codes.
NOT_ASKED_CELL = "NA"

# The roster fields an export may hold, with their labels. ``access_code`` is
# not one of them: with it anyone could sign in as the respondent.
ROSTER_FIELDS = {
    "respondent_id": "Respondent id (this system's)",
    "external_id": "Roster id of the person",
    "display_name": "Name printed on the code slip",
    "school_code": "School code",
    "school_name": "School name",
    "district_code": "District code",
    "district_name": "District name",
    "grade": "Grade",
    "role": "Role",
    "language": "Language",
    "status": "Response status",
    "current_page": "Page the respondent goes to next",
    "started_at": "Started at",
    "last_saved_at": "Last saved at",
    "completed_at": "Completed at",
    "withdrawn_at": "Withdrawn at",
}
# What identifies a person: never in a de-identified export, whatever was asked.
IDENTIFYING_FIELDS = frozenset({"respondent_id", "external_id", "display_name"})
_NUMERIC_FIELDS = frozenset({"respondent_id", "current_page"})
# Where each roster text field is kept (model, field): its SPSS width is the model's max_length, 4 bytes a character
# in UTF-8. Timestamps are ISO 8601 text with their zone, 25 characters; 32 bytes.
_FIELD_SOURCES: dict[str, tuple[type[Model], str]] = {
    "external_id": (Respondent, "external_id"), "display_name": (Respondent, "display_name"),
    "school_code": (School, "code"), "school_name": (School, "name"),
    "district_code": (District, "code"), "district_name": (District, "name"),
    "grade": (Respondent, "grade"), "role": (Respondent, "role"), "language": (Respondent, "language"),
    "status": (Respondent, "status")}
TIMESTAMP_WIDTH = 32


def _field_width(field: str) -> int:
    source = _FIELD_SOURCES.get(field)
    return 4 * text_max_length(*source) if source else TIMESTAMP_WIDTH


NOMINAL, ORDINAL, SCALE = "nominal", "ordinal", "scale"
_INTEGER = re.compile(r"^-?[0-9]{1,9}$")
_ILLEGAL = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True)
class Variable:
    """One column of an export's data file."""

    name: str  # in every format: the question's code, roster_<field>, or <code>_<value> made legal
    label: str  # the question's prompt, or the roster field's description
    field: str  # the roster field, or the question code
    kind: str  # a Question.Kind, "roster", or "choice" for one 0/1 column of a multiple choice
    numeric: bool  # read as a number by SPSS and Stata
    level: str
    width: int = 0  # bytes, for SPSS's A format; 0 for numbers
    page: int | None = None
    required: bool = False
    question_id: int | None = None
    choice_value: str | None = None  # the choice a 0/1 column stands for
    # (value, label) of the question's choices, in order (every choice for a 0/1 column).
    choices: tuple[tuple[str, str], ...] = ()
    # (value, label) as the statistics tools label the data; empty for texts and string choices in Stata.
    value_labels: tuple[tuple[int | str, str], ...] = ()
    missing: tuple[MissingCode, ...] = ()  # the MissingCodes this variable may hold in the SPSS and Stata data

    @property
    def is_question(self) -> bool:
        return self.question_id is not None


@dataclass(frozen=True)
class VariablePlan:
    variables: tuple[Variable, ...]
    definition_version: str


def legal_names(wanted: Sequence[str], *, first: Iterable[int] = ()) -> list[str]:
    """Return one SPSS- and Stata-legal, unique name for each of ``wanted``, in order.

    Letters, digits and ``_``, an ASCII letter first (else ``v`` before it),
    at most NAME_MAX_LENGTH characters, no reserved word, unique without
    regard to case (SPSS ignores case): a clash gets ``_2``, ``_3``... The
    names at the indexes ``first`` are claimed before the others, so that a
    question's code keeps its name and a derived name gives way.
    """
    names = [""] * len(wanted)
    taken: set[str] = set()
    claimed = tuple(first)
    for index in (*claimed, *(i for i in range(len(wanted)) if i not in set(claimed))):
        raw = wanted[index]
        base = _ILLEGAL.sub("_", raw)
        if not base[:1].isalpha() or not base[:1].isascii():
            base = "v" + base
        base = base[:NAME_MAX_LENGTH]
        if is_reserved(base):
            base = base[:NAME_MAX_LENGTH - 1] + "_"
        name, number = base, 1
        while name.lower() in taken or is_reserved(name):
            number += 1
            suffix = f"_{number}"
            name = base[:NAME_MAX_LENGTH - len(suffix)] + suffix
        taken.add(name.lower())
        names[index] = name
    return names


def variables_plan(*, survey: Survey, roster_fields: Iterable[str], multiple: str = "joined",
                   using: str | None = None) -> VariablePlan:
    """Return the VariablePlan of an export of ``survey``: ``roster_fields`` first, then every answerable question.

    ``multiple`` is "joined" (one column of the chosen values) or "columns"
    (one 0/1 column per choice).
    """
    questions = answerable_questions(survey=survey)
    positions = {page.pk: page.position for page in survey_pages(survey=survey)}
    choices: dict[int, list[tuple[str, str]]] = {}
    for choice in Choice.objects.using(using).filter(question__survey_id=survey.pk).order_by("question_id", "position"):
        choices.setdefault(choice.question_id, []).append((choice.value, choice.label))

    # (the name wanted, whether it is claimed first, Variable's other fields: the keywords it is made with)
    drafts: list[tuple[str, bool, dict[str, Any]]] = []
    for field in roster_fields:
        numeric = field in _NUMERIC_FIELDS
        drafts.append((ROSTER_PREFIX + field, True, {
            "label": ROSTER_FIELDS[field], "field": field, "kind": "roster", "numeric": numeric, "level": NOMINAL,
            "width": 0 if numeric else _field_width(field)}))
    for question in questions:
        own = tuple(choices.get(question.grid_id or question.pk, ()))
        common = {"field": question.code, "page": positions[question.page_id], "required": question.required,
                  "question_id": question.pk, "choices": own}
        if question.kind == Question.Kind.MULTIPLE and multiple == "columns":
            chosen = ((0, "Not chosen"), (1, "Chosen"))
            for value, label in own:
                drafts.append((f"{question.code}_{value}", False, {
                    **common, "label": f"{question.prompt}: {label}", "kind": "choice", "numeric": True,
                    "level": NOMINAL, "choice_value": value, "value_labels": chosen, "missing": MISSING_CODES}))
        else:
            drafts.append((question.code, True, {**common, "label": question.prompt, "kind": question.kind,
                                                 **_question_reading(question, own)}))
    # Calculations last, each computed from the respondent's answers (exports/writers.py), as a number or a text.
    flow = survey_flow(survey=survey)
    for calculation in (Question.objects.using(using).filter(survey_id=survey.pk, kind=Question.Kind.CALCULATE)
                        .order_by("page__position", "position")):
        numeric = flow.calculations[calculation.code].calculation.type == NUMBER  # type: ignore[union-attr]
        reading = {"numeric": True, "level": SCALE} if numeric else {
            "numeric": False, "level": NOMINAL, "width": 4 * MAX_TEXT}
        drafts.append((calculation.code, True, {
            "field": calculation.code, "page": positions[calculation.page_id], "question_id": calculation.pk,
            "label": calculation.prompt or calculation.code, "kind": Question.Kind.CALCULATE, **reading}))
    names = legal_names([wanted for wanted, _, _ in drafts],
                        first=[index for index, (_, claimed, _) in enumerate(drafts) if claimed])
    variables = tuple(Variable(name=name, **fields) for name, (_, _, fields) in zip(names, drafts, strict=True))
    return VariablePlan(variables=variables, definition_version=_definition_version(survey, variables))


# Answers written one way (YYYY-MM-DD, HH:MM, YYYY-MM-DDTHH:MM): text of a fixed width, no code among them.
_FIXED_WIDTHS: dict[str, int] = {Question.Kind.DATE: 10, Question.Kind.TIME: 5, Question.Kind.DATETIME: 16}


def _question_reading(question: Question, choices: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """Return how SPSS and Stata read ``question``: numeric, level, width, value labels, missing codes."""
    kind, codes = question.kind, {m.code for m in MISSING_CODES}
    if kind in Question.NUMBER_KINDS:
        low, high = question.min_value, question.max_value
        admits = any((low is None or low <= code) and (high is None or code <= high) for code in codes)
        return {"numeric": True, "level": SCALE, "missing": () if admits else MISSING_CODES}
    if kind in (Question.Kind.SINGLE, Question.Kind.MULTIPLE):
        level = ORDINAL if question.grid_id else NOMINAL
        values = [value for value, _ in choices]
        numbers = [int(value) for value in values if _INTEGER.match(value)]
        if kind == Question.Kind.SINGLE and values and len(numbers) == len(values) == len(set(numbers)):
            clashes = any(number in codes for number in numbers)
            return {"numeric": True, "level": level, "missing": () if clashes else MISSING_CODES,
                    "value_labels": tuple((int(value), label) for value, label in choices)}
        clashes = any(value in {str(code) for code in codes} for value in values)
        reading = {"numeric": False, "level": level, "missing": () if clashes else MISSING_CODES}
        # One byte more for the backslash before a value that starts with "-" (exports/writers.py).
        if kind == Question.Kind.SINGLE:
            return {**reading, "width": max([len(value) + 1 for value in values] + [3]), "value_labels": choices}
        # The chosen values joined by spaces: a combination has no label (the codebook lists the choices).
        return {**reading, "width": max(sum(len(value) + 1 for value in values) + 1, 3)}
    if kind in _FIXED_WIDTHS:
        return {"numeric": False, "level": NOMINAL, "width": _FIXED_WIDTHS[kind], "missing": MISSING_CODES}
    # Free text: any answer is legal, so no code is safe. 4 bytes a character holds its escapes too (a character
    # escaped in the data file is one byte, written as two).
    return {"numeric": False, "level": NOMINAL, "width": min(4 * (question.text_max_length or 255), 32767)}


def _definition_version(survey: Survey, variables: Iterable[Variable]) -> str:
    """Return the definition's identity: ``Survey.version``, and a digest of what the export's variables say.

    ``Survey.version`` counts the versions a survey was given after it was
    created (``publishing.services.survey_revise``: wording, translations, new
    questions); the digest of codes, kinds, prompts, pages and choices also
    tells apart a definition changed another way (the admin site).
    """
    digest = hashlib.sha256()
    for v in variables:
        if v.is_question:
            digest.update(repr((v.field, v.kind, v.label, v.page, v.required, v.choices)).encode())
    return f"{survey.version} (definition {digest.hexdigest()[:12]}, updated {survey.updated_at:%Y-%m-%d %H:%M})"
