"""page_save and roster_create, called directly."""
import uuid

import pytest

from accounts.models import AuditEntry
from respondents.models import Answer, Nav, PageSave, Respondent
from respondents.services import PageSaveRefused, page_save
from respondents.tests.factories import make_school
from rosters.services import RosterEntry, roster_create
from surveys.selectors import page_definition

pytestmark = pytest.mark.django_db


def save(respondent, number, answers, *, nav=Nav.NEXT, save_id=None):
    definition = page_definition(survey=respondent.survey, number=number)
    values = {q: answers.get(code, "") for code, q in definition.answerable.items()}
    return page_save(respondent_id=respondent.pk, definition=definition, values=values,
                     save_id=save_id or uuid.uuid4(), nav=nav)


def test_next_and_back_stay_within_the_survey(respondent):
    assert save(respondent, 1, {}, nav=Nav.BACK).next_page == 1
    assert save(respondent, 3, {}, nav=Nav.NEXT).next_page == 3
    assert save(respondent, 2, {}, nav=Nav.NEXT).next_page == 3


def test_progress_counts_the_pages_behind_the_respondent(respondent):
    assert save(respondent, 1, {}).progress == 33
    assert save(respondent, 2, {}).progress == 67


def test_the_first_save_starts_the_response_and_later_ones_keep_the_start_time(respondent):
    save(respondent, 1, {"colour": "red"})
    started = Respondent.objects.get(pk=respondent.pk).started_at
    save(respondent, 2, {})
    respondent.refresh_from_db()
    assert respondent.started_at == started and respondent.last_saved_at >= started
    assert respondent.status == Respondent.Status.IN_PROGRESS


def test_a_retried_save_id_writes_nothing_even_with_other_answers(respondent):
    save_id = uuid.uuid4()
    first = save(respondent, 1, {"colour": "red"}, save_id=save_id)
    retry = save(respondent, 1, {"colour": "blue"}, save_id=save_id)
    assert retry.replayed and (retry.next_page, retry.progress) == (first.next_page, first.progress)
    assert Answer.objects.get(question__code="colour").value == "red"


def test_a_late_replay_of_an_earlier_save_id_does_not_bring_back_older_answers(respondent):
    first, second = uuid.uuid4(), uuid.uuid4()
    original = save(respondent, 1, {"colour": "red"}, save_id=first)
    save(respondent, 1, {"colour": "blue"}, save_id=second)
    late = save(respondent, 1, {"colour": "red"}, save_id=first)
    assert Answer.objects.get(question__code="colour").value == "blue"
    assert late.replayed and (late.page, late.next_page, late.completed) == (original.page, original.next_page, False)


def test_a_replay_answers_as_the_first_save_did_even_after_the_respondent_moved_on(respondent):
    save_id = uuid.uuid4()
    save(respondent, 1, {"colour": "red"}, save_id=save_id)
    save(respondent, 2, {}, nav=Nav.NEXT)
    replay = save(respondent, 1, {"colour": "red"}, save_id=save_id)
    assert (replay.page, replay.next_page, replay.replayed) == (1, 2, True)
    assert Respondent.objects.get(pk=respondent.pk).current_page == 3


def test_a_replay_of_the_finish_after_completion_answers_completed(respondent):
    save(respondent, 1, {"colour": "red"})
    save_id = uuid.uuid4()
    assert save(respondent, 3, {"again": "2"}, nav=Nav.FINISH, save_id=save_id).completed
    replay = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    assert replay.completed and replay.replayed
    assert Answer.objects.get(question__code="again").value == "2"


def test_every_applied_save_is_logged_once_with_its_page_nav_and_answer_count(respondent):
    ids = [uuid.uuid4() for _ in range(3)]
    save(respondent, 1, {"colour": "red"}, save_id=ids[0])
    save(respondent, 2, {}, nav=Nav.BACK, save_id=ids[1])
    save(respondent, 2, {}, nav=Nav.BACK, save_id=ids[1])  # a replay: not logged again
    save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=ids[2])
    log = list(PageSave.objects.filter(respondent=respondent).order_by("pk").values_list(
        "save_id", "page", "nav", "next_page", "completed", "answer_count"))
    assert log == [
        (ids[0], 1, "next", 2, False, 4),
        (ids[1], 2, "back", 1, False, 3),
        (ids[2], 3, "finish", 3, True, 2),
    ]


def test_a_retried_finish_reports_the_same_missing_pages(respondent):
    save_id = uuid.uuid4()
    first = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    retry = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    assert first.missing.keys() == retry.missing.keys() == {1}
    assert not first.completed and not retry.completed


def test_a_completed_response_refuses_new_saves(respondent):
    save(respondent, 1, {"colour": "red"})
    assert save(respondent, 3, {"again": "2"}, nav=Nav.FINISH).completed
    with pytest.raises(PageSaveRefused) as refused:
        save(respondent, 1, {"colour": "blue"})
    assert refused.value.reason == PageSaveRefused.LOCKED
    assert Answer.objects.get(question__code="colour").value == "red"


def test_a_deleted_respondent_is_gone(respondent):
    definition = page_definition(survey=respondent.survey, number=1)
    Respondent.objects.filter(pk=respondent.pk).delete()
    with pytest.raises(PageSaveRefused) as refused:
        page_save(respondent_id=respondent.pk, definition=definition, values={}, save_id=uuid.uuid4(), nav=Nav.NEXT)
    assert refused.value.reason == PageSaveRefused.GONE


def test_a_roster_gets_one_unique_code_per_respondent(survey):
    lincoln = make_school("LIN", "Lincoln")
    entries = [RosterEntry(external_id=f"s{n}", school=lincoln, grade="7", role="student") for n in range(25)]
    roster = roster_create(survey=survey, name="Lincoln", entries=entries, batch_size=10)
    respondents = list(roster.respondents.all())
    assert len(respondents) == 25
    assert len({r.access_code for r in respondents}) == 25
    assert {r.school for r in respondents} == {lincoln}


def test_a_roster_with_a_repeated_external_id_is_refused_whole(survey):
    from django.db import IntegrityError

    entries = [RosterEntry(external_id="same"), RosterEntry(external_id="same")]
    with pytest.raises(IntegrityError):
        roster_create(survey=survey, name="Bad", entries=entries)
    assert not Respondent.objects.exists()


# ---------------------------------------------------------------- survey versions

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


def test_a_wording_fix_is_a_new_version_applied_at_once_to_everyone_taking_it(answered, client):
    from publishing.services import survey_version_create

    client.get("/take/page/1/")  # the old wording, cached
    document = revised(lambda d: d["pages"][0]["questions"][0].update(
        prompt="Your favourite colour?", choices=[{"value": "red", "label": "Crimson"},
                                                  {"value": "blue", "label": "Blue"},
                                                  {"value": "green", "label": "Green"}]))
    survey = survey_version_create(document=document)
    assert survey.version == 2
    page = client.get("/take/page/1/").content.decode()
    assert "Your favourite colour?" in page and "Crimson" in page and "Green" in page
    assert Answer.objects.get(respondent=client.respondent, question__code="colour").value == "red"


def test_new_questions_and_pages_and_removing_unanswered_ones_are_a_new_version(answered, client):
    from publishing.services import survey_version_create
    from surveys.models import Page, Question

    def change(d):
        d["pages"][1]["questions"].pop()  # "born", never answered
        d["pages"].append({"title": "Fourth", "questions": [{"code": "more", "kind": "short_text", "prompt": "More?"}]})
    survey_version_create(document=revised(change))
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
    from publishing.services import survey_version_create
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
        survey_version_create(document=revised(without_nones))
    assert refused.value.problems == [reason]
    assert Survey.objects.get(pk=answered.pk).version == 1
    assert Question.objects.get(code="colour").choices.filter(value="red").exists()


def test_the_codebook_names_the_version(answered, tmp_path):
    from exports.tests.helpers import xlsx_rows
    from exports.writers import ExportOptions, export_write
    from publishing.services import survey_version_create

    survey = survey_version_create(document=revised(lambda d: d.update(title="Small survey, revised")))
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
    """A save landing between ``survey_version_create``'s read of the answered questions and the revision."""
    from surveys.documents import DocumentError
    from surveys.models import Question, Survey
    from surveys.services import survey_revise

    with pytest.raises(DocumentError) as refused:
        survey_revise(document=revised(lambda d: d["pages"][0]["questions"].pop(2)), answered=set())  # read as none
    assert refused.value.problems == ["question 'age' has answers: it cannot be removed"]
    assert Survey.objects.get(pk=answered.pk).version == 1
    assert Question.objects.filter(code="age").exists()


def test_a_new_version_carries_calculations_defaults_and_cascading_choices(answered, client):
    from publishing.services import survey_version_create
    from surveys.models import Choice, Question

    def change(document):
        first = document["pages"][0]["questions"]
        first[3]["default"] = "Kid"
        first.append({"code": "older", "kind": "calculate",
                      "calculation": {"fn": "add", "args": [{"q": "age"}, 1]}})
        document["pages"][2]["questions"][1]["choice_filter"] = {"colour": "colour"}
        for choice in document["choice_lists"]["agree"]:
            choice["filters"] = {"colour": "red" if choice["value"] in ("1", "2") else "blue"}

    survey = survey_version_create(document=revised(change))
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
