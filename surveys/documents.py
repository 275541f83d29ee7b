"""Survey documents: a survey definition as plain data (JSON), checked whole before anything is written.

``survey_document_loads`` reads a file within bounds; ``parse_survey_document`` checks it and returns a
``CheckedSurvey``. Read next: ``docs/architecture.md``, "Survey documents" (the shape, the checks, the bounds), and
a whole one, ``surveys/demo/school_climate.json``.
"""
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Required, TypedDict, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from surveys.calculations import calculation_parse, calculation_to_json
from surveys.models import Choice, Page, Question, Survey, language_validator
from surveys.rules import (
    WRITTEN,
    RawJSON,
    RuleError,
    RuleJSON,
    RuleQuestion,
    rule_parse,
    rule_to_json,
    written_as_stored,
)
from surveys.variable_names import variable_name_problems

# A survey document as written (JSON): what ``parse_survey_document`` checks. Every key may be missing or of
# another type in a file someone uploads; these say what a valid one holds.

# A text a respondent reads: in the survey's one language, or {language: text} for each of its languages.
DocumentText = str | dict[str, str]


class ChoiceDocument(TypedDict, total=False):
    value: Required[str | int]  # a whole number is taken as its text
    label: Required[DocumentText]
    filters: dict[str, str]  # what a cascading select's choice_filter compares: {column: value}


class RowDocument(TypedDict, total=False):
    """A grid's row: a single choice question with its grid's choices."""

    code: Required[str]
    prompt: Required[DocumentText]
    help_text: DocumentText
    required: bool  # default: the grid's
    show_if: RuleJSON | None
    constraint: RuleJSON | None
    constraint_message: DocumentText
    required_message: DocumentText  # default: the grid's


class QuestionDocument(TypedDict, total=False):
    code: Required[str]
    kind: Required[str]  # a Question.Kind
    prompt: Required[DocumentText]
    help_text: DocumentText
    required: bool
    choices: str | list[ChoiceDocument]  # a choice question's: the name of a list in choice_lists, or a list
    rows: list[RowDocument]  # a grid's
    min: int  # a number question's
    max: int
    max_length: int  # a text question's
    show_if: RuleJSON | None
    constraint: RuleJSON | None
    constraint_message: DocumentText
    required_message: DocumentText
    default: str | int  # the answer shown filled in until the person answers, written as it is stored
    calculation: RawJSON  # a calculate question's expression (surveys/calculations.py)
    # A cascading select's: {column of its choices' filters: code of an earlier answer}; a choice is offered when
    # every such answer equals the choice's value in that column (XLSForm's ``col = ${q} and ...``).
    choice_filter: dict[str, str]


class PageDocument(TypedDict, total=False):
    title: DocumentText
    intro: DocumentText
    show_if: RuleJSON | None
    questions: Required[list[QuestionDocument]]


class SurveyDocument(TypedDict, total=False):
    slug: Required[str]
    title: Required[DocumentText]
    intro: DocumentText
    thank_you: DocumentText
    status: str  # a Survey.Status; default draft
    languages: list[str]  # default: the site's LANGUAGE_CODE
    choice_lists: dict[str, list[ChoiceDocument]]
    pages: Required[list[PageDocument]]
    form_version: str  # the source form's own version (an XLSForm's settings), kept as written
    warnings: list[str]  # what loading the source noted without refusing it (surveys/xlsform.py)


# A checked document, as ``parse_survey_document`` returns it: every key present, texts in the first language
# with the others in ``translations`` ({language: {key: text}}), rules canonical, min/max as min_value/max_value.

Translations = dict[str, dict[str, str]]


class CheckedChoice(TypedDict):
    value: str
    label: str
    translations: Translations
    filters: dict[str, str]
    show_if: RuleJSON | None  # a cascading select's, made from its question's choice_filter


class CheckedQuestion(TypedDict):
    """A question or a grid's row (whose ``choices`` are its grid's and ``rows`` empty)."""

    code: str
    kind: str
    prompt: str
    help_text: str
    required: bool
    min_value: int | None
    max_value: int | None
    max_length: int | None
    show_if: RuleJSON | None
    constraint: RuleJSON | None
    constraint_message: str
    required_message: str
    translations: Translations
    choices: list[CheckedChoice]
    rows: list["CheckedQuestion"]
    default: str
    calculation: RawJSON | None
    choice_filter: dict[str, str]


class CheckedPage(TypedDict):
    title: str
    intro: str
    show_if: RuleJSON | None
    translations: Translations
    questions: list[CheckedQuestion]


class CheckedSurvey(TypedDict):
    slug: str
    title: str
    intro: str
    thank_you: str
    status: str
    languages: list[str]
    translations: Translations
    pages: list[CheckedPage]
    form_version: str
    warnings: list[str]


_KINDS = set(Question.Kind.values)
_TEXT_KINDS = {Question.Kind.SHORT_TEXT, Question.Kind.LONG_TEXT}
_CHOICE_KINDS = set(Question.CHOICE_KINDS)

MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
# A megabyte of empty objects would make a hundred megabytes of Python objects: values are counted first. A
# sixty-page survey has 4,000; a survey of MAX_QUESTIONS, about 40,000.
MAX_DOCUMENT_VALUES = 100_000
# Longer numbers are refused while the JSON is read (no check accepts one); Python refuses int() of 4,300 digits.
MAX_NUMBER_DIGITS = 30
MAX_PAGES = 200
MAX_QUESTIONS = 2_000
MAX_CHOICES = 500
MAX_CHOICE_ROWS = 20_000
MAX_PROBLEMS = 200
# Question.constraint_message and required_message are TextFields: this bound is the document's own.
MAX_MESSAGE_LENGTH = 500
# What loading a source noted (Survey.load_warnings): one a column or a feature, never one a row of a big form.
MAX_WARNINGS = 200


def column_range(model: type[models.Model], name: str) -> tuple[int, int]:
    """Return the smallest and largest number the integer column ``model.name`` holds on PostgreSQL.

    Django's base ranges are PostgreSQL's (its backend keeps them); SQLite's connection would say 64 bits.
    """
    return BaseDatabaseOperations.integer_field_ranges[model._meta.get_field(name).get_internal_type()]


def _field_accepts(model: type[models.Model], name: str, value: str) -> bool:
    """Return whether ``value`` passes every validator of the field ``model.name``, its max_length's among them."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise ValueError(f"{model.__name__}.{name} is a reverse relation, not a field with validators")
    try:
        for validator in field.validators:
            validator(value)
    except ValidationError:
        return False
    return True


_NUMBER_RANGE = column_range(Question, "min_value")  # max_value's too
_MAX_LENGTH_LIMIT = column_range(Question, "max_length")[1]
# The lengths the columns hold: a text is refused with its path here rather than by the database.
_SLUG_LENGTH = Survey._meta.get_field("slug").max_length
_TITLE_LENGTH = Survey._meta.get_field("title").max_length
_PAGE_TITLE_LENGTH = Page._meta.get_field("title").max_length
_CODE_LENGTH = Question._meta.get_field("code").max_length
_VALUE_LENGTH = Choice._meta.get_field("value").max_length
_LABEL_LENGTH = Choice._meta.get_field("label").max_length
_FORM_VERSION_LENGTH = Survey._meta.get_field("form_version").max_length


class DocumentError(ValueError):
    """A survey document that cannot be turned into a survey; ``problems`` lists why."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


_T = TypeVar("_T")


@dataclass
class _Checker:
    problems: list[str]
    languages: tuple[str, ...] = ("en",)

    def need(self, condition: _T, path: str, message: str) -> _T:
        if not condition:
            self.problems.append(f"{path}: {message}")
            self.enough()
        return condition

    def enough(self) -> None:
        """Stop at MAX_PROBLEMS problems: a document that bad is mended from the first ones, and a list of a
        million would cost more than the document."""
        if len(self.problems) >= MAX_PROBLEMS:
            raise DocumentError([*self.problems[:MAX_PROBLEMS],
                                 f"document: more than {MAX_PROBLEMS} problems: the rest was not checked"])

    def text(self, data: Mapping[str, RawJSON], key: str, path: str, *, required: bool = False,
             max_length: int | None = None, into: Translations | None = None) -> str:
        """Return the text of ``key`` (in the first language); with ``into`` (an element's translations), a text
        may be given per language, and the others go there."""
        value = data.get(key, "")
        if into is not None and isinstance(value, dict):
            unknown = [lang for lang in value if lang not in self.languages]
            self.need(not unknown, f"{path}.{key}",
                      f"{', '.join(map(str, unknown))} is not one of the survey's languages ({', '.join(self.languages)})")
            for lang in self.languages[1:]:
                text = self.text(value, lang, f"{path}.{key}", max_length=max_length)
                if text:
                    into.setdefault(lang, {})[key] = text
            return self.text(value, self.languages[0], f"{path}.{key}", required=required, max_length=max_length)
        if not self.need(isinstance(value, str), f"{path}.{key}", "must be text"):
            return ""
        if required:
            self.need(value.strip(), f"{path}.{key}", "is required")
        if max_length:
            self.need(len(value) <= max_length, f"{path}.{key}", f"is longer than {max_length} characters")
        return value


class _LongNumber(ValueError):
    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(text)


def _whole_number(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _LongNumber(text)
    return int(text)


def survey_document_loads(raw: bytes, *, filename: str) -> object:
    """Return the JSON in ``raw`` (a .json file's bytes, read up to one byte past MAX_DOCUMENT_BYTES); raise
    DocumentError naming ``filename`` (and the line, where there is one) when it is not JSON or larger than a
    survey document may be: values are counted in the bytes before any is built."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise DocumentError([f"{filename}: larger than {MAX_DOCUMENT_BYTES // 2 ** 20} MB: a survey document is "
                             "at most that"])
    # A comma in a text counts too: a generous bound, not an exact count.
    values = raw.count(b"{") + raw.count(b"[") + raw.count(b",")
    if values > MAX_DOCUMENT_VALUES:
        raise DocumentError([f"{filename}: too many values for a survey document ({values:,} objects, lists and "
                             f"commas; at most {MAX_DOCUMENT_VALUES:,})"])
    try:
        return json.loads(raw, parse_int=_whole_number)
    except _LongNumber as error:
        at = raw.find(error.text.encode())
        line, column = raw.count(b"\n", 0, at) + 1, at - raw.rfind(b"\n", 0, at)
        where = f", line {line} column {column}" if at >= 0 else ""
        raise DocumentError([f"{filename}{where}: a number of {len(error.text.lstrip('-')):,} digits: a survey "
                             f"document's numbers have at most {MAX_NUMBER_DIGITS}"]) from None
    except RecursionError:
        raise DocumentError([f"{filename}: its objects and lists nest too deep to be read"]) from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise DocumentError([f"{filename}: not a JSON document ({error})"]) from error


def parse_survey_document(data: SurveyDocument) -> CheckedSurvey:
    """Check ``data`` and return it normalised; raise DocumentError listing every problem.

    ``data`` is untrusted (a file's JSON, or what an XLSForm made of a workbook): anything that is not a survey
    document, a list or a number where an object should be included, is a problem, never an exception.
    """
    if not isinstance(data, dict):
        raise DocumentError(["document: must be an object"])
    check = _Checker(problems=[])
    _refuse_oversized(check, data)
    languages = data.get("languages", [settings.LANGUAGE_CODE])
    texts = isinstance(languages, list) and all(isinstance(code, str) for code in languages)
    try:
        language_validator(languages if texts else None)  # it looks codes up in a set: only text may reach it
        check.need(len(set(languages)) == len(languages), "survey.languages", "lists a language twice")
    except ValidationError as error:
        check.problems.append(f"survey.languages: {error.messages[0]}")
        languages = [settings.LANGUAGE_CODE]
    check.languages = tuple(dict.fromkeys(languages))
    slug = check.text(data, "slug", "survey", required=True)
    if slug:
        check.need(_field_accepts(Survey, "slug", slug), "survey.slug",
                   f"holds only letters, digits, '-' and '_' (at most {_SLUG_LENGTH})")
    status = data.get("status", Survey.Status.DRAFT)
    check.need(status in Survey.Status.values, "survey.status", f"must be one of {', '.join(Survey.Status.values)}")
    translations: Translations = {}
    survey: CheckedSurvey = {
        "slug": slug,
        "title": check.text(data, "title", "survey", required=True, max_length=_TITLE_LENGTH, into=translations),
        "intro": check.text(data, "intro", "survey", into=translations),
        "thank_you": check.text(data, "thank_you", "survey", into=translations),
        "status": status,
        "languages": list(check.languages),
        "translations": translations,
        "pages": [],
        "form_version": check.text(data, "form_version", "survey", max_length=_FORM_VERSION_LENGTH),
        "warnings": _warnings(check, data.get("warnings", [])),
    }

    choice_lists: dict[str, list[CheckedChoice]] = {}
    raw_lists = data.get("choice_lists", {})
    if check.need(isinstance(raw_lists, dict), "choice_lists", "must be an object of named lists"):
        for name, choices in raw_lists.items():
            choice_lists[name] = _parse_choices(check, choices, f"choice_lists.{name}")

    pages = data.get("pages")
    if not check.need(isinstance(pages, list) and pages, "survey.pages", "must be a non-empty list"):
        raise DocumentError(check.problems)
    codes: dict[str, str] = {}  # code -> the path of its question
    for page_index, raw_page in enumerate(pages, start=1):
        path = f"pages[{page_index}]"
        if not check.need(isinstance(raw_page, dict), path, "must be an object"):
            continue
        translations = {}
        page: CheckedPage = {
            "title": check.text(raw_page, "title", path, max_length=_PAGE_TITLE_LENGTH, into=translations),
            "intro": check.text(raw_page, "intro", path, into=translations),
            "show_if": raw_page.get("show_if"),
            "translations": translations,
            "questions": [],
        }
        questions = raw_page.get("questions")
        if check.need(isinstance(questions, list) and questions, f"{path}.questions", "must be a non-empty list"):
            for question_index, raw_question in enumerate(questions, start=1):
                question = _parse_question(check, raw_question, f"{path}.questions[{question_index}]", choice_lists, codes)
                if question:
                    page["questions"].append(question)
        survey["pages"].append(page)

    stored = sum(len(question["choices"]) for page in survey["pages"] for question in page["questions"])
    check.need(stored <= MAX_CHOICE_ROWS, "survey", f"{stored:,} choices to store (a list's counted for each "
               f"question that uses it): a survey has at most {MAX_CHOICE_ROWS:,}")
    _compile_rules(check, survey["pages"], codes)
    if check.problems:
        raise DocumentError(check.problems)
    return survey


def _warnings(check: _Checker, warnings: RawJSON) -> list[str]:
    if not check.need(isinstance(warnings, list) and all(isinstance(w, str) for w in warnings), "survey.warnings",
                      "must be a list of texts"):
        return []
    assert isinstance(warnings, list)
    check.need(len(warnings) <= MAX_WARNINGS, "survey.warnings", f"{len(warnings):,} warnings: at most {MAX_WARNINGS}")
    return [str(warning)[:MAX_MESSAGE_LENGTH] for warning in warnings[:MAX_WARNINGS]]


def _refuse_oversized(check: _Checker, data: Mapping[str, RawJSON]) -> None:
    """Raise DocumentError when ``data`` has more pages or questions than a survey may: only the lengths of its
    lists are read, so that nothing is built for a document of a million empty pages."""
    pages = data.get("pages")
    if not isinstance(pages, list):
        return
    if not check.need(len(pages) <= MAX_PAGES, "survey.pages", f"{len(pages):,} pages: a survey has at most "
                      f"{MAX_PAGES}"):
        raise DocumentError(check.problems)
    tops = [page["questions"] for page in pages if isinstance(page, dict) and isinstance(page.get("questions"), list)]
    count = sum(map(len, tops)) + sum(len(question["rows"]) for questions in tops for question in questions
                                      if isinstance(question, dict) and isinstance(question.get("rows"), list))
    if not check.need(count <= MAX_QUESTIONS, "survey", f"{count:,} questions (grid rows counted): a survey has at "
                      f"most {MAX_QUESTIONS:,}"):
        raise DocumentError(check.problems)


def _compile_rules(check: _Checker, pages: list[CheckedPage], codes: Mapping[str, str]) -> None:
    """Check every show_if and constraint against the questions before it; leave each canonical, or None."""
    earlier: dict[str, RuleQuestion] = {}

    def rule(raw: RuleJSON | None, path: str, own: RuleQuestion | None = None) -> RuleJSON | None:
        if raw is None:
            return None
        try:
            return rule_to_json(rule_parse(raw, path=path, earlier=dict(earlier), later=codes, own=own))
        except RuleError as error:
            check.problems.extend(error.problems)
            check.enough()
            return None

    def question_rules(question: CheckedQuestion, path: str, choices: list[CheckedChoice]) -> None:
        question["show_if"] = rule(question["show_if"], f"{path}.show_if")
        own = RuleQuestion(code=question["code"], kind=question["kind"], choices=tuple(c["value"] for c in choices))
        if question["kind"] == Question.Kind.CALCULATE and question["calculation"] is not None:
            try:
                calculation = calculation_parse(question["calculation"], path=f"{path}.calculation",
                                                earlier=dict(earlier), later=codes)
            except RuleError as error:
                check.problems.extend(error.problems)
                check.enough()
                question["calculation"] = None
            else:
                question["calculation"] = calculation_to_json(calculation)
                # Rules read a calculation as a decimal or a short text question's answer, as it makes.
                own = RuleQuestion(code=question["code"], kind=calculation.read_as_kind)
        if question["kind"] == Question.Kind.GRID:
            check.need(question["constraint"] is None, f"{path}.constraint",
                       "a grid takes no answer: give its rows constraints")
        question["constraint"] = rule(question["constraint"], f"{path}.constraint", own=own)
        for choice_index, choice in enumerate(choices if question["choice_filter"] else (), start=1):
            # Offered when every answer the filter reads equals the choice's value in that column; a choice
            # without the column is offered while that answer is blank (as ODK compares it with '').
            clauses = [{"op": "equals", "q": code, "value": choice["filters"][column]}
                       if choice["filters"].get(column) else {"op": "not", "rule": {"op": "answered", "q": code}}
                       for column, code in question["choice_filter"].items()]
            choice["show_if"] = rule(clauses[0] if len(clauses) == 1 else {"op": "and", "rules": clauses},
                                     f"{path}.choices[{choice_index}].show_if")
        bounded = question["min_value"] is not None or question["max_value"] is not None
        check.need(question["constraint"] is not None or bounded or not question["constraint_message"],
                   f"{path}.constraint_message",
                   "only a question with a constraint (or a number's min or max) shows a constraint message")
        check.need(question["required"] or not question["required_message"] or question["kind"] == Question.Kind.GRID,
                   f"{path}.required_message", "only a required question shows a required message")
        if isinstance(question["code"], str):  # else refused already, and no key of a dict
            earlier[question["code"]] = own

    for page_index, page in enumerate(pages, start=1):
        path = f"pages[{page_index}]"
        page["show_if"] = rule(page["show_if"], f"{path}.show_if")
        for question_index, question in enumerate(page["questions"], start=1):
            here = f"{path}.questions[{question_index}]"
            question_rules(question, here, question["choices"])
            for row_index, row in enumerate(question["rows"], start=1):
                question_rules(row, f"{here}.rows[{row_index}]", question["choices"])  # a row takes its grid's


def _parse_choices(check: _Checker, choices: RawJSON, path: str) -> list[CheckedChoice]:
    if not check.need(isinstance(choices, list) and choices, path, "must be a non-empty list of choices"):
        return []
    if not check.need(len(choices) <= MAX_CHOICES, path, f"{len(choices):,} choices: a list has at most {MAX_CHOICES}"):
        return []
    parsed: list[CheckedChoice] = []
    seen: set[str] = set()
    for index, choice in enumerate(choices, start=1):
        here = f"{path}[{index}]"
        if not check.need(isinstance(choice, dict), here, "must be an object with value and label"):
            continue
        value = choice.get("value")
        value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if check.need(isinstance(value, str) and _field_accepts(Choice, "value", value), f"{here}.value",
                      f"holds only letters, digits, '_', '.' and '-' (at most {_VALUE_LENGTH})"):
            check.need(value not in seen, f"{here}.value", f"'{value}' appears twice")
            seen.add(value)
        translations: Translations = {}
        label = check.text(choice, "label", here, required=True, max_length=_LABEL_LENGTH, into=translations)
        filters = choice.get("filters", {})
        if not check.need(isinstance(filters, dict) and all(isinstance(k, str) and isinstance(v, str) and
                                                            len(v) <= MAX_MESSAGE_LENGTH for k, v in filters.items()),
                          f"{here}.filters", "must be an object of texts"):
            filters = {}
        parsed.append({"value": value, "label": label, "translations": translations, "filters": dict(filters),
                       "show_if": None})
    return parsed


def _parse_question(check: _Checker, raw: RawJSON, path: str, choice_lists: Mapping[str, list[CheckedChoice]],
                    codes: dict[str, str], *, grid: CheckedQuestion | None = None) -> CheckedQuestion | None:
    if not check.need(isinstance(raw, dict), path, "must be an object"):
        return None
    code = raw.get("code")
    if check.need(isinstance(code, str) and _field_accepts(Question, "code", code), f"{path}.code",
                  f"starts with a letter and holds only letters, digits and '_' (at most {_CODE_LENGTH})"):
        check.need(code not in codes, f"{path}.code", f"'{code}' is already used at {codes.get(code)}")
        check.problems.extend(f"{path}.code: {problem}" for problem in variable_name_problems(code, taken=codes))
        codes.setdefault(code, path)
    kind = Question.Kind.SINGLE if grid else raw.get("kind")
    if not isinstance(kind, str):
        kind = repr(kind)  # the kinds are looked up in sets: only text may reach them
    check.need(grid or kind in _KINDS, f"{path}.kind", f"must be one of {', '.join(sorted(_KINDS))}")
    required = raw.get("required", grid["required"] if grid else False)
    check.need(isinstance(required, bool), f"{path}.required", "must be true or false")
    translations: Translations = {}
    question: CheckedQuestion = {
        "code": code,
        "kind": kind,
        "prompt": check.text(raw, "prompt", path, required=kind != Question.Kind.CALCULATE, into=translations),
        "help_text": check.text(raw, "help_text", path, into=translations),
        "required": required is True,
        "min_value": None,
        "max_value": None,
        "max_length": None,
        "show_if": raw.get("show_if"),
        "constraint": raw.get("constraint"),
        "constraint_message": check.text(raw, "constraint_message", path, max_length=MAX_MESSAGE_LENGTH,
                                         into=translations),
        "required_message": check.text(raw, "required_message", path, max_length=MAX_MESSAGE_LENGTH,
                                       into=translations),
        "translations": translations,
        "choices": [],
        "rows": [],
        "default": "",
        "calculation": None,
        "choice_filter": {},
    }
    if grid:
        if not question["required_message"] and question["required"]:
            question["required_message"] = grid["required_message"]
            for lang, texts in grid["translations"].items():
                if "required_message" in texts:
                    translations.setdefault(lang, {})["required_message"] = texts["required_message"]
        for key in ("kind", "choices", "rows"):
            check.need(key not in raw, f"{path}.{key}", "a grid row takes the grid's kind and choices")
        return question

    if kind in _CHOICE_KINDS:
        choices = raw.get("choices")
        if isinstance(choices, str):
            if check.need(choices in choice_lists, f"{path}.choices", f"no choice list named '{choices}'"):
                # A copy a question: a cascading select gives its own choices their rules.
                question["choices"] = [dict(choice) for choice in choice_lists[choices]]  # type: ignore[misc]
        elif check.need(choices is not None, f"{path}.choices", "a choice question needs choices"):
            question["choices"] = _parse_choices(check, choices, f"{path}.choices")
    else:
        check.need("choices" not in raw, f"{path}.choices", f"a {kind} question takes no choices")

    if kind == Question.Kind.GRID:
        rows = raw.get("rows")
        if check.need(isinstance(rows, list) and rows, f"{path}.rows", "a grid needs a non-empty list of rows"):
            question["rows"] = [
                row for index, raw_row in enumerate(rows, start=1)
                if (row := _parse_question(check, raw_row, f"{path}.rows[{index}]", choice_lists, codes, grid=question))
            ]
    else:
        check.need("rows" not in raw, f"{path}.rows", "only a grid has rows")

    if kind in Question.NUMBER_KINDS:
        smallest, largest = _NUMBER_RANGE
        for key in ("min", "max"):
            value = raw.get(key)
            if (check.need(value is None or (isinstance(value, int) and not isinstance(value, bool)),
                           f"{path}.{key}", "must be a whole number")
                    and check.need(value is None or smallest <= value <= largest, f"{path}.{key}",
                                   f"must be from {smallest:,} to {largest:,}")):
                question["min_value" if key == "min" else "max_value"] = value
        low, high = question["min_value"], question["max_value"]
        check.need(low is None or high is None or low <= high, path, "min is above max")
    else:
        for key in ("min", "max"):
            check.need(key not in raw, f"{path}.{key}", "only a number question (integer, decimal) has min and max")

    if kind == Question.Kind.CALCULATE:
        check.need(not question["required"], f"{path}.required", "a calculation takes no answer: it is never "
                   "required")
        check.need(raw.get("constraint") is None, f"{path}.constraint", "a calculation takes no answer: it has no "
                   "constraint")
        question["calculation"] = raw.get("calculation")
        check.need(question["calculation"] is not None, f"{path}.calculation", "a calculation needs its expression")
    else:
        check.need("calculation" not in raw, f"{path}.calculation", "only a calculate question has a calculation")

    if kind == Question.Kind.NOTE:
        check.need(not question["required"], f"{path}.required", "a note takes no answer: it is never required")
        check.need(raw.get("constraint") is None, f"{path}.constraint", "a note takes no answer: it has no "
                   "constraint")

    if kind in _TEXT_KINDS:
        max_length = raw.get("max_length")
        if (check.need(max_length is None or (isinstance(max_length, int) and not isinstance(max_length, bool)
                                              and max_length > 0), f"{path}.max_length", "must be a positive whole number")
                and check.need(max_length is None or max_length <= _MAX_LENGTH_LIMIT, f"{path}.max_length",
                               f"must be at most {_MAX_LENGTH_LIMIT:,}")):
            question["max_length"] = max_length
    else:
        check.need("max_length" not in raw, f"{path}.max_length", "only a text question has max_length")

    choice_filter = raw.get("choice_filter", {})
    if check.need(isinstance(choice_filter, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                          for k, v in choice_filter.items()),
                  f"{path}.choice_filter", "must be an object of {column: question code}"):
        if choice_filter:
            check.need(kind in (Question.Kind.SINGLE, Question.Kind.MULTIPLE), f"{path}.choice_filter",
                       "only a single or multiple choice question filters its choices")
            question["choice_filter"] = dict(choice_filter)

    if "default" in raw:
        default = raw["default"]
        default = str(default) if isinstance(default, int) and not isinstance(default, bool) else default
        if check.need(isinstance(default, str), f"{path}.default", "must be text, written as the answer is stored"):
            problem = _default_problem(question, default)
            if check.need(problem is None, f"{path}.default", f"{problem}"):
                question["default"] = default
    return question


def _default_problem(question: CheckedQuestion, value: str) -> str | None:
    """Return why ``value`` cannot be ``question``'s default (an answer it could store), or None."""
    kind, values = question["kind"], [choice["value"] for choice in question["choices"]]
    if kind in Question.UNANSWERED_KINDS:
        return f"a {kind} takes no answer, so no default"
    if value == "" or value != value.strip():
        return "must be an answer, without spaces around it"
    if kind == Question.Kind.SINGLE:
        return None if value in values else f"{value!r} is not a choice"
    if kind == Question.Kind.MULTIPLE:
        chosen = value.split(" ")
        return None if all(v in values for v in chosen) and len(set(chosen)) == len(chosen) else (
            f"{value!r} is not choice values separated by single spaces")
    if kind in Question.NUMBER_KINDS:
        try:
            number = Decimal(value) if kind == Question.Kind.DECIMAL else int(value)
        except (ValueError, ArithmeticError):
            return f"{value!r} is not {'a number' if kind == Question.Kind.DECIMAL else 'a whole number'}"
        low, high = question["min_value"], question["max_value"]
        return None if (low is None or number >= low) and (high is None or number <= high) else (
            f"{value} is outside the question's min and max")
    if kind in WRITTEN:
        return None if written_as_stored(kind, value) else f"{value!r} is not written {WRITTEN[kind]}"
    limit = question["max_length"] or Question.DEFAULT_MAX_LENGTH.get(kind)
    return None if limit is None or len(value) <= limit else f"is longer than {limit} characters"
