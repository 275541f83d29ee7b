"""A database of the release before the apps by capability (respondents 0014, every model in ``respondents``)
upgrades to the new layout with nothing lost, no table rebuilt, and the old release still able to work on it.

The old data is written through the historical models of that release (what its code saw), the upgrade is the
real ``migrate``, and what follows reads through today's models. On PostgreSQL (``make test-stack``) the tables
keep their identity (their ``pg_class`` oids) and the audit log's trigger still refuses an UPDATE.
"""
import datetime
import uuid

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from accounts.models import AuditEntry, StaffMember
from exports.models import ExportJob
from infra.sql import table
from monitoring.models import CompletionSummary
from respondents.models import Answer, PageSave, Respondent, School
from rosters.models import DirectoryUpload, Roster, RosterProblem, RosterRow, SlipsJob
from surveys.tests.factories import make_survey

BEFORE = [("respondents", "0014_export_format_labels"), ("accounts", None), ("rosters", None), ("exports", None),
          ("monitoring", None), ("results", None)]
MOVED = {"directoryupload": "rosters", "roster": "rosters", "rosterrow": "rosters", "rosterproblem": "rosters",
         "slipsjob": "rosters", "exportjob": "exports", "completionsummary": "monitoring",
         "staffmember": "accounts", "auditentry": "accounts"}
NOW = datetime.datetime(2026, 11, 20, 9, 30, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(targets):
    """Migrate the database to ``targets`` (today's leaves for None) and return the models as they are there."""
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate(targets or leaves)
    left_out = {app for app, _ in targets or ()}
    nodes = [node for node in leaves if node[0] not in left_out]
    nodes += [(app, name) for app, name in targets or () if name]
    return executor.loader.project_state(nodes, at_end=True).apps


def table_oids():
    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, oid FROM pg_class WHERE relname LIKE 'respondents\\_%%' AND relkind = 'r'")
        return dict(cursor.fetchall())


@pytest.fixture
def old_release():
    """The historical models of the release before the move, on a database migrated back to it; the database
    goes forward to today's layout afterwards, whatever the test did."""
    survey = make_survey()  # surveys' tables do not move: today's service writes them
    try:
        yield migrate(BEFORE), survey
    finally:
        migrate(None)


def old_data(apps, survey):
    """One of everything the moved models hold, written as the old release wrote it, with an old content type and
    a group that holds its permission."""
    old = {name: apps.get_model("respondents", name) for name in [
        "District", "School", "Roster", "RosterRow", "RosterProblem", "Respondent", "PageSave", "Answer",
        "StaffMember", "AuditEntry", "ExportJob", "SlipsJob", "CompletionSummary", "DirectoryUpload"]}
    User = apps.get_model("auth", "User")
    ContentType_ = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group_ = apps.get_model("auth", "Group")
    # The old release's content types (migrating back gave today's their old app label), no newer ones.
    ContentType_.objects.filter(app_label__in=set(MOVED.values())).delete()
    roster_type, _ = ContentType_.objects.get_or_create(app_label="respondents", model="roster")
    permission, _ = Permission.objects.get_or_create(content_type=roster_type, codename="view_roster",
                                                     defaults={"name": "Can view roster"})
    Group_.objects.create(name="roster readers").permissions.add(permission)

    question = survey.pages.first().questions.first()
    district = old["District"].objects.create(code="D9", name="District Nine")
    school = old["School"].objects.create(code="S9", name="School Nine", district=district)
    user = User.objects.create(username="coordinator-nine")
    roster = old["Roster"].objects.create(survey_id=survey.pk, name="grade 9", uploaded_by=user, status="checked",
                                          counts=[{"school": "S9", "new": 1}], rows_expected=1)
    old["RosterRow"].objects.create(roster=roster, row=2, external_id="nine-1", school_id=school.pk,
                                    access_code="ABCDEFGHJK")
    old["RosterProblem"].objects.create(roster=roster, row=3, column="grade", value="x", reason="not a grade")
    respondent = old["Respondent"].objects.create(survey_id=survey.pk, roster=roster, external_id="nine-1",
                                                  access_code="KJHGFEDCBA", school=school, grade="9",
                                                  status="in_progress", current_page=2, started_at=NOW)
    old["PageSave"].objects.create(respondent=respondent, save_id=uuid.uuid4(), page=1, nav="next", next_page=2,
                                   answer_count=1, saved_at=NOW)
    old["Answer"].objects.create(respondent=respondent, question_id=question.pk, value="yes", saved_at=NOW)
    staff = old["StaffMember"].objects.create(user=user, role="school")
    staff.schools.add(school)
    staff.districts.add(district)
    old["AuditEntry"].objects.create(at=NOW, user=user, username=user.username, action="roster_checked",
                                     survey_id=survey.pk, school_id=school.pk, address="192.0.2.9", detail="1 new")
    old["ExportJob"].objects.create(survey_id=survey.pk, requested_by=user, format="csv", status="done",
                                    rows_total=1, rows_done=1, size=99)
    old["SlipsJob"].objects.create(survey_id=survey.pk, school=school, requested_by=user, slips_total=1)
    old["CompletionSummary"].objects.create(survey_id=survey.pk, level="school", district=district, school=school,
                                            rostered=1, in_progress=1, pages={"2": 1}, refreshed_at=NOW)
    old["DirectoryUpload"].objects.create(uploaded_by=user, status="applied", counts={"schools": {"new": 1}})
    return roster_type.pk, permission.pk


def test_a_database_of_the_old_layout_upgrades_with_every_row_and_link_kept(old_release):
    apps, survey = old_release
    roster_type, permission = old_data(apps, survey)
    oids = table_oids()

    migrate(None)

    respondent = Respondent.objects.select_related("roster", "school__district").get(external_id="nine-1")
    assert respondent.roster.name == "grade 9" and respondent.roster.survey_id == survey.pk
    assert respondent.school.district.code == "D9" and respondent.current_page == 2
    assert Answer.objects.get(respondent=respondent).value == "yes"
    assert PageSave.objects.get(respondent=respondent).next_page == 2
    roster = Roster.objects.get(pk=respondent.roster_id)
    assert [(row.external_id, row.school_id) for row in RosterRow.objects.filter(roster=roster)] == [
        ("nine-1", respondent.school_id)]
    assert RosterProblem.objects.get(roster=roster).reason == "not a grade"
    assert list(roster.respondents.all()) == [respondent] and roster.counts == [{"school": "S9", "new": 1}]
    staff = StaffMember.objects.get(user__username="coordinator-nine")
    assert list(staff.schools.all()) == [respondent.school] and staff.districts.get().code == "D9"
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.survey_id, entry.school_id, entry.detail) == (
        AuditEntry.Action.ROSTER_CHECKED, survey.pk, respondent.school_id, "1 new")
    assert ExportJob.objects.get().size == 99 and SlipsJob.objects.get().school == respondent.school
    assert CompletionSummary.objects.get().pages == {"2": 1}
    assert DirectoryUpload.objects.get().applied
    # The content type moved (same row), so the group's permission is now the rosters app's.
    assert ContentType.objects.get_for_model(Roster).pk == roster_type
    assert Group.objects.get(name="roster readers").permissions.get().pk == permission
    assert not ContentType.objects.filter(app_label="respondents", model__in=MOVED).exists()
    # No table was made again (tables of later releases are new: respondents_loginlimithit).
    after = table_oids()
    assert {name: after.get(name) for name in oids} == oids


def test_the_old_release_still_reads_and_writes_once_the_new_one_has_migrated(old_release):
    """A rolling deploy: the new release migrates while workers of the old one still serve."""
    apps, survey = old_release
    old_data(apps, survey)
    migrate(None)

    OldRoster, OldAudit = apps.get_model("respondents", "Roster"), apps.get_model("respondents", "AuditEntry")
    roster = OldRoster.objects.create(survey_id=survey.pk, name="written by the old release")
    OldAudit.objects.create(at=NOW, username="old-worker", action="roster_applied")
    assert Roster.objects.get(pk=roster.pk).name == "written by the old release"
    assert AuditEntry.objects.filter(username="old-worker").exists()
    assert apps.get_model("respondents", "StaffMember").objects.get().schools.get().pk == School.objects.get(code="S9").pk


def test_the_upgrade_runs_backwards_too(old_release):
    """A release rolled back goes back to the old state with its content types."""
    apps, survey = old_release
    roster_type, _ = old_data(apps, survey)
    migrate(None)
    apps = migrate(BEFORE)
    assert apps.get_model("respondents", "Roster").objects.get().name == "grade 9"
    assert apps.get_model("contenttypes", "ContentType").objects.get(pk=roster_type).app_label == "respondents"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's")
def test_the_audit_log_is_still_append_only_in_the_database_after_the_upgrade(old_release):
    apps, survey = old_release
    old_data(apps, survey)
    migrate(None)
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table(AuditEntry)} SET detail = 'changed'")
