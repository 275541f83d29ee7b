"""A corpus of XLSForms as they are written for ODK Collect, Enketo and KoboToolbox (surveys/tests/xlsform_corpus.py):
pyxform converts each, the importer loads each it should and refuses, in one line a problem, each that uses a
feature docs/xlsform.md lists as refused, writing nothing."""
import io
import os
import xml.etree.ElementTree as ET

import pytest
from django.core.management import CommandError, call_command
from pyxform.xls2xform import convert

from surveys.documents import DocumentError
from surveys.models import Page, Question, Survey
from surveys.services import survey_create_from_file
from surveys.tests.xlsform_corpus import CORPUS, write_form

pytestmark = pytest.mark.django_db

LOADING = sorted(name for name, form in CORPUS.items() if form["expect"] == "loads")
REFUSED = sorted(name for name, form in CORPUS.items() if form["expect"].startswith("refused: "))

# The languages each loading form's survey is in, the first its default (docs/xlsform.md, "Languages").
LANGUAGES = {
    "household_collect.xlsx": ["en"],
    "district_cascade.xlsx": ["en"],
    "school_climate_enketo.xlsx": ["en", "es"],
    "clinic_visit_fr.xlsx": ["fr"],
    "parent_survey_zh.xlsx": ["en", "zh"],
    "teacher_feedback_sw.xlsx": ["en", "sw"],
    "reading_assessment_ar.xlsx": ["ar", "en"],
    "youth_wellbeing_kobo.xlsx": ["en", "es"],
    "clinic_stock_count.xlsx": ["en"],
    "training_attendance.xlsx": ["en"],
    "school_meals_legacy.xlsx": ["en"],
    "chw_home_visit.xlsx": ["en", "pt"],
    "school_inspection_grid.xlsx": ["en"],
    "classroom_observation.xlsx": ["en"],
}



def slug_of(name):
    """The slug docs/xlsform.md gives a form: its form_id, else its file's name without .xlsx."""
    settings = CORPUS[name]["settings"]
    if settings:
        values = dict(zip(settings[0], settings[1], strict=True))
        if values.get("form_id"):
            return values["form_id"]
    return os.path.splitext(name)[0]


def test_the_corpus_covers_what_the_brief_asks():
    assert len(LOADING) >= 12 and len(REFUSED) >= 4
    assert set(LANGUAGES) == set(LOADING)
    for name, form in CORPUS.items():
        assert form["expect"] == "loads" or form["expect"].startswith("refused: "), name
        assert form["survey"][0][0] == "type", name
    assert any(CORPUS[n]["settings"] is None for n in LOADING)
    assert any(CORPUS[n]["choices"] is None for n in LOADING)
    # Calculations, cascading selects and defaults are among what loads.
    headers = {name: set(CORPUS[name]["survey"][0]) for name in LOADING}
    for column in ("calculation", "choice_filter", "default"):
        assert any(column in header for header in headers.values()), column


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_pyxform_converts_every_form_of_the_corpus(tmp_path, name):
    # pyxform's verdict: it converts every form here, the refused ones too (a repeat, a geopoint, an entities
    # sheet, a choice_filter, a pull_data() calculation are all XLSForm): what the importer refuses is what this
    # system cannot run, not what XLSForm forbids. pyxform refuses none; it only warns of the choices without
    # labels of training_attendance.xlsx and classroom_observation.xlsx. (It would fail, with an AttributeError,
    # on a translated form_title::<language>, which is why no form here has one.)
    path = write_form(tmp_path, name)
    warnings = []
    result = convert(xlsform=str(path), warnings=warnings)
    assert result.xform.strip()
    root = ET.fromstring(result.xform)
    assert root.tag == "{http://www.w3.org/1999/xhtml}html"


@pytest.mark.parametrize("name", LOADING)
def test_every_form_that_should_load_becomes_a_survey_with_pages(tmp_path, name):
    path = write_form(tmp_path, name)
    survey = survey_create_from_file(source=str(path), filename=path.name)
    assert survey.slug == slug_of(name)
    assert survey.languages == LANGUAGES[name]
    assert Page.objects.filter(survey=survey).exists()
    assert Question.objects.filter(survey=survey).exists()


@pytest.mark.parametrize("name", REFUSED)
def test_every_form_using_a_refused_feature_is_refused_in_one_line_a_problem_and_nothing_is_written(tmp_path, name):
    feature = CORPUS[name]["expect"].removeprefix("refused: ")
    path = write_form(tmp_path, name)
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename=path.name)
    problems = refused.value.problems
    assert problems
    for problem in problems:
        assert "\n" not in problem, problem
        assert feature in problem and "not supported" in problem, problems
    assert not Survey.objects.exists() and not Question.objects.exists()


@pytest.mark.parametrize("name", LOADING)
def test_the_command_checks_every_loading_form_in_a_dry_run(tmp_path, name):
    path = write_form(tmp_path, name)
    out = io.StringIO()
    call_command("import_survey", str(path), "--dry-run", stdout=out)
    said = out.getvalue()
    assert f"'{slug_of(name)}'" in said and "Dry run: nothing was written." in said
    assert not Survey.objects.exists()


@pytest.mark.parametrize("name", REFUSED)
def test_the_command_refuses_every_refused_form(tmp_path, name):
    path = write_form(tmp_path, name)
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_survey", str(path), "--dry-run", stdout=io.StringIO(), stderr=err)
    assert "not supported" in err.getvalue()


def loaded(tmp_path, name):
    path = write_form(tmp_path, name)
    survey = survey_create_from_file(source=str(path), filename=path.name)
    pages = list(Page.objects.filter(survey=survey).order_by("position"))
    codes = [list(Question.objects.filter(page=page, grid=None).order_by("position").values_list("code", flat=True))
             for page in pages]
    return survey, pages, codes


def test_the_odk_collect_form_is_cut_into_runs_by_ten_questions_and_by_notes(tmp_path):
    survey, pages, codes = loaded(tmp_path, "household_collect.xlsx")
    # Ten answered questions a page: the calculation (adults) and the note (many_children) are not counted.
    assert codes == [
        ["consent", "village", "hh_size", "resp_age", "children", "adults", "many_children", "resp_sex",
         "head_education", "water_source", "water_source_other", "water_minutes"],
        ["treat_water", "treat_method"],
        ["mosquito_net", "nets_count", "child_sick", "sought_care", "ors_advice", "comments"]]
    assert pages[0].intro.startswith("This survey asks about the people")
    assert pages[2].intro.startswith("Now I would like to ask you about mosquito nets")
    assert survey.thank_you.startswith("Thank the respondent for their time.")
    assert [c.value for c in Question.objects.get(survey=survey, code="water_source").choices.order_by("position")][
        -1] == "other"
    assert Question.objects.get(survey=survey, code="ors_advice").kind == Question.Kind.NOTE
    assert "survey sheet, row 5, column type: 'deviceid' is not a question: ignored (a browser survey has nothing " \
           "to record)" in survey.load_warnings


def test_the_enketo_pages_form_makes_a_page_of_each_group_and_of_each_question_outside_one(tmp_path):
    survey, pages, codes = loaded(tmp_path, "school_climate_enketo.xlsx")
    assert codes == [["role", "grade"], ["safety_grid", "unsafe_where"], ["bullied"],
                     ["bully_kind", "counsellor", "told_adult"], ["years_teaching", "leadership_support"]]
    assert pages[2].translated("intro", "es").startswith("Las siguientes preguntas son sobre el acoso")
    assert pages[3].show_if == {"op": "equals", "q": "bullied", "value": "yes"}
    grid = Question.objects.get(survey=survey, code="safety_grid")
    assert [row.code for row in grid.rows.order_by("position")] == [
        "safe_class", "safe_grounds", "adults_care", "rules_fair"]


def test_a_table_list_page_leaves_out_odks_header_row_and_a_page_of_notes_shows_them(tmp_path):
    survey, pages, codes = loaded(tmp_path, "teacher_feedback_sw.xlsx")
    grid = Question.objects.get(survey=survey, code="usefulness")
    assert codes[1] == ["usefulness"] and [row.code for row in grid.rows.order_by("position")] == [
        "lesson_planning", "classroom_mgmt", "assessment", "inclusive"]
    assert grid.translated("prompt", "sw") == "Kila kipindi kilikuwa na manufaa kiasi gani?"
    survey, pages, codes = loaded(tmp_path, "chw_home_visit.xlsx")
    assert codes[-1] == ["next_visit", "wash_hands"] and pages[-1].intro == ""
    assert survey.translated("thank_you", "pt") == "Obrigado. Envie o formulário quando tiver rede."


def test_choices_without_labels_show_their_names_and_times_and_acknowledge_are_read(tmp_path):
    survey, pages, codes = loaded(tmp_path, "classroom_observation.xlsx")
    grade = Question.objects.get(survey=survey, code="grade")
    assert [(c.value, c.label) for c in grade.choices.order_by("position")] == [(n, n) for n in "123456"]
    assert Question.objects.get(survey=survey, code="lesson_start").kind == Question.Kind.TIME
    survey, pages, codes = loaded(tmp_path, "clinic_visit_fr.xlsx")
    assert survey.languages == ["fr"] and survey.title == "Fiche de consultation externe"
    assert Question.objects.get(survey=survey, code="rdv_date").kind == Question.Kind.DATETIME
    confirmation = Question.objects.get(survey=survey, code="confirmation")
    assert (confirmation.kind, [c.value for c in confirmation.choices.all()]) == (Question.Kind.SINGLE, ["OK"])
    assert Question.objects.get(survey=survey, code="age_ans").translated("required_message", "fr") == (
        "Veuillez indiquer l'âge du patient.")
