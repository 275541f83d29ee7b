"""Calculations: values computed from earlier answers (XLSForm's ``calculate``), as a JSON expression tree.

Checked and compiled here, computed in IEEE doubles as ``survey.js`` computes them
(``surveys/tests/calculation_cases.json``). Read next: ``docs/architecture.md``, "Skip logic and constraints";
the XLSForm side: ``docs/xlsform.md``, "Questions".
"""
import math
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from surveys.models import Question
from surveys.rules import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_NODES,
    MAX_TEXT,
    Rule,
    RuleError,
    RuleJSON,
    RuleQuestion,
    is_number_text,
    is_numbered,
    rule_codes,
    rule_evaluate,
    rule_parse,
    rule_to_json,
)

NUMBER, TEXT = "number", "text"
ARITHMETIC = ("add", "sub", "mul", "div", "mod")
FUNCTIONS = (*ARITHMETIC, "neg", "round", "if", "coalesce", "concat")
MAX_PLACES = 10
# Kinds whose answers arithmetic reads as numbers; a single choice too when its values are all numbers.
_NUMBER_KINDS = (Question.Kind.INTEGER, Question.Kind.DECIMAL)
_NOT_READ = (Question.Kind.MULTIPLE, Question.Kind.DATE, Question.Kind.TIME, Question.Kind.DATETIME)
# The kind a rule reads a calculation as: a number as a decimal question's answer, text as a short text's.
READ_AS_KIND = {NUMBER: Question.Kind.DECIMAL, TEXT: Question.Kind.SHORT_TEXT}


class CalculationError(RuleError):
    """A calculation that cannot be compiled; ``problems`` lists why, each with its path."""


@dataclass(frozen=True)
class Literal:
    value: float | str


@dataclass(frozen=True)
class Ref:
    """An answer, as stored (text): arithmetic reads it as a number, everything else as it is written."""

    code: str


@dataclass(frozen=True)
class Call:
    fn: str
    args: tuple["Expression", ...]


@dataclass(frozen=True)
class If:
    rule: Rule
    then: "Expression"
    otherwise: "Expression"


Expression = Literal | Ref | Call | If


@dataclass(frozen=True)
class Calculation:
    """A compiled calculation: its expression and the type it makes (NUMBER or TEXT)."""

    expression: Expression
    type: str

    @property
    def read_as_kind(self) -> str:
        return READ_AS_KIND[self.type]


def calculation_parse(raw: object, *, path: str, earlier: Mapping[str, RuleQuestion],
                      later: Collection[str] = frozenset()) -> Calculation:
    """Check the expression ``raw`` against the questions and calculations before it (``earlier``, as rules take
    them; a calculation's ``kind`` is its READ_AS_KIND) and return it compiled; raise CalculationError listing every
    problem with its path."""
    parser = _Parser(earlier=earlier, later=later)
    compiled = parser.expression(raw, path, depth=1)
    if parser.problems or compiled is None:
        raise CalculationError(parser.problems or [f"{path}: is not an expression"])
    return Calculation(expression=compiled[0], type=compiled[1])


@dataclass
class _Parser:
    earlier: Mapping[str, RuleQuestion]
    later: Collection[str]
    nodes: int = 0
    problems: list[str] = field(default_factory=list)

    def refuse(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def expression(self, raw: Any, path: str, *, depth: int) -> tuple[Expression, str] | None:  # noqa: ANN401
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            self.refuse(path, f"a calculation nests at most {MAX_DEPTH} levels and holds at most {MAX_NODES} parts")
            return None
        if isinstance(raw, bool) or raw is None:
            self.refuse(path, "must be a number, a text, {\"q\": code} or {\"fn\": ..., \"args\": [...]}")
            return None
        if isinstance(raw, (int, float)):
            if not math.isfinite(raw) or abs(raw) >= 10 ** MAX_DIGITS:
                self.refuse(path, f"a number has at most {MAX_DIGITS} digits before its point")
                return None
            return Literal(float(raw)), NUMBER
        if isinstance(raw, str):
            if len(raw) > MAX_TEXT:
                self.refuse(path, f"is longer than {MAX_TEXT} characters")
                return None
            return Literal(raw), TEXT
        if not isinstance(raw, dict):
            self.refuse(path, "must be a number, a text, {\"q\": code} or {\"fn\": ..., \"args\": [...]}")
            return None
        if set(raw) == {"q"}:
            return self.reference(raw["q"], f"{path}.q")
        if set(raw) != {"fn", "args"} or raw["fn"] not in FUNCTIONS or not isinstance(raw["args"], list):
            self.refuse(path, f"a function is {{\"fn\": one of {', '.join(FUNCTIONS)}, \"args\": [...]}}")
            return None
        return self.call(raw["fn"], raw["args"], path, depth=depth)

    def reference(self, code: object, path: str) -> tuple[Expression, str] | None:
        if not isinstance(code, str) or code not in self.earlier:
            later = isinstance(code, str) and code in self.later
            self.refuse(path, f"'{code}' does not come before this calculation: it reads only earlier answers"
                        if later else f"there is no question '{code}'")
            return None
        question = self.earlier[code]
        if question.kind in _NOT_READ or question.kind in Question.UNANSWERED_KINDS:
            self.refuse(path, f"'{code}' is a {question.kind} question: a calculation reads numbers, texts and "
                        "single choices (date arithmetic is not supported)")
            return None
        numeric = question.kind in _NUMBER_KINDS or is_numbered(question)
        return Ref(code), NUMBER if numeric else TEXT

    def call(self, fn: str, raw_args: list[Any], path: str, *, depth: int) -> tuple[Expression, str] | None:
        arity = {"neg": (1, 1), "round": (2, 2), "if": (3, 3), "coalesce": (2, 2), "concat": (1, 20)}.get(fn, (2, 2))
        if not arity[0] <= len(raw_args) <= arity[1]:
            self.refuse(f"{path}.args", f"{fn}() takes {arity[0]}" + ("" if arity[0] == arity[1] else
                                                                        f" to {arity[1]}") + " arguments")
            return None
        if fn == "if":
            try:
                rule = rule_parse(raw_args[0], path=f"{path}.args[1]", earlier=self.earlier, later=self.later)
            except RuleError as error:
                self.problems.extend(error.problems)
                rule = None
            branches = [self.expression(a, f"{path}.args[{n}]", depth=depth + 1) for n, a in
                        ((2, raw_args[1]), (3, raw_args[2]))]
            if rule is None or None in branches:
                return None
            (then, then_type), (otherwise, otherwise_type) = branches  # type: ignore[misc]
            return If(rule, then, otherwise), then_type if then_type == otherwise_type else TEXT
        if fn == "round":
            places = raw_args[1]
            if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= MAX_PLACES:
                self.refuse(f"{path}.args[2]", f"round() takes a whole number of places from 0 to {MAX_PLACES}")
                return None
            raw_args = raw_args[:1]
        args = [self.expression(a, f"{path}.args[{n}]", depth=depth + 1) for n, a in enumerate(raw_args, start=1)]
        if None in args:
            return None
        compiled = tuple(a[0] for a in args if a)
        types = [a[1] for a in args if a]
        if fn == "round":
            return Call(fn, (*compiled, Literal(float(places)))), NUMBER
        if fn in (*ARITHMETIC, "neg"):
            return Call(fn, compiled), NUMBER
        if fn == "coalesce":
            return Call(fn, compiled), types[0] if types[0] == types[1] else TEXT
        return Call(fn, compiled), TEXT


def calculation_codes(calculation: Calculation) -> frozenset[str]:
    """Return the codes of the answers and calculations ``calculation`` reads."""
    codes: set[str] = set()
    for node in _walk(calculation.expression):
        if isinstance(node, Ref):
            codes.add(node.code)
        elif isinstance(node, If):
            codes |= rule_codes(node.rule)
    return frozenset(codes)


def _walk(expression: Expression) -> Iterator[Expression]:
    yield expression
    if isinstance(expression, Call):
        for arg in expression.args:
            yield from _walk(arg)
    elif isinstance(expression, If):
        yield from _walk(expression.then)
        yield from _walk(expression.otherwise)


def calculation_to_json(calculation: Calculation) -> RuleJSON | float | str:
    """Return the expression as canonical JSON data: what ``calculation_parse`` reads."""
    return _json(calculation.expression)


def _json(expression: Expression) -> Any:  # noqa: ANN401 - a literal, or a dict
    if isinstance(expression, Literal):
        value = expression.value
        return int(value) if isinstance(value, float) and value.is_integer() else value
    if isinstance(expression, Ref):
        return {"q": expression.code}
    if isinstance(expression, If):
        return {"fn": "if", "args": [rule_to_json(expression.rule), _json(expression.then), _json(expression.otherwise)]}
    return {"fn": expression.fn, "args": [_json(arg) for arg in expression.args]}


# Evaluation: a value is a float (NaN: blank) or a str ("": blank).

def calculation_evaluate(calculation: Calculation, answers: Mapping[str, str]) -> str:
    """Return the value of ``calculation`` for ``answers`` (code to stored text, calculations' included), as text."""
    return _text(_value(calculation.expression, answers))


def _value(expression: Expression, answers: Mapping[str, str]) -> float | str:
    if isinstance(expression, Literal):
        return expression.value
    if isinstance(expression, Ref):
        text = answers.get(expression.code, "")
        return text.strip() if isinstance(text, str) else ""
    if isinstance(expression, If):
        chosen = expression.then if rule_evaluate(expression.rule, answers) else expression.otherwise
        return _value(chosen, answers)
    values = [_value(arg, answers) for arg in expression.args]
    fn = expression.fn
    if fn == "concat":
        return "".join(_text(v) for v in values)
    if fn == "coalesce":
        return values[0] if not _blank(values[0]) else values[1]
    numbers = [v if isinstance(v, float) else _number(v) for v in values]
    if fn == "neg":
        return -numbers[0]
    if fn == "round":
        if not math.isfinite(numbers[0]):
            return math.nan
        scale = 10.0 ** numbers[1]
        return math.copysign(math.floor(abs(numbers[0]) * scale + 0.5) / scale, numbers[0])
    a, b = numbers
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if fn == "add":
        return a + b
    if fn == "sub":
        return a - b
    if fn == "mul":
        return a * b
    if b == 0:
        return math.nan  # XPath says Infinity, or NaN for 0 div 0: either is blank
    return a / b if fn == "div" else math.fmod(a, b)  # XPath's mod keeps the dividend's sign, as fmod and JS's %


def _number(text: str) -> float:
    return float(text) if is_number_text(text) else math.nan


def _blank(value: float | str) -> bool:
    return value == "" if isinstance(value, str) else not math.isfinite(value)


def _text(value: float | str) -> str:
    """A value as text: a number with no exponent (a whole one as such, any other to ten places, its trailing
    zeros cut); blank for a number that is not finite or not smaller than 10^15."""
    if isinstance(value, str):
        return value
    if not math.isfinite(value) or abs(value) >= 10 ** MAX_DIGITS:
        return ""
    if value.is_integer():
        return str(int(value))
    text = f"{value:.{MAX_PLACES}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
