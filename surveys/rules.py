"""Skip logic and constraints: a small JSON rule language of the survey's own, checked, compiled and evaluated here.

Rules compile into frozen dataclasses (safe in the per-process definition memo); nothing is handed to ``eval``, and
``survey.js`` agrees on every case of ``surveys/tests/rule_cases.json``. Read next: ``docs/architecture.md``, "Skip
logic and constraints" (the tree, what each op may read, blank answers, the bounds).
"""
import datetime
import math
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext, gettext_lazy, ngettext

from surveys.models import Question

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

MAX_DEPTH = 20
MAX_NODES = 200
MAX_VALUES = 200
MAX_TEXT = max(Question.DEFAULT_MAX_LENGTH.values())
MAX_DIGITS = 15
OWN = "."

COMPARISONS = ("equals", "not_equals", "gt", "ge", "lt", "le")
ORDERINGS = ("gt", "ge", "lt", "le")
OPS = (*COMPARISONS, "in", "selected", "count", "answered", "and", "or", "not")
_KEYS: dict[str, tuple[str, ...]] = {
    **{op: ("op", "q", "value") for op in COMPARISONS},
    "in": ("op", "q", "values"),
    "selected": ("op", "q", "value"),
    "count": ("op", "q", "cmp", "value"),
    "answered": ("op", "q"),
    "and": ("op", "rules"),
    "or": ("op", "rules"),
    "not": ("op", "rule"),
}

# How each kind's answer is read; a kind missing here (a grid) takes no answer.
_NUMBER, _DATE, _TEXT, _CHOICE, _CHOICES = "number", "date", "text", "choice", "choices"
# A time of day (HH:MM) and a date and time (YYYY-MM-DDTHH:MM) as stored: fixed-width text, ordered as written.
_TIME, _DATETIME = "time", "datetime"
_ORDERED = (_NUMBER, _DATE, _TIME, _DATETIME)
_READ_AS: dict[str, str] = {
    Question.Kind.INTEGER: _NUMBER,
    Question.Kind.DECIMAL: _NUMBER,
    Question.Kind.DATE: _DATE,
    Question.Kind.TIME: _TIME,
    Question.Kind.DATETIME: _DATETIME,
    Question.Kind.SHORT_TEXT: _TEXT,
    Question.Kind.LONG_TEXT: _TEXT,
    Question.Kind.SINGLE: _CHOICE,
    Question.Kind.MULTIPLE: _CHOICES,
}
_KIND_NAMES: dict[str, str] = {
    Question.Kind.SINGLE: "single-choice", Question.Kind.MULTIPLE: "multiple-choice", Question.Kind.GRID: "grid",
    Question.Kind.INTEGER: "integer", Question.Kind.DECIMAL: "decimal", Question.Kind.DATE: "date",
    Question.Kind.SHORT_TEXT: "short text", Question.Kind.LONG_TEXT: "long text", Question.Kind.TIME: "time",
    Question.Kind.DATETIME: "date-time", Question.Kind.NOTE: "note",
}
_NUMBER_TEXT = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
_DATE_TEXT = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_TIME_TEXT = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
_DATETIME_TEXT = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})T(([01][0-9]|2[0-3]):[0-5][0-9])$")


class RuleError(ValueError):
    """A rule that cannot be compiled; ``problems`` lists why, each with its path."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class RuleQuestion:
    """What a rule needs to know of a question it reads: its kind and, for a choice question, its choice values."""

    code: str
    kind: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Literal:
    """A value written in the rule: ``json`` as written (canonical), ``typed`` as compared."""

    json: int | float | str  # a decimal question's number may be written with a point
    typed: Decimal | datetime.date | str


@dataclass(frozen=True)
class AnswerTo:
    """The answer to question ``code`` (``"."``: the constrained question's own value)."""

    code: str


@dataclass(frozen=True)
class Compare:
    op: str
    code: str
    other: Literal | AnswerTo
    read_as: str


@dataclass(frozen=True)
class InSet:
    code: str
    values: tuple[Literal, ...]
    read_as: str
    typed: frozenset[Decimal | datetime.date | str]


@dataclass(frozen=True)
class Selected:
    code: str
    value: str


@dataclass(frozen=True)
class Count:
    code: str
    cmp: str
    value: int


@dataclass(frozen=True)
class Answered:
    code: str


@dataclass(frozen=True)
class AllOf:
    rules: tuple["Rule", ...]


@dataclass(frozen=True)
class AnyOf:
    rules: tuple["Rule", ...]


@dataclass(frozen=True)
class Not:
    rule: "Rule"


Rule = Compare | InSet | Selected | Count | Answered | AllOf | AnyOf | Not
# A rule as JSON data: what rule_parse reads and rule_to_json writes (the tree: docs/architecture.md, Skip logic).
RuleJSON = dict[str, Any]
# JSON as a document was written (a rule, or a whole survey document): of any type until it is checked, which is
# what the parsers here and in ``surveys.documents`` do, value by value.
RawJSON: TypeAlias = Any
_T = TypeVar("_T")


# Parsing and checking

def rule_parse(
    raw: object,
    *,
    path: str,
    earlier: Mapping[str, RuleQuestion],
    later: Collection[str] = frozenset(),
    own: RuleQuestion | None = None,
) -> Rule:
    """Check ``raw`` and return it compiled; raise RuleError listing every problem with its path.

    ``earlier`` maps the code of every question answered before the rule's
    holder (on earlier pages, or earlier on the same page for a question's
    rule) to what the rule needs to know of it; ``later`` names the survey's
    other codes, so that a reference to one of them is called too late rather
    than unknown. ``own`` is the question a constraint belongs to: given, the
    rule is a constraint and may read ``"."``.
    """
    parser = _Parser(root=path, earlier=earlier, later=later, own=own)
    rule = parser.rule(raw, path, depth=1)
    if parser.problems:
        raise RuleError(parser.problems)
    assert rule is not None  # the parser notes a problem whenever it compiles nothing
    return rule


@dataclass
class _Parser:
    root: str
    earlier: Mapping[str, RuleQuestion]
    later: Collection[str]
    own: RuleQuestion | None
    nodes: int = 0
    problems: list[str] = field(default_factory=list)

    def need(self, condition: _T, path: str, message: str) -> _T:
        if not condition:
            self.problems.append(f"{path}: {message}")
        return condition

    def refuse(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def rule(self, raw: RawJSON, path: str, *, depth: int) -> Rule | None:
        # Stop descending at the first limit crossed: the rest of an oversized rule is not read at all.
        if not self.need(depth <= MAX_DEPTH, path, f"rules nest deeper than {MAX_DEPTH} levels"):
            return None
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.problems.append(f"{self.root}: a rule holds more than {MAX_NODES} ops")
            return None
        if not self.need(isinstance(raw, dict), path, "must be an object with an op"):
            return None
        op = raw.get("op")
        if op is None:
            self.refuse(f"{path}.op", f"must be one of {', '.join(OPS)}")
            return None
        if not self.need(isinstance(op, str) and op in _KEYS, f"{path}.op", f"{op!r} is not one of {', '.join(OPS)}"):
            return None
        keys = _KEYS[op]
        complete = True
        for key in keys:
            complete &= self.need(key in raw, f"{path}.{key}", "is required")
        for key in raw:
            if key not in keys:
                self.refuse(f"{path}.{key}" if isinstance(key, str) else path,
                          f"is not a key of a '{op}' rule (it takes {', '.join(keys)})")
        if not complete:
            return None
        if op in ("and", "or"):
            return self.group(op, raw["rules"], f"{path}.rules", depth=depth)
        if op == "not":
            inner = self.rule(raw["rule"], f"{path}.rule", depth=depth + 1)
            return Not(rule=inner) if inner else None
        question = self.reference(raw["q"], f"{path}.q")
        if question is None:
            return None
        code = raw["q"]
        read_as = _READ_AS[question.kind]
        if op in COMPARISONS:
            return self.compare(op, code, question, read_as, raw["value"], path)
        if op == "in":
            return self.in_set(code, question, read_as, raw["values"], path)
        if op == "answered":
            return Answered(code=code)
        if not self.need(read_as in (_CHOICE, _CHOICES), f"{path}.op",
                         f"'{op}' reads a choice question; {_named(question)}"):
            return None
        if op == "selected":
            value = self.literal(raw["value"], question, _CHOICE, f"{path}.value")
            return Selected(code=code, value=str(value.json)) if value else None  # a choice value: text already
        cmp, value = raw["cmp"], raw["value"]
        fine = self.need(cmp in COMPARISONS if isinstance(cmp, str) else False, f"{path}.cmp",
                         f"must be one of {', '.join(COMPARISONS)}")
        fine &= (self.need(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                           f"{path}.value", "must be a whole number, 0 or more")
                 and self.digits(value, f"{path}.value"))
        return Count(code=code, cmp=cmp, value=value) if fine else None

    def group(self, op: str, raw_rules: RawJSON, path: str, *, depth: int) -> AllOf | AnyOf | None:
        if not self.need(isinstance(raw_rules, list) and raw_rules, path, "must be a non-empty list of rules"):
            return None
        rules = [self.rule(raw, f"{path}[{index}]", depth=depth + 1) for index, raw in enumerate(raw_rules, start=1)]
        compiled = tuple(rule for rule in rules if rule is not None)
        if len(compiled) < len(rules):
            return None
        return AllOf(rules=compiled) if op == "and" else AnyOf(rules=compiled)

    def reference(self, code: RawJSON, path: str) -> RuleQuestion | None:
        """Return the question ``code`` names if a rule here may read it, else None (with the reason noted)."""
        if not self.need(isinstance(code, str), path, "must be a question code (text)"):
            return None
        if code == OWN:
            if self.own is None:
                self.refuse(path, "'.' (the question's own value) is only allowed in a constraint")
                return None
            question = self.own
        elif code in self.earlier:
            question = self.earlier[code]
        elif self.own is not None and code == self.own.code:
            self.refuse(path, f"'{code}' is the question this constraint belongs to: write '.' for its value")
            return None
        elif code in self.later:
            self.refuse(path, f"'{code}' does not come before this rule: a rule reads only earlier answers")
            return None
        else:
            self.refuse(path, f"there is no question '{code}'")
            return None
        if question.kind not in _READ_AS:
            rows = ": name one of its rows" if question.kind == Question.Kind.GRID else ""
            kind = _KIND_NAMES.get(question.kind, question.kind)
            self.refuse(path, f"'{question.code}' is a {kind}, which takes no answer{rows}")
            return None
        return question

    def compare(self, op: str, code: str, question: RuleQuestion, read_as: str, raw_value: RawJSON,
                path: str) -> Compare | None:
        if read_as == _CHOICES:
            self.refuse(f"{path}.op", _not_multiple(op, question))
            return None
        if op in ORDERINGS and is_numbered(question):
            read_as = _NUMBER  # a scale's numbered choices, ordered as numbers
        if op in ORDERINGS and not self.need(read_as in _ORDERED, f"{path}.op",
                                             f"'{op}' compares number, date or time answers; {_named(question)}"):
            return None
        if isinstance(raw_value, dict):
            if not self.need(set(raw_value) == {"q"}, f"{path}.value",
                             "an answer to compare with is written {\"q\": code}"):
                return None
            other_code = raw_value["q"]
            other = self.reference(other_code, f"{path}.value.q")
            if other is None:
                return None
            other_as = _READ_AS[other.kind]
            if not self.need(_comparable(read_as) == _comparable(other_as), f"{path}.value.q",
                             f"cannot compare {_named(question)} with {_named(other)}"):
                return None
            return Compare(op=op, code=code, other=AnswerTo(code=other_code), read_as=read_as)
        value = self.literal(raw_value, question, read_as, f"{path}.value")
        return Compare(op=op, code=code, other=value, read_as=read_as) if value else None

    def in_set(self, code: str, question: RuleQuestion, read_as: str, raw_values: RawJSON, path: str) -> InSet | None:
        if read_as == _CHOICES:
            self.refuse(f"{path}.op", _not_multiple("in", question))
            return None
        if not self.need(isinstance(raw_values, list) and 0 < len(raw_values) <= MAX_VALUES, f"{path}.values",
                         f"must be a list of 1 to {MAX_VALUES} values"):
            return None
        values: list[Literal] = []
        seen: set[Decimal | datetime.date | str] = set()
        for index, raw in enumerate(raw_values, start=1):
            value = self.literal(raw, question, read_as, f"{path}.values[{index}]")
            if value is None:
                continue
            if self.need(value.typed not in seen, f"{path}.values[{index}]", f"{value.json!r} appears twice"):
                seen.add(value.typed)
                values.append(value)
        if len(values) < len(raw_values):
            return None
        return InSet(code=code, values=tuple(values), read_as=read_as, typed=frozenset(seen))

    def digits(self, number: float, path: str) -> bool:
        return self.need(abs(number) < 10 ** MAX_DIGITS, path, f"has more than {MAX_DIGITS} digits before its point "
                         "(survey.js compares no larger numbers exactly)")

    def literal(self, raw: RawJSON, question: RuleQuestion, read_as: str, path: str) -> Literal | None:
        """Return ``raw`` as a Literal fit for ``question`` read as ``read_as``, or None (with the reason noted)."""
        whole = isinstance(raw, int) and not isinstance(raw, bool)
        if read_as == _NUMBER and question.kind in (Question.Kind.DECIMAL, Question.Kind.SINGLE):
            number = isinstance(raw, float) and math.isfinite(raw)
            if self.need(whole or number, path, f"must be a number, as {_named(question)}") and self.digits(raw, path):
                return Literal(json=raw, typed=Decimal(str(raw)))
        elif read_as == _NUMBER:
            if self.need(whole, path, f"must be a whole number, as {_named(question)}") and self.digits(raw, path):
                return Literal(json=raw, typed=Decimal(raw))
        elif read_as == _DATE:
            day = _date(raw) if isinstance(raw, str) else None
            if day is None:
                self.refuse(path, f"must be a date written YYYY-MM-DD, as {_named(question)}")
            else:
                return Literal(json=raw, typed=day)
        elif read_as in (_TIME, _DATETIME):
            written = "HH:MM" if read_as == _TIME else "YYYY-MM-DDTHH:MM"
            if self.need(isinstance(raw, str) and _typed(raw, read_as) is not None, path,
                         f"must be written {written}, as {_named(question)}"):
                return Literal(json=raw, typed=raw)
        elif read_as == _TEXT:
            if (self.need(isinstance(raw, str), path, f"must be text, as {_named(question)}")
                    and self.need(raw != "", path, "must not be empty: ask whether there is an answer with 'answered'")
                    and self.need(len(raw) <= MAX_TEXT, path, f"is longer than {MAX_TEXT} characters")):
                return Literal(json=raw, typed=raw)
        else:
            value = str(raw) if whole else raw
            if self.need(isinstance(value, str), path, f"must be one of the choice values of '{question.code}'"):
                if self.need(value in question.choices, path, f"{value!r} is not a choice of '{question.code}'"):
                    return Literal(json=value, typed=value)
        return None


def _named(question: RuleQuestion) -> str:
    kind = _KIND_NAMES.get(question.kind, question.kind)
    return f"'{question.code}' is {'an' if kind[0] in 'aeiou' else 'a'} {kind} question"


def _not_multiple(op: str, question: RuleQuestion) -> str:
    return f"'{op}' does not read a multiple-choice question ('{question.code}'): use selected or count"


def _comparable(read_as: str) -> str:
    # A single choice's value is text: comparing it with a text answer or another single choice is fair.
    return _TEXT if read_as == _CHOICE else read_as


# How a date, a time and a date-and-time answer are stored (and written in a rule or a default).
WRITTEN: dict[str, str] = {Question.Kind.DATE: "YYYY-MM-DD", Question.Kind.TIME: "HH:MM", Question.Kind.DATETIME: "YYYY-MM-DDTHH:MM"}


def written_as_stored(kind: str, text: str) -> bool:
    """Return whether ``text`` is an answer of ``kind`` (a key of WRITTEN) as it is stored, a day that exists."""
    return _typed(text, _READ_AS[kind]) is not None


def is_number_text(text: str) -> bool:
    """Return whether ``text`` is a number as answers and choice values write one (``-12``, ``3.5``)."""
    return bool(_NUMBER_TEXT.match(text))


def is_numbered(question: RuleQuestion) -> bool:
    """Return whether ``question`` is a single choice whose values are all numbers (a scale, read as numbers by
    orderings and arithmetic, as XLSForms score Likert items)."""
    return question.kind == Question.Kind.SINGLE and bool(question.choices) and all(
        map(is_number_text, question.choices))


def _date(text: str) -> datetime.date | None:
    if not _DATE_TEXT.match(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


# What a rule reads, and its canonical JSON

def rule_codes(rule: Rule) -> frozenset[str]:
    """Return the codes of the questions ``rule`` reads (not ``"."``, the constrained question's own value)."""
    codes: set[str] = set()
    for node in _walk(rule):
        if isinstance(node, (AllOf, AnyOf, Not)):
            continue
        codes.add(node.code)
        if isinstance(node, Compare) and isinstance(node.other, AnswerTo):
            codes.add(node.other.code)
    codes.discard(OWN)
    return frozenset(codes)


def _walk(rule: Rule) -> Iterator[Rule]:
    yield rule
    if isinstance(rule, (AllOf, AnyOf)):
        for inner in rule.rules:
            yield from _walk(inner)
    elif isinstance(rule, Not):
        yield from _walk(rule.rule)


def rule_to_json(rule: Rule) -> RuleJSON:
    """Return ``rule`` as canonical JSON data: what ``rule_parse`` reads, with choice values as text."""
    if isinstance(rule, Compare):
        other = {"q": rule.other.code} if isinstance(rule.other, AnswerTo) else rule.other.json
        return {"op": rule.op, "q": rule.code, "value": other}
    if isinstance(rule, InSet):
        return {"op": "in", "q": rule.code, "values": [value.json for value in rule.values]}
    if isinstance(rule, Selected):
        return {"op": "selected", "q": rule.code, "value": rule.value}
    if isinstance(rule, Count):
        return {"op": "count", "q": rule.code, "cmp": rule.cmp, "value": rule.value}
    if isinstance(rule, Answered):
        return {"op": "answered", "q": rule.code}
    if isinstance(rule, (AllOf, AnyOf)):
        return {"op": "and" if isinstance(rule, AllOf) else "or", "rules": [rule_to_json(r) for r in rule.rules]}
    return {"op": "not", "rule": rule_to_json(rule.rule)}


# Evaluation

def rule_evaluate(rule: Rule, answers: Mapping[str, str], *, own: str | None = None) -> bool:
    """Return whether ``rule`` holds for ``answers`` (code to stored text) and, in a constraint, the value ``own``."""
    if isinstance(rule, AllOf):
        return all(rule_evaluate(r, answers, own=own) for r in rule.rules)
    if isinstance(rule, AnyOf):
        return any(rule_evaluate(r, answers, own=own) for r in rule.rules)
    if isinstance(rule, Not):
        return not rule_evaluate(rule.rule, answers, own=own)
    text = _answer(rule.code, answers, own)
    if isinstance(rule, Answered):
        return text != ""
    if isinstance(rule, Selected):
        return rule.value in text.split()
    if isinstance(rule, Count):
        return _holds(rule.cmp, len(text.split()), rule.value)
    if isinstance(rule, InSet):
        value = _typed(text, rule.read_as)
        return value is not None and value in rule.typed
    left = _typed(text, rule.read_as)
    right: Decimal | datetime.date | str | None
    if isinstance(rule.other, Literal):
        right = rule.other.typed
    else:
        right = _typed(_answer(rule.other.code, answers, own), rule.read_as)
    if left is None or right is None:
        return rule.op == "not_equals"
    return _holds(rule.op, left, right)


def _answer(code: str, answers: Mapping[str, str], own: str | None) -> str:
    value = own if code == OWN else answers.get(code)
    return value.strip() if isinstance(value, str) else ""


def _typed(text: str, read_as: str) -> Decimal | datetime.date | str | None:
    """Return ``text`` as compared when read as ``read_as``; None when blank or not readable so."""
    if text == "":
        return None
    if read_as == _NUMBER:
        return Decimal(text) if _NUMBER_TEXT.match(text) else None
    if read_as == _DATE:
        return _date(text)
    if read_as == _TIME:
        return text if _TIME_TEXT.match(text) else None
    if read_as == _DATETIME:
        match = _DATETIME_TEXT.match(text)
        return text if match and _date(match[1]) else None
    return text


def _holds(op: str, left: Any, right: Any) -> bool:  # noqa: ANN401 - two values of any one kind _typed reads, or counts
    if op == "equals":
        return left == right
    if op == "not_equals":
        return left != right
    if op == "gt":
        return left > right
    if op == "ge":
        return left >= right
    if op == "lt":
        return left < right
    return left <= right


# Plain words, for the page without JavaScript

def rule_describe(rule: Rule, *, prompts: Mapping[str, str], choice_labels: Mapping[tuple[str, str], str]) -> str:
    """Return ``rule`` as a clause in plain words, to follow "if": "you chose “Teacher” for “What is your role?”".

    ``prompts`` maps codes to question prompts and ``choice_labels`` maps
    ``(code, value)`` to a choice's label; a code or value missing from them is
    shown as it is. A caller writes the sentence around the clause, such as
    ``gettext("Answer if %(condition)s.")``. Within and/or, a nested and/or
    is put in brackets, so "A and (B or C)" reads as it evaluates.
    """
    return _Describer(prompts=prompts, choice_labels=choice_labels).clause(rule)


@dataclass
class _Describer:
    prompts: Mapping[str, str]
    choice_labels: Mapping[tuple[str, str], str]

    def clause(self, rule: Rule, *, negated: bool = False) -> str:
        if isinstance(rule, Not):
            return self.clause(rule.rule, negated=not negated)
        if isinstance(rule, (AllOf, AnyOf)):
            joined = _join([self.part(r) for r in rule.rules], and_=isinstance(rule, AllOf))
            return gettext("it is not true that %(condition)s") % {"condition": joined} if negated else joined
        if isinstance(rule, Answered):
            text = gettext("you did not answer %(question)s") if negated else gettext("you answered %(question)s")
            return text % {"question": self.question(rule.code)}
        if isinstance(rule, Selected):
            return self.chose([rule.value], rule.code, negated=negated)
        if isinstance(rule, Count):
            text = self.count(rule)
            return gettext("it is not true that %(condition)s") % {"condition": text} if negated else text
        if isinstance(rule, InSet):
            if rule.read_as == _CHOICE:
                return self.chose([str(v.json) for v in rule.values], rule.code, negated=negated)  # text already
            values = _join([self.literal(v) for v in rule.values], and_=False)
            text = gettext("%(answer)s is not %(values)s") if negated else gettext("%(answer)s is %(values)s")
            return text % {"answer": self.answer(rule.code), "values": values}
        op = rule.op
        if negated and op in ("equals", "not_equals"):
            op, negated = ("not_equals" if op == "equals" else "equals"), False
        if rule.read_as == _CHOICE and isinstance(rule.other, Literal) and op in ("equals", "not_equals"):
            return self.chose([str(rule.other.json)], rule.code, negated=op == "not_equals")  # text already
        other = self.answer(rule.other.code) if isinstance(rule.other, AnswerTo) else self.literal(rule.other)
        text = _comparison_texts(rule.read_as)[op] % {"answer": self.answer(rule.code), "value": other}
        return gettext("it is not true that %(condition)s") % {"condition": text} if negated else text

    def part(self, rule: Rule) -> str:
        text = self.clause(rule)
        return f"({text})" if isinstance(rule, (AllOf, AnyOf)) else text

    def chose(self, values: Sequence[str], code: str, *, negated: bool) -> str:
        choices = _join([_quote(self.choice_labels.get((code, v), v)) for v in values], and_=False)
        text = gettext("you did not choose %(choices)s for %(question)s") if negated else gettext(
            "you chose %(choices)s for %(question)s")
        return text % {"choices": choices, "question": self.question(code)}

    def count(self, rule: Count) -> str:
        n = rule.value
        how_many = {
            "equals": ngettext("exactly %(n)s answer", "exactly %(n)s answers", n),
            "not_equals": ngettext("other than %(n)s answer", "other than %(n)s answers", n),
            "gt": ngettext("more than %(n)s answer", "more than %(n)s answers", n),
            "ge": ngettext("at least %(n)s answer", "at least %(n)s answers", n),
            "lt": ngettext("fewer than %(n)s answer", "fewer than %(n)s answers", n),
            "le": ngettext("at most %(n)s answer", "at most %(n)s answers", n),
        }[rule.cmp] % {"n": n}
        return gettext("you chose %(how_many)s for %(question)s") % {
            "how_many": how_many, "question": self.question(rule.code)}

    def question(self, code: str) -> str:
        if code == OWN:
            return gettext("this question")
        return _quote(self.prompts.get(code, code))

    def answer(self, code: str) -> str:
        if code == OWN:
            return gettext("your answer")
        return gettext("your answer to %(question)s") % {"question": self.question(code)}

    def literal(self, literal: Literal) -> str:
        return _quote(literal.json) if isinstance(literal.typed, str) else str(literal.json)


def _comparison_texts(read_as: str) -> dict[str, str]:
    if read_as in (_DATE, _TIME, _DATETIME):
        return {
            "equals": gettext("%(answer)s is %(value)s"), "not_equals": gettext("%(answer)s is not %(value)s"),
            "gt": gettext("%(answer)s is after %(value)s"), "ge": gettext("%(answer)s is on or after %(value)s"),
            "lt": gettext("%(answer)s is before %(value)s"), "le": gettext("%(answer)s is on or before %(value)s"),
        }
    return {
        "equals": gettext("%(answer)s is %(value)s"), "not_equals": gettext("%(answer)s is not %(value)s"),
        "gt": gettext("%(answer)s is more than %(value)s"), "ge": gettext("%(answer)s is at least %(value)s"),
        "lt": gettext("%(answer)s is less than %(value)s"), "le": gettext("%(answer)s is at most %(value)s"),
    }


def _quote(text: object) -> str:
    return gettext("“%(text)s”") % {"text": text}


def _join(parts: Sequence[str], *, and_: bool) -> str:
    if len(parts) == 1:
        return parts[0]
    last = gettext("%(rest)s and %(last)s") if and_ else gettext("%(rest)s or %(last)s")
    return last % {"rest": ", ".join(parts[:-1]), "last": parts[-1]}


# Messages a question shows when it carries none of its own

_K = Question.Kind
# The invalid, min_value and max_value texts are Django's own (the page form's
# fields show them as they are), read from Django so they cannot drift and
# Django's catalogs translate them.
_DEFAULT_MESSAGES: dict[str, dict[str | None, "StrOrPromise"]] = {
    "required": {
        _K.SINGLE: gettext_lazy("Please choose an answer."),
        _K.MULTIPLE: gettext_lazy("Please choose at least one answer."),
        _K.INTEGER: gettext_lazy("Please enter a number."),
        _K.DATE: gettext_lazy("Please enter a date."),
        None: gettext_lazy("Please answer this question."),
    },
    "constraint": {
        _K.INTEGER: gettext_lazy("Please check this number: it does not fit with your other answers."),
        _K.DATE: gettext_lazy("Please check this date: it does not fit with your other answers."),
        None: gettext_lazy("Please check this answer: it does not fit with your other answers."),
    },
    "invalid": {
        _K.INTEGER: forms.IntegerField.default_error_messages["invalid"],
        _K.DECIMAL: forms.DecimalField.default_error_messages["invalid"],
        _K.DATE: forms.DateField.default_error_messages["invalid"],
        _K.TIME: forms.TimeField.default_error_messages["invalid"],
        _K.DATETIME: forms.DateTimeField.default_error_messages["invalid"],
    },
    "min_value": {_K.INTEGER: MinValueValidator.message, _K.DECIMAL: MinValueValidator.message},
    "max_value": {_K.INTEGER: MaxValueValidator.message, _K.DECIMAL: MaxValueValidator.message},
}


def default_message(kind: str, which: str, **params: object) -> str:
    """Return the message a question of ``kind`` shows for ``which`` problem when it has none of its own.

    ``which`` is ``required``, ``constraint``, ``invalid`` (not a whole number,
    not a date), ``min_value`` or ``max_value`` (with ``limit_value=``).
    Raise ValueError for a problem a question of ``kind`` cannot have.
    """
    texts = _DEFAULT_MESSAGES.get(which, {})
    text = texts.get(kind, texts.get(None))
    if text is None:
        raise ValueError(f"a {kind} question has no default {which!r} message")
    return str(text) % params if params else str(text)
