"""The example XLSForm of docs/examples: it loads, publishes, and is what its script makes."""
import importlib.util
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from surveys.models import Page, Question, Survey
from surveys.services import survey_create_from_file
from surveys.xlsform import xlsform_document

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
WORKBOOK = EXAMPLES / "school-climate-sample.xlsx"


def example_script():
    spec = importlib.util.spec_from_file_location("make_sample_xlsform", EXAMPLES / "make_sample_xlsform.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_workbook_loads_as_a_published_survey_in_two_languages_with_its_skip_logic():
    with WORKBOOK.open("rb") as source:
        survey = survey_create_from_file(source=source, filename=WORKBOOK.name, publish=True)
    assert (survey.slug, survey.status, survey.languages) == ("school_climate_sample", Survey.Status.OPEN, ["en", "es"])
    assert survey.translated("title", "es") == "Clima escolar (muestra)"
    pages = list(Page.objects.filter(survey=survey).order_by("position"))
    assert [page.title for page in pages] == ["About you", "Your school", "Your teaching", "Anything else"]
    assert pages[2].show_if == {"op": "equals", "q": "role", "value": "teacher"}
    assert [page.show_if for page in (pages[0], pages[1], pages[3])] == [None, None, None]
    grid = Question.objects.get(survey=survey, code="climate")
    assert grid.kind == Question.Kind.GRID
    assert [row.code for row in grid.rows.order_by("position")] == ["safe", "respected", "belong"]
    unsafe_why = Question.objects.get(survey=survey, code="unsafe_why")
    assert unsafe_why.show_if == {"op": "or", "rules": [{"op": "equals", "q": "safe", "value": "1"},
                                                        {"op": "equals", "q": "safe", "value": "2"}]}
    age = Question.objects.get(survey=survey, code="age")
    assert (age.min_value, age.max_value) == (8, 99)
    years = Question.objects.get(survey=survey, code="years_teaching")
    assert (years.min_value, years.constraint) == (0, {"op": "le", "q": ".", "value": {"q": "age"}})
    assert years.translated("constraint_message", "es").startswith("No puede haber enseñado")


def test_import_survey_checks_the_example_in_a_dry_run_and_writes_nothing():
    out = io.StringIO()
    call_command("import_survey", str(WORKBOOK), "--dry-run", stdout=out)
    said = out.getvalue()
    assert "'school_climate_sample', 4 pages, 9 questions, languages en, es" in said
    assert "Dry run: nothing was written." in said
    assert not Survey.objects.exists()


def test_the_example_workbook_is_what_its_script_makes(tmp_path):
    made = example_script().build(tmp_path / "made.xlsx")
    assert xlsform_document(made.read_bytes()) == xlsform_document(WORKBOOK.read_bytes())
