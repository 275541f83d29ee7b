"""XPath as XLSForms write relevant and constraint: the usual forms read into rules, anything else refused."""
import pytest

from surveys.rules import MAX_DEPTH, MAX_DIGITS
from surveys.xpath import XPathError, xpath_rule


@pytest.mark.parametrize(("expression", "own", "rule"), [
    ("${role} = 'teacher'", False, {"op": "equals", "q": "role", "value": "teacher"}),
    ("${age} >= 18", False, {"op": "ge", "q": "age", "value": 18}),
    ("18 < ${age}", False, {"op": "gt", "q": "age", "value": 18}),
    ("${a} != ${b}", False, {"op": "not_equals", "q": "a", "value": {"q": "b"}}),
    ("${c} != ''", False, {"op": "answered", "q": "c"}),
    ("${c} = ''", False, {"op": "not", "rule": {"op": "answered", "q": "c"}}),
    ("selected(${pets}, 'cat')", False, {"op": "selected", "q": "pets", "value": "cat"}),
    ("count-selected(${pets}) <= 2", False, {"op": "count", "q": "pets", "cmp": "le", "value": 2}),
    ("not(${x} = 'a') and (${y} = 'b' or ${z} > 3)", False, {"op": "and", "rules": [
        {"op": "not", "rule": {"op": "equals", "q": "x", "value": "a"}},
        {"op": "or", "rules": [{"op": "equals", "q": "y", "value": "b"}, {"op": "gt", "q": "z", "value": 3}]}]}),
    (". <= ${age}", True, {"op": "le", "q": ".", "value": {"q": "age"}}),
    (". > 2.5", True, {"op": "gt", "q": ".", "value": 2.5}),
])
def test_xpath_in_the_usual_forms_compiles_into_the_rule_language(expression, own, rule):
    assert xpath_rule(expression, own=own) == rule


@pytest.mark.parametrize("expression", [
    ". > 3", "${a} = ", "${a} = 'x' and", "selected(${a})", "${a} + 1 > 2", "today() > ${d}", "${a} = 'x')",
    "count-selected(${a}) > 'two'", "'a' = 'b'",
])
def test_anything_else_is_refused_and_never_evaluated(expression):
    with pytest.raises(XPathError):
        xpath_rule(expression)


def test_brackets_nested_deeper_than_a_rule_may_be_are_refused_before_python_would_recurse_too_deep():
    assert xpath_rule("(" * MAX_DEPTH + "${age} > 1" + ")" * MAX_DEPTH) == {"op": "gt", "q": "age", "value": 1}
    for opening in ("(", "not("):
        with pytest.raises(XPathError, match=f"brackets nest deeper than {MAX_DEPTH} levels"):
            xpath_rule(opening * 5000 + "${age} > 1" + ")" * 5000)


def test_a_number_longer_than_survey_js_compares_exactly_is_refused_and_shown_cut_short():
    assert xpath_rule(". <= " + "9" * MAX_DIGITS, own=True) == {"op": "le", "q": ".", "value": int("9" * MAX_DIGITS)}
    with pytest.raises(XPathError) as refused:
        xpath_rule(". <= " + "9" * 5000, own=True)
    assert str(refused.value) == f"{'9' * 20}… has more than {MAX_DIGITS} digits before its point"
