"""Survey documents: every problem reported with its path, nothing written on any problem."""
import pytest

from surveys.documents import DocumentError, parse_survey_document
from surveys.models import Choice, Page, Question, Survey
from surveys.services import status_open, survey_create
from surveys.tests.factories import make_demo_survey, small_document
from surveys.tests.helpers import ruled_document

pytestmark = pytest.mark.django_db


def problems_of(document):
    with pytest.raises(DocumentError) as raised:
        survey_create(document=document)
    assert not Survey.objects.exists() and not Question.objects.exists()
    return raised.value.problems


def test_a_valid_document_creates_pages_questions_grid_rows_and_choices():
    survey = survey_create(document=small_document())
    assert [p.title for p in survey.pages.order_by("position")] == ["First", "Second", "Third"]
    grid = Question.objects.get(code="school")
    assert grid.kind == "grid" and [r.code for r in grid.rows.order_by("position")] == ["safe", "happy"]
    assert [c.value for c in grid.choices.all()] == ["1", "2"]
    assert not Choice.objects.filter(question__grid=grid).exists()  # rows use the grid's choices
    assert Question.objects.get(code="age").min_value == 5
    assert Question.objects.get(code="colour").required is True


def test_the_demo_survey_has_thirteen_pages_of_four_to_six_answerable_questions_and_uses_skip_logic():
    survey = make_demo_survey()
    pages = list(Page.objects.filter(survey=survey))
    assert len(pages) == 13
    assert [p.title for p in pages if p.show_if] == ["Your teaching"]
    shown_if = set(Question.objects.filter(survey=survey).exclude(show_if=None).values_list("code", flat=True))
    assert shown_if == {"grade", "grade_taught", "grade_child", "overall_why"}
    assert Question.objects.filter(survey=survey).exclude(constraint=None).count() == 2
    for page in pages:
        answerable = page.questions.exclude(kind=Question.Kind.GRID).count()
        assert 4 <= answerable <= 6, page
    kinds = set(Question.objects.filter(survey=survey).values_list("kind", flat=True))
    # The demo is what the load plans take: the kinds XLSForms brought later are taken in the XLSForm corpus.
    assert kinds == set(Question.Kind.values) - {"time", "datetime", "note", "calculate"}


def test_a_dangling_choice_list_reference_is_reported_with_its_path():
    document = small_document()
    document["pages"][2]["questions"][1]["choices"] = "agree5"
    assert problems_of(document) == ["pages[3].questions[2].choices: no choice list named 'agree5'"]


def test_every_problem_is_reported_at_once():
    document = small_document(slug="bad slug!", status="maybe")
    page_1 = document["pages"][0]["questions"]
    page_1[1]["code"] = "colour"                      # duplicate code
    page_1[2]["min"], page_1[2]["max"] = 10, 1         # min above max
    page_1[3]["kind"] = "essay"                        # unknown kind
    document["pages"][1]["questions"][0]["rows"] = []  # grid without rows
    document["pages"][2]["questions"][0]["choices"] = [{"value": "x", "label": "X"}]  # choices on text
    problems = problems_of(document)
    assert any(p.startswith("survey.slug:") for p in problems)
    assert any(p.startswith("survey.status:") for p in problems)
    assert "pages[1].questions[2].code: 'colour' is already used at pages[1].questions[1]" in problems
    assert "pages[1].questions[3]: min is above max" in problems
    assert any(p.startswith("pages[1].questions[4].kind:") for p in problems)
    assert "pages[2].questions[1].rows: a grid needs a non-empty list of rows" in problems
    assert "pages[3].questions[1].choices: a long_text question takes no choices" in problems


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d.update(pages=[]), "survey.pages: must be a non-empty list"),
    (lambda d: d["pages"][0].update(questions=[]), "pages[1].questions: must be a non-empty list"),
    (lambda d: d["pages"][0]["questions"][0].update(choices=[{"value": "a b", "label": "A"}]),
     "pages[1].questions[1].choices[1].value: holds only letters, digits, '_', '.' and '-' (at most 64)"),
    (lambda d: d["pages"][0]["questions"][0].update(choices=[{"value": "a", "label": "A"}, {"value": "a", "label": "B"}]),
     "pages[1].questions[1].choices[2].value: 'a' appears twice"),
    (lambda d: d["pages"][0]["questions"][0].pop("choices"), "pages[1].questions[1].choices: a choice question needs choices"),
    (lambda d: d["pages"][0]["questions"][0].update(prompt=" "), "pages[1].questions[1].prompt: is required"),
    (lambda d: d["pages"][0]["questions"][0].update(code="1st"),
     "pages[1].questions[1].code: starts with a letter and holds only letters, digits and '_' (at most 64)"),
    (lambda d: d["pages"][1]["questions"][0]["rows"][0].update(choices="agree"),
     "pages[2].questions[1].rows[1].choices: a grid row takes the grid's kind and choices"),
    (lambda d: d["pages"][0]["questions"][2].update(max="lots"), "pages[1].questions[3].max: must be a whole number"),
    (lambda d: d["pages"][0]["questions"][3].update(max_length=0), "pages[1].questions[4].max_length: must be a positive whole number"),
    (lambda d: d["pages"][0]["questions"][0].update(required="yes"), "pages[1].questions[1].required: must be true or false"),
    (lambda d: d.update(choice_lists=[]), "choice_lists: must be an object of named lists"),
])
def test_a_malformed_element_gets_a_clear_problem(change, expected):
    document = small_document()
    change(document)
    assert any(problem.startswith(expected) for problem in problems_of(document)), problems_of(document)


def test_a_document_that_is_not_an_object_is_refused():
    with pytest.raises(DocumentError, match="must be an object"):
        parse_survey_document(["not", "a", "survey"])


def test_a_second_survey_with_the_same_slug_is_refused_and_the_first_kept():
    survey_create(document=small_document())
    with pytest.raises(DocumentError, match="already exists"):
        survey_create(document=small_document(title="Again"))
    assert Survey.objects.get().title == "Small survey"


def test_a_grid_row_inherits_required_unless_it_says_otherwise():
    document = small_document()
    grid = document["pages"][1]["questions"][0]
    grid["required"] = True
    grid["rows"][1]["required"] = False
    survey_create(document=document)
    assert Question.objects.get(code="safe").required is True
    assert Question.objects.get(code="happy").required is False


# Skip logic and constraints in the document


def test_rules_are_stored_canonical_with_their_messages():
    document = ruled_document()
    document["pages"][0]["questions"][2]["constraint"]["value"] = 7
    survey = survey_create(document=document)
    age = Question.objects.get(code="age")
    assert age.show_if == {"op": "selected", "q": "pets", "value": "cat"}
    assert age.constraint == {"op": "ge", "q": ".", "value": 7}
    assert age.constraint_message == "Cats need owners of seven or more."
    assert Question.objects.get(code="happy").show_if == {"op": "equals", "q": "safe", "value": "2"}
    assert Question.objects.get(code="again").required_message == "Please say whether you would take it again."
    assert survey.pages.get(position=3).show_if == {"op": "equals", "q": "colour", "value": "red"}
    assert survey.pages.get(position=1).show_if is None


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["pages"][0].update(show_if={"op": "answered", "q": "colour"}),
     "pages[1].show_if.q: 'colour' does not come before this rule: a rule reads only earlier answers"),
    (lambda d: d["pages"][0]["questions"][0].update(show_if={"op": "answered", "q": "pets"}),
     "pages[1].questions[1].show_if.q: 'pets' does not come before this rule: a rule reads only earlier answers"),
    (lambda d: d["pages"][1].update(show_if={"op": "answered", "q": "nobody"}),
     "pages[2].show_if.q: there is no question 'nobody'"),
    (lambda d: d["pages"][1].update(show_if={"op": "equals", "q": "colour", "value": "green"}),
     "pages[2].show_if.value: 'green' is not a choice of 'colour'"),
    (lambda d: d["pages"][1].update(show_if={"op": "gt", "q": "nickname", "value": 3}),
     "pages[2].show_if.op: 'gt' compares number, date or time answers; 'nickname' is a short text question"),
    (lambda d: d["pages"][2].update(show_if={"op": "answered", "q": "school"}),
     "pages[3].show_if.q: 'school' is a grid, which takes no answer: name one of its rows"),
    (lambda d: d["pages"][1]["questions"][0]["rows"][0].update(show_if={"op": "answered", "q": "happy"}),
     "pages[2].questions[1].rows[1].show_if.q: 'happy' does not come before this rule: a rule reads only earlier answers"),
    (lambda d: d["pages"][0]["questions"][2].update(constraint={"op": "le", "q": "age", "value": 3}),
     "pages[1].questions[3].constraint.q: 'age' is the question this constraint belongs to: write '.' for its value"),
    (lambda d: d["pages"][0]["questions"][2].update(show_if={"op": "le", "q": ".", "value": 3}),
     "pages[1].questions[3].show_if.q: '.' (the question's own value) is only allowed in a constraint"),
    (lambda d: d["pages"][1]["questions"][0].update(constraint={"op": "answered", "q": "."}),
     "pages[2].questions[1].constraint: a grid takes no answer: give its rows constraints"),
    (lambda d: d["pages"][0]["questions"][3].update(constraint_message="Too long."),
     "pages[1].questions[4].constraint_message: only a question with a constraint (or a number's min or max) "
     "shows a constraint message"),
    (lambda d: d["pages"][0]["questions"][3].update(required_message="Say it."),
     "pages[1].questions[4].required_message: only a required question shows a required message"),
    (lambda d: d["pages"][0]["questions"][2].update(show_if={"op": "selected"}),
     "pages[1].questions[3].show_if.q: is required"),
    (lambda d: d["pages"][0]["questions"][2].update(show_if="pets = cat"),
     "pages[1].questions[3].show_if: must be an object with an op"),
])
def test_a_rule_that_reads_what_it_cannot_is_refused_with_its_path_and_nothing_is_written(change, expected):
    document = ruled_document()
    change(document)
    assert any(problem.startswith(expected) for problem in problems_of(document)), problems_of(document)


def test_every_rule_problem_is_reported_with_the_other_problems():
    document = ruled_document()
    document["pages"][0]["questions"][0]["show_if"] = {"op": "answered", "q": "again"}
    document["pages"][2]["show_if"] = {"op": "eval", "q": "colour"}
    document["pages"][1]["questions"][1]["kind"] = "essay"
    problems = problems_of(document)
    assert "pages[1].questions[1].show_if.q: 'again' does not come before this rule: a rule reads only earlier answers" in problems
    assert any(p.startswith("pages[3].show_if.op: 'eval' is not one of") for p in problems)
    assert any(p.startswith("pages[2].questions[2].kind:") for p in problems)


# Several languages

def two_languages(**changes):
    """The small survey in English and Spanish, every text translated."""
    document = small_document(languages=["en", "es"], **changes)

    def both(text):
        return {"en": text, "es": f"ES {text}"}

    document["title"] = both(document["title"])
    for page in document["pages"]:
        page["title"] = both(page["title"])
        for question in page["questions"]:
            question["prompt"] = both(question["prompt"])
            for row in question.get("rows", []):
                row["prompt"] = both(row["prompt"])
            if isinstance(question.get("choices"), list):
                for choice in question["choices"]:
                    choice["label"] = both(choice["label"])
    for choices in document["choice_lists"].values():
        for choice in choices:
            choice["label"] = both(choice["label"])
    return document


def test_texts_per_language_are_stored_with_the_first_language_in_the_fields():
    survey = survey_create(document=two_languages())
    assert survey.languages == ["en", "es"] and survey.title == "Small survey"
    assert survey.translations == {"es": {"title": "ES Small survey"}}
    colour = Question.objects.get(code="colour")
    assert (colour.prompt, colour.translated("prompt", "es")) == ("Favourite colour?", "ES Favourite colour?")
    assert colour.choices.get(value="red").translated("label", "es") == "ES Red"
    assert Question.objects.get(code="safe").translated("prompt", "es") == "ES I feel safe."
    assert colour.translated("help_text", "es") == ""  # none in either language


def test_publishing_refuses_a_survey_that_lacks_a_text_in_one_of_its_languages_and_lists_every_gap():
    document = two_languages()
    document["pages"][0]["questions"][0]["prompt"] = "Favourite colour?"  # English only
    document["choice_lists"]["agree"][1]["label"] = {"en": "Agree"}
    problems = problems_of(document)
    assert problems == [
        "page 1, question 'colour', prompt: no Spanish (es) text",
        "question 'school', choice '2', label: no Spanish (es) text",
        "question 'again', choice '2', label: no Spanish (es) text",
    ]


def test_a_draft_may_lack_translations_and_is_published_once_it_has_them():
    document = two_languages(status="draft")
    document["title"] = "Small survey"
    survey = survey_create(document=document)
    with pytest.raises(DocumentError) as refused:
        status_open(survey=survey)
    assert refused.value.problems == ["survey, title: no Spanish (es) text"]
    assert Survey.objects.get().status == "draft"
    Survey.objects.filter(pk=survey.pk).update(translations={"es": {"title": "Encuesta"}})
    assert status_open(survey=survey).status == "open"


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d.update(languages=["en", "tlh"]), "survey.languages: A list of one or more language codes, written "
                                                  "as Django writes them (en, es, pt-br, zh-hans)."),
    (lambda d: d.update(languages=["en", "pt_BR"]), "survey.languages: A list of one or more language codes"),
    (lambda d: d.update(languages="es"), "survey.languages: A list of one or more language codes"),
    (lambda d: d.update(languages=["es", "es"]), "survey.languages: lists a language twice"),
    (lambda d: d["pages"][0]["questions"][0].update(prompt={"en": "Colour?", "de": "Farbe?"}),
     "pages[1].questions[1].prompt: de is not one of the survey's languages (en, es)"),
    (lambda d: d["pages"][0]["questions"][0].update(prompt={"es": "¿Color?"}), "pages[1].questions[1].prompt.en: is required"),
    (lambda d: d["pages"][0]["questions"][0].update(prompt={"en": "Colour?", "es": 3}),
     "pages[1].questions[1].prompt.es: must be text"),
])
def test_a_malformed_language_or_translation_is_refused(change, expected):
    document = two_languages()
    change(document)
    assert any(problem.startswith(expected) for problem in problems_of(document)), problems_of(document)


# Bounds taken from the models' fields

@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["pages"][0]["questions"][0].update(code="q" * 65),
     "pages[1].questions[1].code: starts with a letter and holds only letters, digits and '_' (at most 64)"),
    (lambda d: d["pages"][0]["questions"][0].update(choices=[{"value": "v" * 65, "label": "V"}]),
     "pages[1].questions[1].choices[1].value: holds only letters, digits, '_', '.' and '-' (at most 64)"),
    (lambda d: d.update(slug="s" * 51), "survey.slug: holds only letters, digits, '-' and '_' (at most 50)"),
    (lambda d: d.update(title="T" * 201), "survey.title: is longer than 200 characters"),
    (lambda d: d["pages"][1].update(title="T" * 201), "pages[2].title: is longer than 200 characters"),
    (lambda d: d["choice_lists"]["agree"][0].update(label="L" * 301),
     "choice_lists.agree[1].label: is longer than 300 characters"),
    (lambda d: d["pages"][0]["questions"][0].update(required_message="M" * 501),
     "pages[1].questions[1].required_message: is longer than 500 characters"),
])
def test_a_code_value_slug_or_text_longer_than_its_column_gets_the_same_clear_problem(change, expected):
    document = small_document()
    change(document)
    assert any(problem.startswith(expected) for problem in problems_of(document)), problems_of(document)


def test_a_translation_longer_than_its_column_is_refused_in_its_language():
    document = two_languages()
    document["title"]["es"] = "T" * 201
    assert "survey.title.es: is longer than 200 characters" in problems_of(document)


def test_a_code_value_slug_and_texts_at_their_columns_lengths_are_stored():
    def longest(model, field, letter):
        return letter * model._meta.get_field(field).max_length

    document = small_document(slug=longest(Survey, "slug", "s"), title=longest(Survey, "title", "T"))
    document["pages"][1]["title"] = longest(Page, "title", "P")
    document["choice_lists"]["agree"][0].update(value=longest(Choice, "value", "v"), label=longest(Choice, "label", "L"))
    survey = survey_create(document=document)
    assert (survey.slug, survey.title) == (longest(Survey, "slug", "s"), longest(Survey, "title", "T"))
    assert survey.pages.get(position=2).title == longest(Page, "title", "P")
    choice = Choice.objects.get(question__code="school", position=1)
    assert (choice.value, choice.label) == (longest(Choice, "value", "v"), longest(Choice, "label", "L"))
