import pytest

from exports.codebook import VARIABLE_COLUMNS
from exports.options import ExportOptions
from exports.tests.helpers import xlsx_rows
from exports.writers import export_write
from respondents.tests.factories import make_respondents, make_school
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def survey():
    survey = make_survey()
    make_respondents(survey, 2, school=make_school())
    return survey


def codebook(survey, tmp_path, format, **options):
    result = export_write(survey=survey, format=format, options=ExportOptions(**options), directory=tmp_path)
    _, variables = xlsx_rows(result.codebook, "Variables")
    _, about = xlsx_rows(result.codebook, "About")
    return ([dict(zip(variables[0], row, strict=True)) for row in variables[1:]],
            {row[0]: row[1] for row in about})


def test_the_codebook_has_one_row_per_variable_of_the_data_file(survey, tmp_path):
    rows, _ = codebook(survey, tmp_path, "spss", roster_fields=("school_code",), multiple="columns")
    header = (tmp_path / "small.dat").read_text().splitlines()[0].split("\t")
    assert [row["variable"] for row in rows] == header
    assert list(rows[0]) == VARIABLE_COLUMNS
    by_name = {row["variable"]: row for row in rows}
    assert by_name["colour"] | {"definition version": ""} == {
        "variable": "colour", "question code": "colour", "page": 1, "kind": "single", "prompt": "Favourite colour?",
        "choices": "red = Red\nblue = Blue", "required": "yes", "asked when": "always", "type": "string",
        "measurement level": "nominal", "definition version": "",
        "missing values": "-99 = Page not saved (not reached); -98 = Seen and left blank; "
                          "-97 = Not asked: its skip logic (show_if) did not hold"}
    assert by_name["colour"]["definition version"].startswith("1 (definition ")
    assert (by_name["safe"]["page"], by_name["safe"]["measurement level"], by_name["safe"]["choices"]) == (
        2, "ordinal", "1 = Disagree\n2 = Agree")
    assert (by_name["pets_dog"]["question code"], by_name["pets_dog"]["kind"], by_name["pets_dog"]["type"]) == (
        "pets", "choice", "numeric")
    assert by_name["story"]["missing values"].startswith("empty: page not saved or left blank")
    assert (by_name["roster_school_code"]["question code"], by_name["roster_school_code"]["kind"]) == ("", "roster")


def test_the_csv_codebook_names_its_headings_and_says_missing_is_an_empty_cell(survey, tmp_path):
    rows, about = codebook(survey, tmp_path, "csv", roster_fields=())
    assert {row["missing values"] for row in rows} == {"empty: page not saved or left blank; NA: not asked (skip logic)"}
    assert about["Missing values"].startswith("An empty cell")


def test_the_about_sheet_describes_the_export(survey, tmp_path):
    _, about = codebook(survey, tmp_path, "stata", labels=True, deidentified=True)
    assert about["Survey"] == "Small survey (small)" and about["Format"] == "stata"
    assert about["Options"] == ("labels=yes, multiple=joined, roster fields=school_code,school_name,grade,role,"
                                "language,status,started_at,last_saved_at,completed_at, de-identified=yes")
    # Two respondents in one school, fewer than the default minimum of 10.
    assert (about["Respondents"], about["Suppressed schools"], about["Suppressed respondents"]) == (0, 1, 2)
    assert about["Files"] == "small.dat, small.do, small-codebook.xlsx"
    assert about["Generated at"][:2] == "20" and about["Definition version"].startswith("1 (definition ")
    assert "Stata: strings have no extended missing values" in about["Missing values"]
    assert about["Row order"] == "shuffled (de-identified)"
    assert "\\t = tab, \\n = line feed" in about["Texts in the data file"] and about["Texts in the data file"].endswith(
        "must undo them the same way.")


def test_the_definition_version_changes_with_the_definition(survey, tmp_path, django_capture_on_commit_callbacks):
    from surveys.models import Question

    rows, _ = codebook(survey, tmp_path, "csv")
    question = Question.objects.get(survey=survey, code="colour")
    question.prompt = "Favourite colour, really?"
    with django_capture_on_commit_callbacks(execute=True):
        question.save()
    changed, _ = codebook(survey, tmp_path, "csv")
    assert [row["prompt"] for row in changed if row["question code"] == "colour"] == ["Favourite colour, really?"]
    assert rows[-1]["definition version"] != changed[-1]["definition version"]
