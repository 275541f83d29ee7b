"""Page definitions are frozen copies of the cached rows: no request can change what another reads."""
import dataclasses

import pytest
from django.utils import translation

from surveys.models import Question
from surveys.selectors import answerable_questions, page_definition, question_ids, required_questions, survey_pages
from surveys.tests.factories import make_survey, small_document

pytestmark = pytest.mark.django_db


def test_a_page_definition_holds_its_questions_in_order_with_their_choices_and_a_grids_rows():
    survey = make_survey()
    first = page_definition(survey=survey, number=1)
    assert (first.number, first.page_count, first.page.title) == (1, 3, "First")
    assert [q.code for q in first.items] == ["colour", "pets", "age", "nickname"]
    assert [c.value for c in first.items[0].choice_list] == ["red", "blue"]
    assert (first.items[2].min_value, first.items[2].max_value, first.items[3].text_max_length) == (5, 99, 10)
    second = page_definition(survey=survey, number=2)
    grid = second.items[0]
    assert grid.code == "school" and not grid.is_answerable
    assert [row.code for row in grid.row_list] == ["safe", "happy"]
    assert [c.value for c in grid.row_list[0].choice_list] == ["1", "2"]  # a row takes its grid's choices
    assert list(second.answerable) == ["safe", "happy", "born"]
    assert second.answerable["safe"] is grid.row_list[0]


def test_nothing_a_request_reads_of_a_page_can_be_changed():
    definition = page_definition(survey=make_survey(), number=2)
    grid = definition.items[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        grid.prompt = "Changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        definition.page = None
    with pytest.raises(TypeError):
        definition.answerable["born"] = grid
    with pytest.raises(AttributeError):
        grid.row_list.append(grid)
    with pytest.raises(TypeError):
        grid.translations["es"] = {"prompt": "Cambiado"}


def test_a_frozen_copy_reads_its_texts_in_each_language_as_its_row_does():
    document = small_document(languages=["en", "es"], status="draft")
    document["pages"][0]["title"] = {"en": "First", "es": "Primera"}
    document["pages"][0]["questions"][0]["prompt"] = {"en": "Favourite colour?", "es": "¿Color favorito?"}
    document["pages"][0]["questions"][0]["choices"][0]["label"] = {"en": "Red", "es": "Rojo"}
    definition = page_definition(survey=make_survey(**document), number=1)
    colour = definition.answerable["colour"]
    row = Question.objects.get(code="colour")
    for language in ("en", "es"):
        with translation.override(language):
            assert colour.translated("prompt") == row.translated("prompt")
            assert colour.choice_list[0].translated("label") == row.choices.get(value="red").translated("label")
            assert definition.page.translated("title") == {"en": "First", "es": "Primera"}[language]
    assert colour.translated("help_text", "es") == ""


def test_the_surveys_lists_are_tuples_and_its_ids_a_read_only_mapping():
    survey = make_survey()
    assert isinstance(survey_pages(survey=survey), tuple)
    assert [q.code for q in answerable_questions(survey=survey)] == [
        "colour", "pets", "age", "nickname", "safe", "happy", "born", "story", "again"]
    assert [(number, q.code) for number, q in required_questions(survey=survey)] == [(1, "colour"), (3, "again")]
    with pytest.raises(TypeError):
        question_ids(survey=survey)["colour"] = 0
