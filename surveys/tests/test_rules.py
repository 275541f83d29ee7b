"""The rule language: checked with every problem's path, evaluated as ODK would, described in plain words."""
import copy
import json
import random
from pathlib import Path

import pytest
from django.core.validators import MinValueValidator
from django.utils import translation

from surveys.rules import (
    MAX_DEPTH,
    MAX_NODES,
    RuleError,
    RuleQuestion,
    default_message,
    rule_codes,
    rule_describe,
    rule_evaluate,
    rule_parse,
    rule_to_json,
)

CASES = json.loads((Path(__file__).resolve().parent / "rule_cases.json").read_text())
QUESTIONS = {
    code: RuleQuestion(code=code, kind=spec["kind"], choices=tuple(spec.get("choices", ())))
    for code, spec in CASES["questions"].items()
}
EARLIER = {**QUESTIONS, "school": RuleQuestion(code="school", kind="grid", choices=("1", "2"))}
LATER = {"later_q"}


def parse(raw, *, own=None, path="rule"):
    earlier = {code: q for code, q in EARLIER.items() if own is None or code != own}
    return rule_parse(raw, path=path, earlier=earlier, later=LATER, own=QUESTIONS[own] if own else None)


def problems_of(raw, *, own=None):
    with pytest.raises(RuleError) as raised:
        parse(raw, own=own)
    return raised.value.problems


# The golden cases, shared with any other evaluator

@pytest.mark.parametrize("case", CASES["cases"], ids=[case["name"] for case in CASES["cases"]])
def test_every_golden_case_evaluates_as_expected_and_is_written_canonically(case):
    rule = parse(case["rule"], own=case.get("of"))
    assert rule_evaluate(rule, case["answers"], own=case.get("own")) is case["expected"]
    assert rule_to_json(rule) == case["rule"]


def test_the_golden_cases_cover_every_op_and_are_at_least_sixty():
    ops = set()

    def collect(raw):
        ops.add(raw["op"])
        for inner in raw.get("rules", []) + ([raw["rule"]] if "rule" in raw else []):
            collect(inner)

    for case in CASES["cases"]:
        collect(case["rule"])
    assert len(CASES["cases"]) >= 60
    assert ops == {"equals", "not_equals", "gt", "ge", "lt", "le", "in", "selected", "count", "answered",
                   "and", "or", "not"}


# Parsing: every problem with its path

@pytest.mark.parametrize(("raw", "expected"), [
    ("role", "rule: must be an object with an op"),
    ({"q": "role"}, "rule.op: must be one of equals, not_equals, gt, ge, lt, le, in, selected, count, answered, "
                    "and, or, not"),
    ({"op": "eq", "q": "role", "value": "teacher"}, "rule.op: 'eq' is not one of equals, not_equals, gt, ge, lt, "
                                                    "le, in, selected, count, answered, and, or, not"),
    ({"op": "equals", "q": "role"}, "rule.value: is required"),
    ({"op": "equals", "q": "role", "value": "teacher", "values": ["x"]},
     "rule.values: is not a key of a 'equals' rule (it takes op, q, value)"),
    ({"op": "equals", "q": 7, "value": "teacher"}, "rule.q: must be a question code (text)"),
    ({"op": "equals", "q": "rol", "value": "teacher"}, "rule.q: there is no question 'rol'"),
    ({"op": "answered", "q": "later_q"}, "rule.q: 'later_q' does not come before this rule: a rule reads only "
                                         "earlier answers"),
    ({"op": "answered", "q": "school"}, "rule.q: 'school' is a grid, which takes no answer: name one of its rows"),
    ({"op": "answered", "q": "."}, "rule.q: '.' (the question's own value) is only allowed in a constraint"),
    ({"op": "le", "q": "years", "value": {"q": "."}},
     "rule.value.q: '.' (the question's own value) is only allowed in a constraint"),
    ({"op": "selected", "q": "age", "value": 3}, "rule.op: 'selected' reads a choice question; 'age' is an integer "
                                                 "question"),
    ({"op": "count", "q": "nickname", "cmp": "ge", "value": 1},
     "rule.op: 'count' reads a choice question; 'nickname' is a short text question"),
    ({"op": "gt", "q": "role", "value": "teacher"},
     "rule.op: 'gt' compares number, date or time answers; 'role' is a single-choice question"),
    ({"op": "lt", "q": "nickname", "value": "M"},
     "rule.op: 'lt' compares number, date or time answers; 'nickname' is a short text question"),
    ({"op": "equals", "q": "pets", "value": "cat"},
     "rule.op: 'equals' does not read a multiple-choice question ('pets'): use selected or count"),
    ({"op": "in", "q": "pets", "values": ["cat"]},
     "rule.op: 'in' does not read a multiple-choice question ('pets'): use selected or count"),
    ({"op": "equals", "q": "role", "value": "pupil"}, "rule.value: 'pupil' is not a choice of 'role'"),
    ({"op": "selected", "q": "pets", "value": "cow"}, "rule.value: 'cow' is not a choice of 'pets'"),
    ({"op": "equals", "q": "role", "value": ["teacher"]}, "rule.value: must be one of the choice values of 'role'"),
    ({"op": "equals", "q": "age", "value": "12"}, "rule.value: must be a whole number, as 'age' is an integer question"),
    ({"op": "gt", "q": "age", "value": 12.5}, "rule.value: must be a whole number, as 'age' is an integer question"),
    ({"op": "gt", "q": "age", "value": True}, "rule.value: must be a whole number, as 'age' is an integer question"),
    ({"op": "lt", "q": "first_day", "value": "2024-02-30"},
     "rule.value: must be a date written YYYY-MM-DD, as 'first_day' is a date question"),
    ({"op": "lt", "q": "first_day", "value": "20240201"},
     "rule.value: must be a date written YYYY-MM-DD, as 'first_day' is a date question"),
    ({"op": "equals", "q": "nickname", "value": ""},
     "rule.value: must not be empty: ask whether there is an answer with 'answered'"),
    ({"op": "equals", "q": "nickname", "value": 3}, "rule.value: must be text, as 'nickname' is a short text question"),
    ({"op": "equals", "q": "nickname", "value": "x" * 5001}, "rule.value: is longer than 5000 characters"),
    ({"op": "le", "q": "years", "value": {"q": "first_day"}},
     "rule.value.q: cannot compare 'years' is an integer question with 'first_day' is a date question"),
    ({"op": "le", "q": "years", "value": {"q": "age", "x": 1}}, "rule.value: an answer to compare with is written "
                                                                "{\"q\": code}"),
    ({"op": "in", "q": "grade", "values": []}, "rule.values: must be a list of 1 to 200 values"),
    ({"op": "in", "q": "grade", "values": ["6", 6]}, "rule.values[2]: '6' appears twice"),
    ({"op": "in", "q": "grade", "values": ["6", "9"]}, "rule.values[2]: '9' is not a choice of 'grade'"),
    ({"op": "count", "q": "pets", "cmp": "more", "value": 1},
     "rule.cmp: must be one of equals, not_equals, gt, ge, lt, le"),
    ({"op": "count", "q": "pets", "cmp": "ge", "value": -1}, "rule.value: must be a whole number, 0 or more"),
    ({"op": "and", "rules": []}, "rule.rules: must be a non-empty list of rules"),
    ({"op": "not", "rule": "x"}, "rule.rule: must be an object with an op"),
])
def test_a_rule_with_one_problem_is_refused_with_its_path_and_reason(raw, expected):
    assert problems_of(raw) == [expected]


def test_every_problem_of_a_rule_is_reported_at_once_each_with_its_path():
    raw = {"op": "and", "rules": [
        {"op": "equals", "q": "role", "value": "pupil"},
        {"op": "or", "rules": [{"op": "answered", "q": "nobody"}, {"op": "gt", "q": "age", "value": "ten"}]},
        {"op": "not", "rule": {"op": "selected", "q": "pets"}},
    ]}
    assert problems_of(raw) == [
        "rule.rules[1].value: 'pupil' is not a choice of 'role'",
        "rule.rules[2].rules[1].q: there is no question 'nobody'",
        "rule.rules[2].rules[2].value: must be a whole number, as 'age' is an integer question",
        "rule.rules[3].rule.value: is required",
    ]


def test_a_constraint_names_its_own_question_with_a_dot_not_its_code():
    assert problems_of({"op": "le", "q": "years", "value": {"q": "age"}}, own="years") == [
        "rule.q: 'years' is the question this constraint belongs to: write '.' for its value"]
    rule = parse({"op": "le", "q": ".", "value": {"q": "age"}}, own="years")
    assert rule_evaluate(rule, {"age": "12"}, own="12") and not rule_evaluate(rule, {"age": "12"}, own="13")


def test_a_constraint_checks_literals_against_its_own_questions_kind():
    assert problems_of({"op": "selected", "q": ".", "value": "cow"}, own="pets") == [
        "rule.value: 'cow' is not a choice of 'pets'"]
    assert problems_of({"op": "gt", "q": ".", "value": "3"}, own="years") == [
        "rule.value: must be a whole number, as 'years' is an integer question"]


def test_a_choice_value_written_as_a_number_is_read_as_its_text():
    rule = parse({"op": "in", "q": "grade", "values": [6, 7]})
    assert rule_to_json(rule) == {"op": "in", "q": "grade", "values": ["6", "7"]}
    assert rule_evaluate(rule, {"grade": "7"})


def nested(depth):
    raw = {"op": "answered", "q": "role"}
    for _ in range(depth - 1):
        raw = {"op": "not", "rule": raw}
    return raw


def test_a_rule_may_nest_as_deep_as_the_limit_and_no_deeper():
    assert rule_evaluate(parse(nested(MAX_DEPTH)), {"role": "teacher"}) is (MAX_DEPTH % 2 == 1)
    assert problems_of(nested(MAX_DEPTH + 1)) == [
        "rule" + ".rule" * MAX_DEPTH + f": rules nest deeper than {MAX_DEPTH} levels"]


def test_a_rule_nested_far_beyond_the_limit_is_refused_without_reading_it_all():
    # Deeper than Python's own recursion limit: refused at the limit, not by a RecursionError.
    problems = problems_of(nested(5000))
    assert len(problems) == 1 and problems[0].endswith(f"rules nest deeper than {MAX_DEPTH} levels")


def test_a_rule_may_hold_as_many_ops_as_the_limit_and_no_more():
    leaf = {"op": "answered", "q": "role"}
    assert rule_evaluate(parse({"op": "or", "rules": [leaf] * (MAX_NODES - 1)}), {"role": "x"})
    assert problems_of({"op": "or", "rules": [leaf] * MAX_NODES}) == [f"rule: a rule holds more than {MAX_NODES} ops"]
    assert problems_of({"op": "or", "rules": [leaf] * 100_000}) == [f"rule: a rule holds more than {MAX_NODES} ops"]


def test_an_in_rule_lists_at_most_two_hundred_values():
    assert problems_of({"op": "in", "q": "age", "values": list(range(201))}) == [
        "rule.values: must be a list of 1 to 200 values"]


def test_a_compiled_rule_is_immutable_and_equal_to_the_same_rule_compiled_again():
    raw = {"op": "and", "rules": [{"op": "in", "q": "age", "values": [1, 2]}, {"op": "answered", "q": "role"}]}
    rule = parse(raw)
    assert rule == parse(copy.deepcopy(raw)) and hash(rule) == hash(parse(raw))
    with pytest.raises(AttributeError):
        rule.rules = ()


# What a rule reads

def test_rule_codes_lists_every_question_read_but_not_the_own_value():
    rule = parse({"op": "and", "rules": [
        {"op": "le", "q": ".", "value": {"q": "age"}},
        {"op": "not", "rule": {"op": "selected", "q": "pets", "value": "cat"}},
        {"op": "or", "rules": [{"op": "count", "q": "role", "cmp": "ge", "value": 1},
                               {"op": "lt", "q": "first_day", "value": {"q": "last_day"}}]},
    ]}, own="years")
    assert rule_codes(rule) == frozenset({"age", "pets", "role", "first_day", "last_day"})


# Evaluation beyond the golden cases

def test_an_answer_that_is_not_text_counts_as_blank():
    rule = parse({"op": "not_equals", "q": "age", "value": 3})
    assert rule_evaluate(rule, {"age": None}) and rule_evaluate(rule, {"age": 3})
    assert not rule_evaluate(parse({"op": "answered", "q": "age"}), {"age": 12})


def test_a_constraint_evaluated_without_its_own_value_reads_it_as_blank():
    rule = parse({"op": "gt", "q": ".", "value": 0}, own="years")
    assert rule_evaluate(rule, {}) is False


def random_rule(rng, depth=0):
    """Return a valid constraint of ``years`` (so it may read ".") of up to five levels."""
    if depth < 4 and rng.random() < 0.4:
        op = rng.choice(["and", "or", "not"])
        if op == "not":
            return {"op": "not", "rule": random_rule(rng, depth + 1)}
        return {"op": op, "rules": [random_rule(rng, depth + 1) for _ in range(rng.randint(1, 3))]}
    return rng.choice([
        {"op": rng.choice(["equals", "not_equals"]), "q": "role", "value": rng.choice(["teacher", "parent"])},
        {"op": rng.choice(["gt", "ge", "lt", "le", "equals"]), "q": "age", "value": rng.randint(-3, 20)},
        {"op": rng.choice(["gt", "le", "not_equals"]), "q": ".", "value": {"q": "age"}},
        {"op": rng.choice(["lt", "ge"]), "q": "first_day", "value": {"q": "last_day"}},
        {"op": "lt", "q": "first_day", "value": "2024-09-01"},
        {"op": "in", "q": "grade", "values": ["6", "8"]},
        {"op": "in", "q": ".", "values": [0, 7]},
        {"op": "selected", "q": "pets", "value": rng.choice(["cat", "dog", "fish"])},
        {"op": "selected", "q": "role", "value": "student"},
        {"op": "count", "q": "pets", "cmp": rng.choice(["ge", "lt"]), "value": rng.randint(0, 3)},
        {"op": "answered", "q": rng.choice(["nickname", "story", "."])},
        {"op": "equals", "q": "nickname", "value": {"q": "story"}},
    ])


def random_text(rng):
    return rng.choice([
        "", " ", "12", "-3", "007", "1.5", "1e3", "NaN", "Infinity", "١٢", "2024-09-01", "2024-02-30", "20240901",
        "cat dog", "cat  fish ", "teacher", "x" * 1000, "\x00", "0", "-0", "9" * 400,
    ])


def test_evaluating_a_valid_rule_never_raises_whatever_the_answers():
    rng = random.Random(20261122)
    codes = [*QUESTIONS, "elsewhere"]
    for _ in range(2000):
        raw = random_rule(rng)
        rule = parse(raw, own="years")
        answers = {code: random_text(rng) for code in rng.sample(codes, rng.randint(0, len(codes)))}
        result = rule_evaluate(rule, answers, own=rng.choice([None, random_text(rng)]))
        assert isinstance(result, bool), raw


# Plain words

PROMPTS = {"role": "What is your role?", "age": "Age", "years": "Years at this school", "pets": "Which pets?",
           "grade": "Grade", "first_day": "First day", "nickname": "Nickname"}
LABELS = {("role", "teacher"): "Teacher", ("role", "parent"): "Parent", ("pets", "cat"): "Cat",
          ("grade", "6"): "Grade 6", ("grade", "7"): "Grade 7"}


@pytest.mark.parametrize(("raw", "own", "expected"), [
    ({"op": "equals", "q": "role", "value": "teacher"}, None, "you chose “Teacher” for “What is your role?”"),
    ({"op": "not_equals", "q": "role", "value": "teacher"}, None,
     "you did not choose “Teacher” for “What is your role?”"),
    ({"op": "ge", "q": "age", "value": 12}, None, "your answer to “Age” is at least 12"),
    ({"op": "lt", "q": "first_day", "value": "2024-09-01"}, None, "your answer to “First day” is before 2024-09-01"),
    ({"op": "in", "q": "grade", "values": ["6", "7"]}, None, "you chose “Grade 6” or “Grade 7” for “Grade”"),
    ({"op": "in", "q": "age", "values": [10, 11, 12]}, None, "your answer to “Age” is 10, 11 or 12"),
    ({"op": "selected", "q": "pets", "value": "cat"}, None, "you chose “Cat” for “Which pets?”"),
    ({"op": "count", "q": "pets", "cmp": "ge", "value": 2}, None, "you chose at least 2 answers for “Which pets?”"),
    ({"op": "count", "q": "pets", "cmp": "equals", "value": 1}, None, "you chose exactly 1 answer for “Which pets?”"),
    ({"op": "not", "rule": {"op": "answered", "q": "nickname"}}, None, "you did not answer “Nickname”"),
    ({"op": "not", "rule": {"op": "equals", "q": "nickname", "value": "Sam"}}, None,
     "your answer to “Nickname” is not “Sam”"),
    ({"op": "not", "rule": {"op": "gt", "q": "age", "value": 12}}, None,
     "it is not true that your answer to “Age” is more than 12"),
    ({"op": "and", "rules": [
        {"op": "equals", "q": "role", "value": "teacher"},
        {"op": "or", "rules": [{"op": "lt", "q": "age", "value": 30}, {"op": "answered", "q": "story"}]},
        {"op": "not", "rule": {"op": "selected", "q": "pets", "value": "cat"}},
    ]}, None, "you chose “Teacher” for “What is your role?”, (your answer to “Age” is less than 30 or you answered "
              "“story”) and you did not choose “Cat” for “Which pets?”"),
    ({"op": "le", "q": ".", "value": {"q": "age"}}, "years", "your answer is at most your answer to “Age”"),
    ({"op": "count", "q": ".", "cmp": "le", "value": 2}, "pets", "you chose at most 2 answers for this question"),
])
def test_a_rule_reads_in_plain_words(raw, own, expected):
    assert rule_describe(parse(raw, own=own), prompts=PROMPTS, choice_labels=LABELS) == expected


# Default messages

@pytest.mark.parametrize(("kind", "which", "params", "expected"), [
    ("single", "required", {}, "Please choose an answer."),
    ("multiple", "required", {}, "Please choose at least one answer."),
    ("short_text", "required", {}, "Please answer this question."),
    ("integer", "constraint", {}, "Please check this number: it does not fit with your other answers."),
    ("long_text", "constraint", {}, "Please check this answer: it does not fit with your other answers."),
    ("integer", "invalid", {}, "Enter a whole number."),
    ("integer", "max_value", {"limit_value": 99}, "Ensure this value is less than or equal to 99."),
])
def test_every_kind_has_a_default_message_for_required_and_constraint(kind, which, params, expected):
    assert default_message(kind, which, **params) == expected


def test_a_default_message_for_a_problem_the_kind_cannot_have_is_an_error():
    with pytest.raises(ValueError, match="a short_text question has no default 'min_value' message"):
        default_message("short_text", "min_value")


def test_the_page_forms_texts_keep_djangos_translations():
    with translation.override("es"):
        assert default_message("integer", "min_value", limit_value=5) == str(MinValueValidator.message) % {
            "limit_value": 5}
        assert "Ensure" not in default_message("integer", "min_value")
