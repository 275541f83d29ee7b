"""Calculations: golden cases both evaluators agree on, and what a calculation may read."""
import json
from pathlib import Path

import pytest

from surveys.calculations import (
    CalculationError,
    calculation_codes,
    calculation_evaluate,
    calculation_parse,
    calculation_to_json,
)
from surveys.rules import RuleQuestion

CASES = json.loads((Path(__file__).resolve().parent / "calculation_cases.json").read_text())
EARLIER = {code: RuleQuestion(code=code, kind=spec["kind"], choices=tuple(spec.get("choices", ())))
           for code, spec in CASES["questions"].items()}


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["name"] for case in CASES["cases"]])
def test_every_golden_case_computes_as_expected_and_is_written_canonically(case):
    calculation = calculation_parse(case["expression"], path="calc", earlier=EARLIER)
    assert calculation_evaluate(calculation, case["answers"]) == case["expected"]
    assert calculation.type == case["type"]
    assert calculation_to_json(calculation) == case["expression"]


def test_a_calculation_names_the_answers_it_reads():
    calculation = calculation_parse({"fn": "if", "args": [{"op": "answered", "q": "role"}, {"q": "adults"}, 0]},
                                    path="calc", earlier=EARLIER)
    assert calculation_codes(calculation) == {"role", "adults"}


@pytest.mark.parametrize(("raw", "problem"), [
    ({"q": "later"}, "calc.q: 'later' does not come before this calculation: it reads only earlier answers"),
    ({"q": "nobody"}, "calc.q: there is no question 'nobody'"),
    ({"q": "pets"}, "calc.q: 'pets' is a multiple question: a calculation reads numbers, texts and single choices "
                    "(date arithmetic is not supported)"),
    ({"q": "born"}, "calc.q: 'born' is a date question"),
    ({"fn": "pow", "args": [2, 3]}, "calc: a function is {\"fn\": one of add, sub, mul, div, mod, neg, round, if"),
    ({"fn": "add", "args": [1]}, "calc.args: add() takes 2 arguments"),
    ({"fn": "round", "args": [{"q": "height"}, 11]}, "calc.args[2]: round() takes a whole number of places from 0 "
                                                     "to 10"),
    ({"fn": "if", "args": [{"op": "gt", "q": "first", "value": 1}, 1, 2]}, "calc.args[1].op: 'gt' compares number"),
    (True, "calc: must be a number, a text"),
    (1e20, "calc: a number has at most 15 digits before its point"),
])
def test_a_calculation_reading_what_it_cannot_is_refused_with_its_path(raw, problem):
    earlier = {**EARLIER, "pets": RuleQuestion(code="pets", kind="multiple", choices=("cat",)),
               "born": RuleQuestion(code="born", kind="date")}
    with pytest.raises(CalculationError) as refused:
        calculation_parse(raw, path="calc", earlier=earlier, later={"later"})
    assert any(p.startswith(problem) for p in refused.value.problems), refused.value.problems
