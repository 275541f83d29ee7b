"""Hostile survey documents (JSON files and XLSForm workbooks) through the real entry points: every one refused
with a problem naming the place, nothing written; never an exception of another kind, never a number its column
cannot hold on PostgreSQL."""
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveys import xlsform
from surveys.documents import (
    MAX_CHOICE_ROWS,
    MAX_CHOICES,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_VALUES,
    MAX_PAGES,
    MAX_PROBLEMS,
    MAX_QUESTIONS,
    DocumentError,
    column_range,
    parse_survey_document,
)
from surveys.models import Choice, Page, Question, Survey
from surveys.rules import MAX_DIGITS
from surveys.services import document_check, document_read, survey_create_from_file
from surveys.tests.factories import small_document
from surveys.tests.helpers import CHOICES, page, row, ruled_document, workbook

pytestmark = pytest.mark.django_db


def json_problems(raw, *, dry_run=False):
    """Load ``raw`` (bytes, or a document to dump) as a .json file; return its problems (nothing written)."""
    raw = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
    with pytest.raises(DocumentError) as refused:
        (document_check if dry_run else survey_create_from_file)(source=io.BytesIO(raw), filename="hostile.json")
    assert not Survey.objects.exists() and not Question.objects.exists()
    return refused.value.problems


def with_question(**fields):
    document = small_document()
    document["pages"][0]["questions"][2].update(fields)  # age, an integer question
    return document


# ---------------------------------------------------------------- reading the JSON

def test_a_json_file_nested_a_hundred_thousand_deep_is_refused_as_too_deep():
    for raw in (b"[" * 90_000 + b"]" * 90_000, b'{"pages": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"):
        assert json_problems(raw) == ["hostile.json: its objects and lists nest too deep to be read"]


def test_a_number_of_five_thousand_digits_is_refused_with_its_line_and_column():
    raw = json.dumps(with_question(min=5), indent=1).replace('"min": 5', '"min": ' + "9" * 5000).encode()
    line = raw[:raw.index(b"9" * 5000)].count(b"\n") + 1
    [problem] = json_problems(raw)
    assert problem.startswith(f"hostile.json, line {line} column ")
    assert problem.endswith("a number of 5,000 digits: a survey document's numbers have at most 30")


def test_a_megabyte_of_empty_pages_is_refused_before_it_is_parsed():
    raw = b'{"slug": "s", "title": "T", "pages": [' + b",".join([b"{}"] * 350_000) + b"]}"
    assert len(raw) > 1_000_000
    assert json_problems(raw) == [f"hostile.json: too many values for a survey document (700,003 objects, lists "
                                  f"and commas; at most {MAX_DOCUMENT_VALUES:,})"]


def test_a_file_larger_than_a_survey_document_may_be_is_refused_unread(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(json.dumps(small_document()).encode() + b" " * MAX_DOCUMENT_BYTES)
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename="big.json")
    assert refused.value.problems == ["big.json: larger than 4 MB: a survey document is at most that"]


def test_a_document_just_within_every_reading_bound_is_read():
    document = small_document()
    raw = json.dumps(document).encode()
    raw += b" " * (MAX_DOCUMENT_BYTES - len(raw))
    assert document_check(source=io.BytesIO(raw), filename="s.json")["slug"] == "small"


# ---------------------------------------------------------------- numbers and their columns

@pytest.mark.parametrize(("fields", "expected"), [
    ({"min": 2 ** 40}, "pages[1].questions[3].min: must be from -2,147,483,648 to 2,147,483,647"),
    ({"max": 10 ** 20}, "pages[1].questions[3].max: must be from -2,147,483,648 to 2,147,483,647"),
    ({"min": -2 ** 31 - 1}, "pages[1].questions[3].min: must be from -2,147,483,648 to 2,147,483,647"),
])
def test_a_min_or_max_its_column_cannot_hold_on_postgresql_is_refused_on_the_embedded_default(fields, expected):
    assert json_problems(with_question(**fields)) == [expected]


def test_a_max_length_its_column_cannot_hold_on_postgresql_is_refused():
    document = small_document()
    document["pages"][0]["questions"][3]["max_length"] = 10 ** 20
    assert json_problems(document) == ["pages[1].questions[4].max_length: must be at most 2,147,483,647"]


def test_the_bounds_are_the_columns_own_and_a_number_at_them_is_stored():
    assert column_range(Question, "min_value") == (-2 ** 31, 2 ** 31 - 1)
    document = with_question(min=-2 ** 31, max=2 ** 31 - 1)
    document["pages"][0]["questions"][3]["max_length"] = 2 ** 31 - 1
    survey = survey_create_from_file(source=io.BytesIO(json.dumps(document).encode()), filename="s.json")
    age, nickname = (Question.objects.get(survey=survey, code=code) for code in ("age", "nickname"))
    assert (age.min_value, age.max_value, nickname.max_length) == (-2 ** 31, 2 ** 31 - 1, 2 ** 31 - 1)


def test_the_caps_on_pages_questions_and_choices_fit_their_position_columns():
    for model in (Page, Question, Choice):
        assert max(MAX_PAGES, MAX_QUESTIONS, MAX_CHOICES) <= column_range(model, "position")[1]


@pytest.mark.parametrize(("constraint", "expected"), [
    ({"op": "gt", "q": ".", "value": 10 ** 15},
     "pages[1].questions[3].constraint.value: has more than 15 digits before its point"),
    ({"op": "in", "q": ".", "values": [1, -10 ** 20]},
     "pages[1].questions[3].constraint.values[2]: has more than 15 digits before its point"),
])
def test_a_rule_number_survey_js_cannot_compare_exactly_is_refused(constraint, expected):
    [problem] = json_problems(with_question(constraint=constraint))
    assert problem.startswith(expected)


def test_a_count_of_more_than_fifteen_digits_is_refused():
    document = small_document()
    document["pages"][0]["questions"][2]["show_if"] = {"op": "count", "q": "pets", "cmp": "ge", "value": 10 ** 29}
    [problem] = json_problems(document)
    assert problem.startswith(f"pages[1].questions[3].show_if.value: has more than {MAX_DIGITS} digits")


# ---------------------------------------------------------------- size and shape

def test_more_pages_than_a_survey_may_have_are_refused_without_reading_them():
    document = small_document()
    document["pages"] = [{}] * (MAX_PAGES + 1)
    assert json_problems(document) == [f"survey.pages: {MAX_PAGES + 1} pages: a survey has at most {MAX_PAGES}"]


def test_more_questions_than_a_survey_may_have_grid_rows_counted_are_refused():
    document = small_document()
    grid = {"code": "g", "kind": "grid", "prompt": "G", "choices": "agree",
            "rows": [{"code": f"r{n}", "prompt": "R"} for n in range(MAX_QUESTIONS)]}
    document["pages"][0]["questions"].append(grid)
    count = MAX_QUESTIONS + 1 + sum(len(p["questions"]) for p in small_document()["pages"]) + 2  # + the grid's rows
    assert json_problems(document) == [f"survey: {count:,} questions (grid rows counted): a survey has at most "
                                       f"{MAX_QUESTIONS:,}"]


def test_a_choice_list_longer_than_a_list_may_be_is_refused():
    document = small_document()
    document["choice_lists"]["agree"] = [{"value": str(n), "label": "A"} for n in range(MAX_CHOICES + 1)]
    assert f"choice_lists.agree: {MAX_CHOICES + 1} choices: a list has at most {MAX_CHOICES}" in json_problems(document)


def test_a_long_list_shared_by_many_questions_is_refused_for_the_choices_it_would_store():
    document = small_document()
    document["choice_lists"]["long"] = [{"value": str(n), "label": "A"} for n in range(MAX_CHOICES)]
    users = MAX_CHOICE_ROWS // MAX_CHOICES + 1
    document["pages"].append({"questions": [{"code": f"l{n}", "kind": "single", "prompt": "L", "choices": "long"}
                                            for n in range(users)]})
    stored = users * MAX_CHOICES + 2 + 3 + 2 + 2  # and the small survey's own
    assert json_problems(document) == [f"survey: {stored:,} choices to store (a list's counted for each question "
                                       f"that uses it): a survey has at most {MAX_CHOICE_ROWS:,}"]


def test_a_document_with_thousands_of_problems_lists_the_first_ones_and_says_it_stopped():
    document = small_document()
    document["pages"] = [{"questions": [{"kind": "nothing"}] * 10} for _ in range(100)]
    problems = json_problems(document)
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1] == f"document: more than {MAX_PROBLEMS} problems: the rest was not checked"


# ---------------------------------------------------------------- any JSON where a document has a value

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def places(document):
    """Yield (container, key) for every value in ``document``, however deep."""
    items = document.items() if isinstance(document, dict) else enumerate(document)
    for key, value in items:
        yield document, key
        if isinstance(value, (dict, list)):
            yield from places(value)


def fuzzed_document():
    """The small survey with rules of every place, a named and an inline list, and a text in two languages."""
    document = ruled_document()
    document["languages"] = ["en", "es"]
    document["title"] = {"en": "Small survey", "es": "Encuesta pequeña"}
    document["pages"][1]["questions"][1]["constraint"] = {"op": "and", "rules": [
        {"op": "ge", "q": ".", "value": "2000-01-01"}, {"op": "not", "rule": {"op": "in", "q": "colour",
                                                                                "values": ["red"]}}]}
    return document


FUZZED_PLACES = len(list(places(fuzzed_document())))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)
@given(at=st.integers(0, FUZZED_PLACES - 1), value=json_values)
def test_any_json_value_anywhere_in_a_document_is_accepted_or_refused_with_problems_never_a_crash(at, value):
    document = fuzzed_document()
    container, key = list(places(document))[at]
    container[key] = value
    try:
        parse_survey_document(document)
    except DocumentError as error:
        assert error.problems and all(isinstance(problem, str) for problem in error.problems)


@pytest.mark.parametrize("change", [
    lambda d: d["pages"][0]["questions"][0].update(kind=[]),
    lambda d: d["pages"][0]["questions"][0].update(kind={"a": 1}),
    lambda d: d.update(languages=[{}]),
    lambda d: d.update(languages=[["en"]]),
])
def test_a_kind_or_a_language_that_is_not_text_is_a_problem_not_a_crash(change):
    document = small_document()
    change(document)
    assert json_problems(document)


# ---------------------------------------------------------------- XLSForm workbooks

def workbook_problems(tmp_path, rows):
    path = workbook(tmp_path / "hostile.xlsx", page(row("integer", "age", "Age?", "¿Edad?"), *rows), CHOICES)
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename="hostile.xlsx")
    assert not Survey.objects.exists()
    return refused.value.problems


@pytest.mark.parametrize(("column", "expression", "expected"), [
    ("relevant", "(" * 400 + "${age} > 1" + ")" * 400, "brackets nest deeper than 20 levels in '(((("),
    ("relevant", "not(" * 400 + "${age} > 1" + ")" * 400, "brackets nest deeper than 20 levels in 'not(not("),
    ("relevant", "${age} > " + "1" * 30, "11111111111111111111… has more than 15 digits before its point"),
    ("relevant", "${age} = " + "1" * 5000, "11111111111111111111… has more than 15 digits before its point"),
    ("constraint", ". <= " + "9" * 30, "99999999999999999999… has more than 15 digits before its point"),
    ("constraint", ". >= -" + "9" * 30 + ".5", "99999999999999999999… has more than 15 digits before its point"),
])
def test_a_workbook_expression_too_deep_or_with_too_long_a_number_is_a_problem_at_its_cell(
        tmp_path, column, expression, expected):
    fields = {"relevant": expression} if column == "relevant" else {"constraint": expression}
    problems = workbook_problems(tmp_path, [row("integer", "n", "N?", "¿N?", **fields)])
    assert [p for p in problems if p.startswith(f"survey sheet, row 4, column {column}: ")] == problems
    assert expected in problems[0]


def test_a_workbook_bound_beyond_the_integer_column_is_a_problem_at_its_constraint(tmp_path):
    problems = workbook_problems(tmp_path, [row("integer", "n", "N?", "¿N?", constraint=". >= 2147483648")])
    assert problems == ["survey sheet, row 4, column constraint: must be from -2,147,483,648 to 2,147,483,647"]


def test_a_workbook_larger_than_a_survey_workbook_may_be_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(xlsform, "XLSFORM_MAX_BYTES", 1000)
    path = tmp_path / "big.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 5000)
    with pytest.raises(DocumentError) as refused:
        document_read(source=str(path), filename="big.xlsx")
    assert refused.value.problems == ["big.xlsx: a survey workbook is at most 0.001 MB; this one is larger"]
