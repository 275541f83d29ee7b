"""Revising a survey (``survey_revise``): a new version applied at once to everyone taking it, refusing what would
strand saved answers."""
import io
import json

import pytest

from accounts.models import AuditEntry
from accounts.scopes import COMMAND_LINE
from publishing.services import survey_revise
from respondents.models import Answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(client):
    """The small survey with a respondent halfway: page 1 saved (colour, pets, age, nickname)."""
    from respondents.tests.factories import login, make_respondents, save_page
    from surveys.tests.factories import make_survey

    survey = make_survey()
    respondent = make_respondents(survey)
    login(client, respondent)
    save_page(client, 1, {"q-colour": "red", "q-pets": ["cat"], "q-age": "12", "q-nickname": "Al"})
    client.respondent = respondent
    return survey


def revised(change):
    from surveys.tests.factories import small_document

    document = small_document()
    change(document)
    return document


def new_version(document):
    """Revise the survey with ``document`` as the staff area and ``import_survey --new-version`` do: from a file."""
    return survey_revise(scope=COMMAND_LINE, source=io.BytesIO(json.dumps(document).encode()), filename="small.json")


def test_a_wording_fix_is_a_new_version_applied_at_once_to_everyone_taking_it(answered, client):
    client.get("/take/page/1/")  # the old wording, cached
    document = revised(lambda d: d["pages"][0]["questions"][0].update(
        prompt="Your favourite colour?", choices=[{"value": "red", "label": "Crimson"},
                                                  {"value": "blue", "label": "Blue"},
                                                  {"value": "green", "label": "Green"}]))
    survey = new_version(document)
    assert survey.version == 2
    page = client.get("/take/page/1/").content.decode()
    assert "Your favourite colour?" in page and "Crimson" in page and "Green" in page
    assert Answer.objects.get(respondent=client.respondent, question__code="colour").value == "red"


def test_new_questions_and_pages_and_removing_unanswered_ones_are_a_new_version(answered, client):
    from surveys.models import Page, Question

    def change(d):
        d["pages"][1]["questions"].pop()  # "born", never answered
        d["pages"].append({"title": "Fourth", "questions": [{"code": "more", "kind": "short_text", "prompt": "More?"}]})
    new_version(revised(change))
    assert not Question.objects.filter(code="born").exists() and Question.objects.filter(code="more").exists()
    assert Page.objects.filter(survey=answered).count() == 4
    assert "Page 2 of 4" in client.get("/take/").content.decode()  # page 1 was saved


@pytest.mark.parametrize(("change", "reason"), [
    (lambda d: d["pages"][0]["questions"].pop(2), "question 'age' has answers: it cannot be removed"),
    (lambda d: d["pages"][0]["questions"][0].update(choices=[{"value": "rouge", "label": "Red"},
                                                             {"value": "blue", "label": "Blue"}]),
     "question 'colour' has answers: its choice values cannot be removed or changed (red)"),
    (lambda d: d["pages"][0]["questions"][2].update(kind="short_text", min=None, max=None),
     "question 'age' has answers: its kind cannot change (integer to short_text)"),
    (lambda d: d["pages"][0]["questions"][1]["choices"].pop(0),
     "question 'pets' has answers: its choice values cannot be removed or changed (cat)"),
])
def test_a_change_that_would_strand_answers_is_refused_with_the_reason_and_nothing_changes(answered, change, reason):
    from surveys.documents import DocumentError
    from surveys.models import Question, Survey

    def without_nones(d):
        change(d)
        for page in d["pages"]:
            for question in page["questions"]:
                for key in ("min", "max"):
                    if question.get(key, 0) is None:
                        question.pop(key)
    with pytest.raises(DocumentError) as refused:
        new_version(revised(without_nones))
    assert refused.value.problems == [reason]
    assert Survey.objects.get(pk=answered.pk).version == 1
    assert Question.objects.get(code="colour").choices.filter(value="red").exists()


def test_the_codebook_names_the_version(answered, tmp_path):
    from exports.options import ExportOptions
    from exports.tests.helpers import xlsx_rows
    from exports.writers import export_write
    survey = new_version(revised(lambda d: d.update(title="Small survey, revised")))
    result = export_write(survey=survey, format="csv", options=ExportOptions(), directory=tmp_path)
    _, about = xlsx_rows(result.codebook, "About")
    assert dict((row[0], row[1]) for row in about)["Definition version"].startswith("2 (definition ")


def test_the_command_makes_a_new_version_of_a_survey_of_the_same_slug(answered, tmp_path, capsys):
    import json

    from django.core.management import CommandError, call_command

    path = tmp_path / "small.json"
    path.write_text(json.dumps(revised(lambda d: d.update(title="Small survey, revised"))))
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_survey", str(path))  # the slug is taken: a new version must be asked for
    call_command("import_survey", str(path), "--new-version")
    assert "version 2 of 'small'" in capsys.readouterr().out
    assert AuditEntry.objects.filter(action="survey_revised", username="manage.py").exists()  # audited as the staff's
    path.write_text(json.dumps(revised(lambda d: d["pages"][0]["questions"].pop(0))))
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_survey", str(path), "--new-version")
    assert "question 'colour' has answers: it cannot be removed" in capsys.readouterr().err


def test_a_question_answered_after_the_check_is_refused_the_same_way_not_with_an_error(answered):
    """A save landing between ``survey_revise``'s read of the answered questions and the revision."""
    from surveys.documents import DocumentError
    from surveys.models import Question, Survey
    from surveys.services import definition_update

    with pytest.raises(DocumentError) as refused:
        definition_update(document=revised(lambda d: d["pages"][0]["questions"].pop(2)), answered=set())  # read as none
    assert refused.value.problems == ["question 'age' has answers: it cannot be removed"]
    assert Survey.objects.get(pk=answered.pk).version == 1
    assert Question.objects.filter(code="age").exists()


def test_a_new_version_carries_calculations_defaults_and_cascading_choices(answered, client):
    from surveys.models import Choice, Question

    def change(document):
        first = document["pages"][0]["questions"]
        first[3]["default"] = "Kid"
        first.append({"code": "older", "kind": "calculate",
                      "calculation": {"fn": "add", "args": [{"q": "age"}, 1]}})
        document["pages"][2]["questions"][1]["choice_filter"] = {"colour": "colour"}
        for choice in document["choice_lists"]["agree"]:
            choice["filters"] = {"colour": "red" if choice["value"] in ("1", "2") else "blue"}

    survey = new_version(revised(change))
    assert survey.version == 2
    assert Question.objects.get(survey=survey, code="nickname").default_value == "Kid"
    assert Question.objects.get(survey=survey, code="older").calculation == {
        "fn": "add", "args": [{"q": "age"}, 1]}
    again = Question.objects.get(survey=survey, code="again")
    assert again.choices.get(value="1").show_if == {"op": "equals", "q": "colour", "value": "red"}
    # The grid that shares the list keeps its choices unruled: a filter is its question's own.
    assert not Choice.objects.filter(question__code="school", show_if__isnull=False).exists()
    page = client.get("/take/page/3/").content.decode()  # the respondent answered red on page 1
    assert 'value="1"' in page and 'value="4"' not in page


def test_only_a_state_administrator_imports_revises_or_publishes_a_survey_and_nothing_changes_otherwise(answered):
    from django.core.exceptions import PermissionDenied

    from accounts.models import StaffMember
    from publishing.services import survey_import, survey_publish
    from respondents.tests.factories import make_staff, scope_of
    from surveys.models import Survey
    from surveys.tests.factories import small_document

    analyst = scope_of(make_staff(StaffMember.Role.ANALYST))
    source = io.BytesIO(json.dumps(small_document(slug="another")).encode())
    with pytest.raises(PermissionDenied):
        survey_import(scope=analyst, source=source, filename="another.json")
    with pytest.raises(PermissionDenied):
        survey_revise(scope=analyst, source=io.BytesIO(json.dumps(revised(lambda d: d.update(title="New"))).encode()),
                      filename="small.json")
    with pytest.raises(PermissionDenied):
        survey_publish(scope=analyst, survey=answered)
    assert list(Survey.objects.values_list("slug", "version", "title")) == [("small", 1, answered.title)]
    assert not AuditEntry.objects.filter(action__startswith="survey_").exists()
