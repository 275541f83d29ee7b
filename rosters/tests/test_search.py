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
from rosters.selectors import PeopleAction, PeopleSearch, SearchBy, respondents_for_action, respondents_search
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
    assert found(world, world["district"], query="rU", by=SearchBy.NAME) == ["L-1", "J-1"]  # under a trigram


def test_an_external_id_is_found_from_its_start_case_aside(world):
    assert found(world, world["district"], query="j-", by=SearchBy.EXTERNAL_ID) == ["J-1", "J-2"]
    assert found(world, world["district"], query="-1", by=SearchBy.EXTERNAL_ID) == []
    assert found(world, world["district"], query="A-1", by=SearchBy.EXTERNAL_ID) == []  # Adams is not theirs


def test_a_code_is_found_whole_however_it_is_typed_and_only_in_the_scope(world):
    ana, eva = world["people"]["L-1"], world["people"]["A-1"]
    typed = ana.formatted_access_code.lower().replace("-", " ")
    assert found(world, world["school"], query=typed, by=SearchBy.CODE) == ["L-1"]
    assert found(world, world["school"], query=ana.access_code[:5], by=SearchBy.CODE) == []
    assert found(world, world["school"], query=eva.access_code, by=SearchBy.CODE) == []
    assert found(world, world["school"], query="not a code", by=SearchBy.CODE) == []


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
    analyst = world["analyst"]
    assert found(world, analyst, grade="9") == ["J-2"]
    assert found(world, analyst, query="ruiz", by=SearchBy.NAME) == []
    assert found(world, analyst, query=world["people"]["L-1"].access_code, by=SearchBy.CODE) == []


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
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    assert count == 4
    for key in ("L-1", "L-2", "J-1", "J-2"):
        assert people[key].formatted_access_code in text
    assert people["A-1"].formatted_access_code not in text
    assert text.index("Jefferson High") < text.index("Lincoln Middle")  # by school code: JEF, then LIN
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
    text = "".join(page.extract_text() for page in PdfReader(done.file.open("rb")).pages)
    assert people["J-2"].formatted_access_code in text and people["A-2"].formatted_access_code not in text
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
