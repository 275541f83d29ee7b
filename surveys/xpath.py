"""XPath as XLSForms write ``relevant`` and ``constraint``, read into the rule language of ``surveys/rules.py``.

Nothing is evaluated; anything but the forms ``docs/xlsform.md`` lists ("Questions") is refused with XPathError.
"""
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from surveys.rules import MAX_DEPTH, MAX_DIGITS, RuleJSON


class XPathError(ValueError):
    """An expression outside what ``xpath_rule`` reads."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<ref>\$\{(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)\})
  | (?P<text>'[^']*'|"[^"]*")
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<op>!=|<=|>=|=|<|>)
  | (?P<arith>[+*\-])
  | (?P<punct>[(),])
  | (?P<dot>\.(?![\d]))
  | (?P<word>[A-Za-z][A-Za-z0-9_:\-]*)
)""", re.VERBOSE)
_WORDS = ("and", "or", "not", "selected", "count-selected", "if", "coalesce", "concat", "round", "div", "mod")
_WORDS_SHOWN = ("and", "or", "not()", "selected()", "count-selected()", "if()", "coalesce()", "concat()", "round()",
                "div", "mod", "+", "-", "*")
_FUNCTIONS = {"if": "if", "coalesce": "coalesce", "concat": "concat", "round": "round"}
_T = TypeVar("_T")
_OPS = {"=": "equals", "!=": "not_equals", ">": "gt", ">=": "ge", "<": "lt", "<=": "le"}
_FLIPPED = {"equals": "equals", "not_equals": "not_equals", "gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}
# A token: its kind, and its text (a reference's name, a text without its quotes, an op ...) or a number's value.
_Token = tuple[str, str | int | float]


def xpath_rule(expression: str, *, own: bool = False) -> RuleJSON:
    """Return the rule (``surveys/rules.py``, JSON data) an XLSForm ``relevant`` or ``constraint`` writes.

    ``own``: a constraint, where ``.`` is the question's own value. Raise
    XPathError for anything else; nothing is ever evaluated.
    """
    parser = _XPath(_tokens(expression), own=own)
    return parser.whole(parser.disjunction)


def _tokens(expression: str) -> list[_Token]:
    tokens: list[_Token] = []
    at = 0
    expression = expression.strip()
    while at < len(expression):
        match = _TOKEN.match(expression, at)
        if not match or match.end() == at:
            raise XPathError(f"cannot read {expression[at:at + 12]!r}")
        at = match.end()
        if match["ref"]:
            tokens.append(("ref", match["name"]))
        elif match["text"] is not None:
            tokens.append(("text", match["text"][1:-1]))
        elif match["number"]:
            number = match["number"]
            if len(number.lstrip("-").partition(".")[0]) > MAX_DIGITS:
                shown = number if len(number) <= 20 else f"{number[:20]}…"
                raise XPathError(f"{shown} has more than {MAX_DIGITS} digits before its point")
            tokens.append(("number", int(number) if "." not in number else float(number)))
        elif match["word"]:
            word = match["word"]
            if word in ("pull_data", "instance", "jr:choice-name", "indexed-repeat", "position"):
                raise XPathError(f"'{word}' reads external data or repeats, which are not supported")
            if word not in _WORDS:
                raise XPathError(f"'{word}' is not supported (read: {', '.join(_WORDS_SHOWN)})")
            tokens.append((word, word))
        else:
            kind = next(name for name in ("op", "arith", "punct", "dot") if match[name])
            tokens.append((kind, match[kind]))
    return tokens


@dataclass
class _XPath:
    tokens: list[_Token]
    own: bool
    at: int = 0
    depth: int = 0  # brackets open: bounded as a rule's nesting is, before Python's recursion limit is reached

    def whole(self, read: Callable[[], _T]) -> _T:
        """Read the whole expression with ``read``: a token left over is an error."""
        value = read()
        if self.at < len(self.tokens):
            raise XPathError(f"unexpected {self.tokens[self.at][1]!r}")
        return value

    def nested(self, read: Callable[[], _T] | None = None) -> _T | RuleJSON:
        """Read a bracketed disjunction (or what ``read`` reads) after its opening, and its closing bracket."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise XPathError(f"brackets nest deeper than {MAX_DEPTH} levels")
        inside = (read or self.disjunction)()
        self.close()
        self.depth -= 1
        return inside

    def peek(self) -> str | None:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else None

    def take(self, kind: str) -> str:
        if self.peek() != kind:
            found = repr(self.tokens[self.at][1]) if self.at < len(self.tokens) else "the end"
            raise XPathError(f"expected {kind!r}, found {found}")
        token = self.tokens[self.at]
        self.at += 1
        return str(token[1])  # text already: a number is taken by tokens_take

    def disjunction(self) -> RuleJSON:
        rules = [self.conjunction()]
        while self.peek() == "or":
            self.take("or")
            rules.append(self.conjunction())
        return rules[0] if len(rules) == 1 else {"op": "or", "rules": rules}

    def conjunction(self) -> RuleJSON:
        rules = [self.unary()]
        while self.peek() == "and":
            self.take("and")
            rules.append(self.unary())
        return rules[0] if len(rules) == 1 else {"op": "and", "rules": rules}

    def unary(self) -> RuleJSON:
        kind = self.peek()
        if kind == "not":
            self.take("not")
            self.opening()
            return {"op": "not", "rule": self.nested()}
        if kind == "punct" and self.tokens[self.at][1] == "(":
            self.take("punct")
            return self.nested()
        if kind == "selected":
            self.take("selected")
            self.opening()
            code = self.reference()
            self.comma()
            value = self.literal()
            self.close()
            return {"op": "selected", "q": code, "value": str(value)}
        return self.comparison()

    def opening(self) -> None:
        if self.take("punct") != "(":
            raise XPathError("expected '('")

    def comma(self) -> None:
        if self.take("punct") != ",":
            raise XPathError("expected ','")

    def close(self) -> None:
        if self.take("punct") != ")":
            raise XPathError("expected ')'")

    def literal(self) -> str | int | float:
        if self.negative_number():
            return -self.tokens_take()  # type: ignore[operator]  # a number token's value
        if self.peek() in ("text", "number"):
            return self.tokens_take()
        raise XPathError("expected a text or a number")

    def negative_number(self) -> bool:
        """Take the minus of ``-5`` (a literal a rule compares with), if that is what comes next."""
        if (self.peek() == "arith" and self.tokens[self.at][1] == "-" and self.at + 1 < len(self.tokens)
                and self.tokens[self.at + 1][0] == "number"):
            self.at += 1
            return True
        return False

    def tokens_take(self) -> str | int | float:
        token = self.tokens[self.at]
        self.at += 1
        return token[1]

    def reference(self) -> str:
        """``${q}``, or ``.`` (the question's own value) in a constraint."""
        if self.peek() == "dot":
            self.take("dot")
            if not self.own:
                raise XPathError("'.' (the question's own value) is only read in a constraint")
            return "."
        return self.take("ref")

    def operand(self) -> _Token:
        kind = self.peek()
        if kind in ("ref", "dot"):
            return ("ref", self.reference())
        if kind == "count-selected":
            self.take("count-selected")
            self.opening()
            code = self.reference()
            self.close()
            return ("count", code)
        if kind in ("text", "number") or self.negative_number():
            value = self.tokens_take()
            return ("literal", -value if kind == "arith" else value)  # type: ignore[operator]
        found = repr(self.tokens[self.at][1]) if self.at < len(self.tokens) else "the end"
        if kind in ("arith", "div", "mod", "if", "coalesce", "concat", "round"):
            raise XPathError(f"a comparison reads a question, not a calculation ({found}): write a calculate row "
                             "and compare its value")
        raise XPathError(f"expected ${{question}}, '.', a text or a number, found {found}")

    # Calculations: values, by XPath's precedence (unary minus, then * div mod, then + -).

    def additive(self) -> object:
        value = self.multiplicative()
        while self.peek() == "arith" and self.tokens[self.at][1] in ("+", "-"):
            fn = "add" if self.take("arith") == "+" else "sub"
            value = {"fn": fn, "args": [value, self.multiplicative()]}
        return value

    def multiplicative(self) -> object:
        value = self.negated()
        while (self.peek() == "arith" and self.tokens[self.at][1] == "*") or self.peek() in ("div", "mod"):
            kind = str(self.peek())
            fn = "mul" if self.take(kind) == "*" else kind
            value = {"fn": fn, "args": [value, self.negated()]}
        return value

    def negated(self) -> object:
        if self.peek() == "arith" and self.tokens[self.at][1] == "-":
            self.take("arith")
            value = self.negated()
            return -value if isinstance(value, (int, float)) else {"fn": "neg", "args": [value]}
        return self.primary()

    def primary(self) -> object:
        kind = self.peek()
        if kind in ("text", "number"):
            return self.tokens_take()
        if kind == "ref":
            return {"q": self.take("ref")}
        if kind == "punct" and self.tokens[self.at][1] == "(":
            self.take("punct")
            return self.nested(self.additive)
        if kind in _FUNCTIONS:
            self.take(kind)
            self.opening()
            args: list[object] = [self.disjunction() if kind == "if" else self.additive()]
            while self.peek() == "punct" and self.tokens[self.at][1] == ",":
                self.comma()
                args.append(self.additive())
            self.close()
            return {"fn": _FUNCTIONS[kind], "args": args}
        found = repr(self.tokens[self.at][1]) if self.at < len(self.tokens) else "the end"
        raise XPathError(f"expected a number, a text, ${{question}}, a function or '(', found {found}")

    def comparison(self) -> RuleJSON:
        left = self.operand()
        if self.peek() in ("arith", "div", "mod"):
            raise XPathError(f"a comparison reads a question, not a calculation ({self.tokens[self.at][1]!r}): write "
                             "a calculate row and compare its value")
        op = _OPS[self.take("op")]
        right = self.operand()
        if left[0] == "literal" and right[0] != "literal":
            left, right, op = right, left, _FLIPPED[op]
        if left[0] == "count":
            if right[0] != "literal" or not isinstance(right[1], int):
                raise XPathError("count-selected() compares with a whole number")
            return {"op": "count", "q": left[1], "cmp": op, "value": right[1]}
        if left[0] != "ref" or right[0] == "count":
            raise XPathError("a comparison reads a question")
        if right[0] == "ref":
            return {"op": op, "q": left[1], "value": {"q": right[1]}}
        value = right[1]
        if value == "" and op in ("equals", "not_equals"):
            answered = {"op": "answered", "q": left[1]}
            return answered if op == "not_equals" else {"op": "not", "rule": answered}
        return {"op": op, "q": left[1], "value": value}


def xpath_calculation(expression: str) -> object:
    """Return the calculation (``surveys/calculations.py``, JSON data) an XLSForm ``calculation`` writes: numbers,
    texts, ``${q}``, ``+``, ``-``, ``*``, ``div``, ``mod``, brackets, ``if(condition, a, b)`` (the condition as a
    ``relevant`` is written), ``coalesce(a, b)``, ``concat(a, ...)``, ``round(a, places)``. Raise XPathError for
    anything else; nothing is ever evaluated."""
    parser = _XPath(_tokens(expression), own=False)
    return parser.whole(parser.additive)
