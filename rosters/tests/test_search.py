"""Finding a survey's people across a scope (``respondents_search``) and acting on many at once: withdraw, restore,
new codes and slips, each scoped and audited once per person."""
import io

import pytest
from django.core.exceptions import PermissionDenied
from pypdf import PdfReader

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of
from rosters.selectors import (
    LeftOut,
    PeopleAction,
    PeopleSearch,
    SearchBy,
    people_chosen,
    people_left_out,
    respondents_for_action,
    respondents_search,
)
from rosters.services import respondent_restore, respondent_withdraw, respondents_reissue_codes
from rosters.slips import slips_job_run, slips_job_start_people, slips_print_people
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


@pytest.fixture
def world():
    """Lincoln and Jefferson (district D1), Adams (D2): two people each, named; a coordinator of each scope."""
    survey = make_survey()
    lincoln, jefferson = make_school("LIN", "Lincoln Middle"), make_school("JEF", "Jefferson High")
    adams = make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    people = {}
    for school, rows in [(lincoln, [("L-1", "Ana Ruiz", "7"), ("L-2", "Ben Ortiz", "8")]),
                         (jefferson, [("J-1", "Carla Ruiz", "7"), ("J-2", "Dan Moss", "9")]),
                         (adams, [("A-1", "Eva Ruiz", "7"), ("A-2", "Farid Ali", "8")])]:
        for external_id, name, grade in rows:
            people[external_id] = make_respondents(survey, school=school, external_id=external_id, display_name=name,
                                                   grade=grade)
    district = scope_of(make_staff(Role.DISTRICT_COORDINATOR, districts=[lincoln.district], username="d1"))
    school = scope_of(make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lin"))
    analyst = scope_of(make_staff(Role.ANALYST, username="analyst"))
    return {"survey": survey, "people": people, "district": district, "school": school, "analyst": analyst,
            "lincoln": lincoln, "adams": adams}


def found(world, scope, **search):
    return [person.external_id for person in respondents_search(scope=scope, survey=world["survey"],
                                                                search=PeopleSearch(**search))]


# ---------------------------------------------------------------- the search

def test_a_name_is_found_anywhere_in_it_case_aside_across_the_scope_and_never_outside_it(world):
    assert found(world, COMMAND_LINE, query="ruiz", by=SearchBy.NAME) == ["L-1", "J-1", "A-1"]
    assert found(world, world["district"], query="RUIZ", by=SearchBy.NAME) == ["L-1", "J-1"]
    assert found(world, world["school"], query="Ruiz", by=SearchBy.NAME) == ["L-1"]
    assert found(world, world["district"], query="uiz", by=SearchBy.NAME) == ["L-1", "J-1"]  # inside a word


@pytest.fixture
def garcias(world):
    """Four García of Lincoln written four ways, a Muñoz and a Peña; an Aguirre with "ga" inside a word."""
    for external_id, name in [("I-1", "María García"), ("I-2", "JOSÉ GARCÍA"), ("I-3", "ana garcía"),
                              ("I-4", "Luis Garcia"), ("I-5", "Inés Muñoz-Peña"), ("I-6", "Olga Aguirre")]:
        make_respondents(world["survey"], school=world["lincoln"], external_id=external_id, display_name=name)
    return world


@pytest.mark.parametrize("typed", ["garcia", "GARCÍA", "garcía", "Garcia", "  GarCÍa "])
def test_a_name_is_found_with_its_accents_and_case_aside_however_it_is_typed(garcias, typed):
    assert found(garcias, garcias["school"], query=typed, by=SearchBy.NAME) == ["I-1", "I-2", "I-3", "I-4"]


def test_accents_and_punctuation_are_aside_in_every_part_of_a_name_and_several_words_are_found_together(garcias):
    for typed in ("munoz pena", "muñoz-pena", "MUÑOZ PEÑA", "munoz, pena", "pena"):
        assert found(garcias, garcias["school"], query=typed, by=SearchBy.NAME) == ["I-5"], typed
    assert found(garcias, garcias["school"], query="pe", by=SearchBy.NAME) == ["I-5"]  # a word after a dash
    assert found(garcias, garcias["school"], query="--", by=SearchBy.NAME) == []  # no letter: nobody, not everyone
    assert found(garcias, garcias["school"], query="INES", by=SearchBy.NAME) == ["I-5"]
    assert found(garcias, garcias["school"], query="maria  garcia", by=SearchBy.NAME) == ["I-1"]


def test_one_or_two_letters_find_the_start_of_a_word_of_a_name(garcias):
    """pg_trgm has no trigram inside one or two letters: they find a word's start, the first word or another."""
    assert found(garcias, garcias["school"], query="ga", by=SearchBy.NAME) == ["I-1", "I-2", "I-3", "I-4"]
    assert found(garcias, garcias["school"], query="Á", by=SearchBy.NAME) == ["I-3", "I-6", "L-1"]
    assert found(garcias, garcias["school"], query="rU", by=SearchBy.NAME) == ["L-1"]
    assert found(garcias, garcias["school"], query="ui", by=SearchBy.NAME) == []  # inside Ruiz, Luis, Aguirre
    assert found(garcias, garcias["school"], query="jo", by=SearchBy.NAME) == ["I-2"]  # JOSÉ


def test_an_external_id_is_found_from_its_start_case_aside(world):
    assert found(world, world["district"], query="j-", by=SearchBy.EXTERNAL_ID) == ["J-1", "J-2"]
    assert found(world, world["district"], query="-1", by=SearchBy.EXTERNAL_ID) == []
    assert found(world, world["district"], query="A-1", by=SearchBy.EXTERNAL_ID) == []  # Adams is not theirs


def test_a_code_is_found_from_its_start_however_it_is_typed_and_only_in_the_scope(world):
    ana, eva = world["people"]["L-1"], world["people"]["A-1"]
    typed = ana.formatted_access_code.lower().replace("-", " ")
    assert found(world, world["school"], query=typed, by=SearchBy.CODE) == ["L-1"]
    for part in (ana.access_code[:5], ana.formatted_access_code[:7].lower(), f" {ana.access_code[:3]} - "):
        assert found(world, world["school"], query=part, by=SearchBy.CODE) == ["L-1"], part
    assert found(world, world["school"], query=ana.access_code[1:6], by=SearchBy.CODE) == []  # not its start
    assert found(world, world["school"], query=eva.access_code, by=SearchBy.CODE) == []
    assert found(world, world["school"], query=eva.access_code[:6], by=SearchBy.CODE) == []
    assert found(world, world["school"], query="not a code", by=SearchBy.CODE) == []
    assert found(world, world["school"], query="O", by=SearchBy.CODE) == []  # no code has an O
    assert found(world, world["school"], query=ana.access_code + "2", by=SearchBy.CODE) == []  # too long


def test_anything_finds_a_name_an_external_id_or_a_code_from_one_box(garcias):
    ana = garcias["people"]["L-1"]
    school = garcias["school"]
    assert PeopleSearch().by == SearchBy.ANYTHING
    assert found(garcias, school, query="garcía") == ["I-1", "I-2", "I-3", "I-4"]
    assert found(garcias, school, query="i-") == ["I-1", "I-2", "I-3", "I-4", "I-5", "I-6"]  # ids from their start
    assert found(garcias, school, query="l-2") == ["L-2"]
    assert found(garcias, school, query=ana.formatted_access_code[:6].lower()) == ["L-1"]
    assert found(garcias, school, query="zzzz") == []


def test_anything_finds_a_person_once_though_their_name_id_and_code_all_match(world):
    person = make_respondents(world["survey"], school=world["lincoln"], external_id="DAN-7", display_name="Dan")
    code = person.access_code
    Respondent.objects.filter(pk=person.pk).update(access_code="DAN" + code[3:], external_id="DAN" + code[3:])
    assert found(world, world["school"], query="dan") == ["DAN" + code[3:]]


def test_a_school_is_found_by_its_code_or_a_part_of_its_name_and_a_grade_narrows_it(world):
    assert found(world, world["district"], query="jef", by=SearchBy.SCHOOL) == ["J-1", "J-2"]
    assert found(world, world["district"], query="LIN", by=SearchBy.SCHOOL) == ["L-1", "L-2"]
    assert found(world, world["district"], query="Adams", by=SearchBy.SCHOOL) == []
    assert found(world, world["district"], grade="7") == ["L-1", "J-1"]
    assert found(world, COMMAND_LINE, grade="7", query="Elementary", by=SearchBy.SCHOOL) == ["A-1"]


def test_the_status_filter_tells_the_withdrawn_from_the_rest(world):
    respondent_withdraw(scope=COMMAND_LINE, survey=world["survey"], respondent_ids=[world["people"]["L-2"].pk])
    assert found(world, world["school"], status="withdrawn") == ["L-2"]
    assert found(world, world["school"], status="not_started") == ["L-1"]


def test_an_analyst_finds_by_id_school_and_grade_but_not_by_code_or_name(world):
    analyst, code = world["analyst"], world["people"]["L-1"].access_code
    assert found(world, analyst, grade="9") == ["J-2"]
    assert found(world, analyst, query="ruiz", by=SearchBy.NAME) == []
    assert found(world, analyst, query=code, by=SearchBy.CODE) == []
    assert found(world, analyst, query=code[:4], by=SearchBy.CODE) == []
    # "Anything" is for them the external id alone: a name or a code finds nobody.
    assert found(world, analyst, query="ruiz") == [] and found(world, analyst, query=code) == []
    assert found(world, analyst, query="l-") == ["L-1", "L-2"]


def test_an_action_takes_only_those_it_would_change(world):
    people, survey = world["people"], world["survey"]
    respondent_withdraw(scope=COMMAND_LINE, survey=survey, respondent_ids=[people["L-2"].pk])
    ids = [people[key].pk for key in ("L-1", "L-2", "A-1")]
    chosen = {action: [p.external_id for p in respondents_for_action(scope=world["district"], survey=survey,
                                                                      action=action, respondent_ids=ids)]
              for action in PeopleAction}
    assert chosen == {"withdraw": ["L-1"], "restore": ["L-2"], "reissue": ["L-1"], "slips": ["L-1"]}
    everyone = respondents_for_action(scope=world["district"], survey=survey, action=PeopleAction.WITHDRAW,
                                      search=PeopleSearch(query="ruiz", by=SearchBy.NAME))
    assert [p.external_id for p in everyone] == ["L-1", "J-1"]


def test_the_people_chosen_for_each_action_say_who_it_takes_and_who_it_leaves_out_and_why(world):
    people, survey, district = world["people"], world["survey"], world["district"]
    respondent_withdraw(scope=COMMAND_LINE, survey=survey, respondent_ids=[people["L-2"].pk])
    ids = [people[key].pk for key in ("L-1", "L-2", "A-1")]  # Adams is not the district's
    chosen = {action: people_chosen(scope=district, survey=survey, action=action, respondent_ids=ids)
              for action in PeopleAction}
    assert {action: (c.chosen, c.ids, c.left_out) for action, c in chosen.items()} == {
        "withdraw": (3, [people["L-1"].pk], {LeftOut.ALREADY_WITHDRAWN: 1, LeftOut.OUT_OF_SCOPE: 1}),
        "restore": (3, [people["L-2"].pk], {LeftOut.NOT_WITHDRAWN: 1, LeftOut.OUT_OF_SCOPE: 1}),
        "reissue": (3, [people["L-1"].pk], {LeftOut.WITHDRAWN: 1, LeftOut.OUT_OF_SCOPE: 1}),
        "slips": (3, [people["L-1"].pk], {LeftOut.WITHDRAWN: 1, LeftOut.OUT_OF_SCOPE: 1}),
    }
    left_out = people_left_out(scope=district, survey=survey, action=PeopleAction.SLIPS, respondent_ids=ids)
    assert [(person.external_id, person.left_out) for person in left_out] == [("L-2", LeftOut.WITHDRAWN)]
    # Who has no school has no slip; everyone a search finds is chosen, and none of them is out of the scope.
    without_school = make_respondents(survey, external_id="N-1", display_name="Nora Ruiz")
    slips = people_chosen(scope=COMMAND_LINE, survey=survey, action=PeopleAction.SLIPS,
                          search=PeopleSearch(query="ruiz", by=SearchBy.NAME))
    assert slips.chosen == 4 and slips.left_out == {LeftOut.NO_SCHOOL: 1}
    assert without_school.pk not in slips.ids and len(slips.ids) == 3
    assert people_chosen(scope=COMMAND_LINE, survey=survey, action=PeopleAction.SLIPS, limit=3,
                         search=PeopleSearch(query="ruiz", by=SearchBy.NAME)) is None


def test_what_an_action_takes_is_what_it_leaves_out_the_rest_of(world):
    """The confirm page's two lists and the actions' own filter are one rule: every person is in one of them."""
    people, survey = world["people"], world["survey"]
    respondent_withdraw(scope=COMMAND_LINE, survey=survey, respondent_ids=[people["J-2"].pk])
    make_respondents(survey, external_id="N-1")
    everyone = list(Respondent.objects.values_list("pk", flat=True))
    for action in PeopleAction:
        taken = {p.pk for p in respondents_for_action(scope=COMMAND_LINE, survey=survey, action=action,
                                                      respondent_ids=everyone)}
        left = {p.pk for p in people_left_out(scope=COMMAND_LINE, survey=survey, action=action,
                                              respondent_ids=everyone)}
        assert taken | left == set(everyone) and not taken & left, action
        assert set(people_chosen(scope=COMMAND_LINE, survey=survey, action=action,
                                 respondent_ids=everyone).ids) == taken


# ---------------------------------------------------------------- actions on many

def entries(action):
    return list(AuditEntry.objects.filter(action=action).order_by("detail").values_list("detail", "school__code",
                                                                                          "username"))


def test_withdrawing_and_restoring_many_touch_only_the_scope_and_audit_each_person(world, django_assert_max_num_queries):
    people, survey = world["people"], world["survey"]
    everyone = [person.pk for person in people.values()]
    with django_assert_max_num_queries(6):  # savepoint, lock, update, audit insert, release (+ none per person)
        assert respondent_withdraw(scope=world["district"], survey=survey, respondent_ids=everyone) == 4
    assert set(Respondent.objects.filter(withdrawn_at__isnull=False).values_list("external_id", flat=True)) == {
        "L-1", "L-2", "J-1", "J-2"}
    assert entries("withdrawn") == [("respondent J-1", "JEF", "d1"), ("respondent J-2", "JEF", "d1"),
                                    ("respondent L-1", "LIN", "d1"), ("respondent L-2", "LIN", "d1")]
    assert respondent_restore(scope=world["school"], survey=survey, respondent_ids=everyone) == 2
    assert entries("restored") == [("respondent L-1", "LIN", "lin"), ("respondent L-2", "LIN", "lin")]


def test_new_codes_for_many_replace_only_the_scopes_not_withdrawn_and_audit_each(world):
    people, survey = world["people"], world["survey"]
    respondent_withdraw(scope=COMMAND_LINE, survey=survey, respondent_ids=[people["L-2"].pk])
    before = dict(Respondent.objects.values_list("external_id", "access_code"))
    assert respondents_reissue_codes(scope=world["district"], survey=survey,
                                     respondent_ids=[person.pk for person in people.values()]) == 3
    after = dict(Respondent.objects.values_list("external_id", "access_code"))
    assert {key for key in after if after[key] != before[key]} == {"L-1", "J-1", "J-2"}
    assert len(set(after.values())) == 6
    assert [detail for detail, _, _ in entries("code_reissued")] == ["respondent J-1", "respondent J-2",
                                                                     "respondent L-1"]
    with pytest.raises(PermissionDenied):
        respondents_reissue_codes(scope=world["analyst"], survey=survey, respondent_ids=[people["L-1"].pk])


def test_the_slips_of_people_chosen_across_schools_are_one_pdf_school_by_school_audited_per_person(world):
    people, survey = world["people"], world["survey"]
    out = io.BytesIO()
    ids = [person.pk for person in people.values()]
    count = slips_print_people(scope=world["district"], survey=survey, respondent_ids=ids,
                               login_url="https://survey.example.org/", stream=out)
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages]
    text = "".join(pages)
    assert count == 4
    for key in ("L-1", "L-2", "J-1", "J-2"):
        assert people[key].formatted_access_code in text
    assert people["A-1"].formatted_access_code not in text
    assert text.index("Jefferson High") < text.index("Lincoln Middle")  # by school code: JEF, then LIN
    # No cover sheets (they are no class to hand out to): the four slips of two schools and three grades on a page.
    assert len(pages) == 1 and "For the teacher" not in text and "Grade 7:" not in text
    assert [(detail, school) for detail, school, _ in entries("slips_printed")] == [
        ("1 slip, respondent J-1", "JEF"), ("1 slip, respondent J-2", "JEF"), ("1 slip, respondent L-1", "LIN"),
        ("1 slip, respondent L-2", "LIN")]


def test_a_big_selections_slips_are_a_job_of_its_people_in_scope(world):
    people, survey = world["people"], world["survey"]
    user_scope = world["district"]
    job = slips_job_start_people(scope=user_scope, survey=survey,
                                 respondent_ids=[person.pk for person in people.values()])
    assert job.school is None and job.slips_total == 4 and sorted(job.respondent_ids) == sorted(
        people[key].pk for key in ("L-1", "L-2", "J-1", "J-2"))
    done = slips_job_run(job_id=job.pk, login_url="https://survey.example.org/")
    assert done.status == "done" and done.slips_done == 4
    pages = [page.extract_text() for page in PdfReader(done.file.open("rb")).pages]
    text = "".join(pages)
    assert people["J-2"].formatted_access_code in text and people["A-2"].formatted_access_code not in text
    assert len(pages) == 1 and "For the teacher" not in text  # no cover sheets
    assert AuditEntry.objects.filter(action="slips_printed").count() == 4


def test_a_people_slips_job_whose_file_is_never_stored_audits_no_slip_as_printed(world, monkeypatch):
    from django.db.models.fields.files import FieldFile

    people, survey = world["people"], world["survey"]
    job = slips_job_start_people(scope=world["district"], survey=survey,
                                 respondent_ids=[people[key].pk for key in ("L-1", "J-1")])

    def storage_down(*args, **kwargs):
        raise OSError("the object store is down")

    monkeypatch.setattr(FieldFile, "save", storage_down)
    with pytest.raises(OSError):
        slips_job_run(job_id=job.pk, login_url="https://survey.example.org/")
    job.refresh_from_db()
    assert job.status == "failed" and "object store is down" in job.error
    assert not AuditEntry.objects.filter(action="slips_printed").exists()


def test_a_school_s_grade_counts_are_in_grade_order_k_first_and_no_grade_last(lincoln):
    from rosters.selectors import grade_counts

    survey = make_survey()
    for grade, count in (("10", 2), ("", 1), ("9", 1), ("K", 3), ("PK", 1), ("Grade 2", 1)):
        make_respondents(survey, count, school=lincoln, grade=grade)
    assert grade_counts(scope=COMMAND_LINE, survey=survey, school=lincoln) == [
        ("PK", 1), ("K", 3), ("Grade 2", 1), ("9", 1), ("10", 2), ("", 1)]
