"""A question's code names its variable in every export: codes SPSS or Stata cannot take are refused at load."""
import json

import pytest

from bench.survey_document import bench_document
from surveys.documents import DocumentError
from surveys.models import Survey
from surveys.services import survey_create
from surveys.tests.factories import DEMO_DOCUMENT, small_document
from surveys.tests.helpers import ROLE, page, problems_of, row
from surveys.variable_names import variable_name_problems


@pytest.mark.parametrize("code", ["role", "grade", "Q1", "a" * 32, "inside", "strong", "bye", "roster", "x_"])
def test_a_code_spss_and_stata_take_as_a_name_has_no_problem(code):
    assert variable_name_problems(code) == []


@pytest.mark.parametrize("code, problem", [
    ("in", "'in' is a reserved word of Stata: it cannot name a variable"),
    ("IF", "'IF' is a reserved word of Stata: it cannot name a variable"),
    ("by", "'by' is a reserved word of SPSS: it cannot name a variable"),
    ("with", "'with' is a reserved word of SPSS and Stata: it cannot name a variable"),
    ("using", "'using' is a reserved word of Stata: it cannot name a variable"),
    ("str80", "'str80' is one of Stata's string types (str1 to str2045): it cannot name a variable"),
    ("a" * 33, "is 33 characters: Stata takes at most 32 in a variable name"),
    ("roster_grade", "starts with 'roster_', which exports keep for the roster fields' columns"),
    ("Roster_x", "starts with 'roster_', which exports keep for the roster fields' columns"),
])
def test_a_code_spss_or_stata_cannot_take_is_refused_with_the_reason(code, problem):
    assert variable_name_problems(code) == [problem]


def test_codes_that_differ_only_in_case_are_refused_naming_where_the_first_is():
    taken = {"grade": "pages[1].questions[2]"}
    assert variable_name_problems("Grade", taken=taken) == [
        "'Grade' and 'grade' (at pages[1].questions[2]) differ only in case: SPSS takes them as one name"]
    # The same code twice is the document's own problem ("already used"), not this one.
    assert variable_name_problems("grade", taken=taken) == []


@pytest.mark.django_db
def test_a_document_with_codes_spss_or_stata_cannot_take_is_refused_with_every_path_and_nothing_is_written():
    document = small_document()
    first, third = document["pages"][0]["questions"], document["pages"][2]["questions"]
    first[2]["code"], first[3]["code"], third[0]["code"] = "in", "Colour", "x" * 40
    document["pages"][1]["questions"][0]["rows"][1]["code"] = "roster_status"
    with pytest.raises(DocumentError) as refused:
        survey_create(document=document)
    assert refused.value.problems == [
        "pages[1].questions[3].code: 'in' is a reserved word of Stata: it cannot name a variable",
        "pages[1].questions[4].code: 'Colour' and 'colour' (at pages[1].questions[1]) differ only in case: SPSS "
        "takes them as one name",
        "pages[2].questions[1].rows[2].code: starts with 'roster_', which exports keep for the roster fields' "
        "columns",
        "pages[3].questions[1].code: is 40 characters: Stata takes at most 32 in a variable name",
    ]
    assert not Survey.objects.exists()


@pytest.mark.django_db
def test_an_xlsform_name_spss_or_stata_cannot_take_is_reported_at_its_sheet_row_and_column(tmp_path):
    problems = problems_of(tmp_path, page(ROLE, row("text", "using", "Using?", "¿Usando?"),
                                          row("integer", "Role", "Role again?", "¿Rol otra vez?")))
    assert problems == [
        "survey sheet, row 4, column name: 'using' is a reserved word of Stata: it cannot name a variable",
        "survey sheet, row 5, column name: 'Role' and 'role' (at pages[1].questions[1]) differ only in case: SPSS "
        "takes them as one name",
    ]


@pytest.mark.django_db
def test_the_demo_and_bench_surveys_load():
    assert survey_create(document=json.loads(DEMO_DOCUMENT.read_text())).slug == "school-climate-demo"
    assert survey_create(document=bench_document(slug="bench", pages=60, conditions=True)).slug == "bench"
