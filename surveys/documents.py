"""Survey documents: a survey definition as plain data (JSON), checked before anything is written.

The shape (see ``surveys/demo/school_climate.json`` for a whole one)::

    {"slug": "...", "title": "...", "status": "open", "intro": "...", "thank_you": "...",
     "choice_lists": {"agree4": [{"value": "1", "label": "Strongly disagree"}, ...]},
     "pages": [{"title": "...", "intro": "...", "questions": [
         {"code": "q1", "kind": "single", "prompt": "...", "required": true, "choices": "agree4"},
         {"code": "safety", "kind": "grid", "prompt": "...", "choices": "agree4",
          "rows": [{"code": "safe_class", "prompt": "..."}]},
         {"code": "age", "kind": "integer", "min": 5, "max": 99},
         {"code": "comments", "kind": "long_text", "max_length": 2000}]}]}

``choices`` is either the name of a list in ``choice_lists`` or a list inline.
A grid's ``required`` applies to each of its rows unless a row says otherwise.

Skip logic and validation (rules of ``surveys/rules.py``)::

    {"title": "Teaching", "show_if": {"op": "equals", "q": "role", "value": "teacher"}, "questions": [
        {"code": "years_teaching", "kind": "integer", "required": true,
         "constraint": {"op": "le", "q": ".", "value": {"q": "age"}},
         "constraint_message": "You cannot have taught longer than you have lived.",
         "required_message": "Please tell us how many years you have taught."},
        {"code": "why_low", "kind": "long_text", "show_if": {"op": "in", "q": "rating", "values": ["1", "2"]}}]}

Several languages: ``"languages": ["en", "es"]`` (the default first; the
site's ``LANGUAGES`` only) and any text a respondent reads (title, intro,
thank_you, page titles and intros, prompts, help texts, choice labels,
constraint and required messages) given as ``{"en": "...", "es": "..."}``
instead of a string. A survey published (``"status": "open"``) must have every
text in every language it lists (``surveys.services.survey_translation_gaps``).

``show_if`` (a page, a question, a grid or a grid's row) reads answers to
questions that come before it: on earlier pages, or earlier on the same page.
A grid's ``show_if`` holds for its rows too. ``constraint`` reads the same, and
``"."`` for the question's own answer; ``constraint_message`` and
``required_message`` replace the defaults (``rules.default_message``); a
number's ``constraint_message`` is shown for its min and max too.

Every problem is reported at once, each with the path of the element at fault.
"""
import re
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError

from surveys.models import Question, Survey, language_validator
from surveys.rules import RuleError, RuleQuestion, rule_parse, rule_to_json

_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_VALUE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,50}$")
_KINDS = set(Question.Kind.values)
_TEXT_KINDS = {Question.Kind.SHORT_TEXT, Question.Kind.LONG_TEXT}
_CHOICE_KINDS = set(Question.CHOICE_KINDS)


class DocumentError(ValueError):
    """A survey document that cannot be turned into a survey; ``problems`` lists why."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass
class _Checker:
    problems: list
    languages: tuple = ("en",)

    def need(self, condition, path, message):
        if not condition:
            self.problems.append(f"{path}: {message}")
        return condition

    def text(self, data, key, path, *, required=False, max_length=None, into=None):
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


def parse_survey_document(data):
    """Check ``data`` and return it normalised; raise DocumentError listing every problem."""
    if not isinstance(data, dict):
        raise DocumentError(["document: must be an object"])
    check = _Checker(problems=[])
    languages = data.get("languages", [settings.LANGUAGE_CODE])
    try:
        language_validator(languages)
        check.need(len(set(languages)) == len(languages), "survey.languages", "lists a language twice")
    except ValidationError as error:
        check.problems.append(f"survey.languages: {error.messages[0]}")
        languages = [settings.LANGUAGE_CODE]
    check.languages = tuple(dict.fromkeys(languages))
    slug = check.text(data, "slug", "survey", required=True)
    if slug:
        check.need(_SLUG.match(slug), "survey.slug", "holds only letters, digits, '-' and '_' (at most 50)")
    status = data.get("status", Survey.Status.DRAFT)
    check.need(status in Survey.Status.values, "survey.status", f"must be one of {', '.join(Survey.Status.values)}")
    translations = {}
    survey = {
        "slug": slug,
        "title": check.text(data, "title", "survey", required=True, max_length=200, into=translations),
        "intro": check.text(data, "intro", "survey", into=translations),
        "thank_you": check.text(data, "thank_you", "survey", into=translations),
        "status": status,
        "languages": list(check.languages),
        "translations": translations,
        "pages": [],
    }

    choice_lists = {}
    raw_lists = data.get("choice_lists", {})
    if check.need(isinstance(raw_lists, dict), "choice_lists", "must be an object of named lists"):
        for name, choices in raw_lists.items():
            choice_lists[name] = _parse_choices(check, choices, f"choice_lists.{name}")

    pages = data.get("pages")
    if not check.need(isinstance(pages, list) and pages, "survey.pages", "must be a non-empty list"):
        raise DocumentError(check.problems)
    codes = {}
    for page_index, raw_page in enumerate(pages, start=1):
        path = f"pages[{page_index}]"
        if not check.need(isinstance(raw_page, dict), path, "must be an object"):
            continue
        translations = {}
        page = {
            "title": check.text(raw_page, "title", path, max_length=200, into=translations),
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

    _compile_rules(check, survey["pages"], codes)
    if check.problems:
        raise DocumentError(check.problems)
    return survey


def _compile_rules(check, pages, codes):
    """Check every show_if and constraint against the questions before it; leave each canonical, or None."""
    earlier = {}

    def rule(raw, path, own=None):
        if raw is None:
            return None
        try:
            return rule_to_json(rule_parse(raw, path=path, earlier=dict(earlier), later=codes, own=own))
        except RuleError as error:
            check.problems.extend(error.problems)
            return None

    def question_rules(question, path, choices):
        question["show_if"] = rule(question["show_if"], f"{path}.show_if")
        own = RuleQuestion(code=question["code"], kind=question["kind"], choices=tuple(c["value"] for c in choices))
        if question["kind"] == Question.Kind.GRID:
            check.need(question["constraint"] is None, f"{path}.constraint",
                       "a grid takes no answer: give its rows constraints")
        question["constraint"] = rule(question["constraint"], f"{path}.constraint", own=own)
        bounded = question["min_value"] is not None or question["max_value"] is not None
        check.need(question["constraint"] is not None or bounded or not question["constraint_message"],
                   f"{path}.constraint_message",
                   "only a question with a constraint (or a number's min or max) shows a constraint message")
        check.need(question["required"] or not question["required_message"] or question["kind"] == Question.Kind.GRID,
                   f"{path}.required_message", "only a required question shows a required message")
        earlier[question["code"]] = own

    for page_index, page in enumerate(pages, start=1):
        path = f"pages[{page_index}]"
        page["show_if"] = rule(page["show_if"], f"{path}.show_if")
        for question_index, question in enumerate(page["questions"], start=1):
            here = f"{path}.questions[{question_index}]"
            question_rules(question, here, question["choices"])
            for row_index, row in enumerate(question["rows"], start=1):
                question_rules(row, f"{here}.rows[{row_index}]", question["choices"])  # a row takes its grid's


def _parse_choices(check, choices, path):
    if not check.need(isinstance(choices, list) and choices, path, "must be a non-empty list of choices"):
        return []
    parsed, seen = [], set()
    for index, choice in enumerate(choices, start=1):
        here = f"{path}[{index}]"
        if not check.need(isinstance(choice, dict), here, "must be an object with value and label"):
            continue
        value = choice.get("value")
        value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if check.need(isinstance(value, str) and _VALUE.match(value), f"{here}.value",
                      "holds only letters, digits, '_', '.' and '-' (at most 64)"):
            check.need(value not in seen, f"{here}.value", f"'{value}' appears twice")
            seen.add(value)
        translations = {}
        label = check.text(choice, "label", here, required=True, max_length=300, into=translations)
        parsed.append({"value": value, "label": label, "translations": translations})
    return parsed


def _parse_question(check, raw, path, choice_lists, codes, *, grid=None):
    if not check.need(isinstance(raw, dict), path, "must be an object"):
        return None
    code = raw.get("code")
    if check.need(isinstance(code, str) and _CODE.match(code), f"{path}.code",
                  "starts with a letter and holds only letters, digits and '_' (at most 64)"):
        check.need(code not in codes, f"{path}.code", f"'{code}' is already used at {codes.get(code)}")
        codes.setdefault(code, path)
    kind = Question.Kind.SINGLE if grid else raw.get("kind")
    check.need(grid or kind in _KINDS, f"{path}.kind", f"must be one of {', '.join(sorted(_KINDS))}")
    required = raw.get("required", grid["required"] if grid else False)
    check.need(isinstance(required, bool), f"{path}.required", "must be true or false")
    translations = {}
    question = {
        "code": code,
        "kind": kind,
        "prompt": check.text(raw, "prompt", path, required=True, into=translations),
        "help_text": check.text(raw, "help_text", path, into=translations),
        "required": required is True,
        "min_value": None,
        "max_value": None,
        "max_length": None,
        "show_if": raw.get("show_if"),
        "constraint": raw.get("constraint"),
        "constraint_message": check.text(raw, "constraint_message", path, max_length=500, into=translations),
        "required_message": check.text(raw, "required_message", path, max_length=500, into=translations),
        "translations": translations,
        "choices": [],
        "rows": [],
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
                question["choices"] = choice_lists[choices]
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
        for key in ("min", "max"):
            value = raw.get(key)
            if check.need(value is None or (isinstance(value, int) and not isinstance(value, bool)),
                          f"{path}.{key}", "must be a whole number"):
                question[f"{key}_value"] = value
        low, high = question["min_value"], question["max_value"]
        check.need(low is None or high is None or low <= high, path, "min is above max")
    else:
        for key in ("min", "max"):
            check.need(key not in raw, f"{path}.{key}", "only a number question (integer, decimal) has min and max")

    if kind in _TEXT_KINDS:
        max_length = raw.get("max_length")
        if check.need(max_length is None or (isinstance(max_length, int) and not isinstance(max_length, bool) and max_length > 0),
                      f"{path}.max_length", "must be a positive whole number"):
            question["max_length"] = max_length
    else:
        check.need("max_length" not in raw, f"{path}.max_length", "only a text question has max_length")
    return question
