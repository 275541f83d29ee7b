"""A lost slip gets a new code (the old one stops at once, answers stay); a withdrawn respondent cannot log in."""
import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.scopes import COMMAND_LINE
from respondents import access_codes
from respondents.models import Answer, PageSave, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from rosters.services import respondent_reissue_code, respondent_restore, respondent_withdraw
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(client):
    """A respondent who saved page 1 and is on page 2, logged in on ``client``."""
    respondent = make_respondents(make_survey(), external_id="s-17")
    login(client, respondent)
    assert save_page(client, 1, {"q-colour": "red"}).json()["saved"]
    return respondent


def log_in_with(code):
    client = Client()
    return client, client.post("/", {"access_code": access_codes.format_code(code)})


def test_a_reissued_code_logs_in_and_resumes_where_the_old_one_stopped(started):
    old = started.access_code
    new = respondent_reissue_code(scope=COMMAND_LINE, respondent_id=started.pk)
    assert new != old and Respondent.objects.get(pk=started.pk).access_code == new
    _, refused = log_in_with(old)
    assert refused.status_code == 400 and "did not work" in refused.content.decode()
    client, logged_in = log_in_with(new)
    assert logged_in.status_code == 302
    assert client.get("/take/").context["definition"].number == 2
    assert dict(Answer.objects.filter(respondent=started).values_list("question__code", "value"))["colour"] == "red"


def test_the_session_of_the_old_code_ends_on_its_next_request_and_saves_nothing(client, started):
    respondent_reissue_code(scope=COMMAND_LINE, respondent_id=started.pk)
    refused = save_page(client, 2, {"q-safe": "1"})
    assert refused.status_code == 401 and refused.json()["login_url"] == "/"
    assert not PageSave.objects.filter(respondent=started, page=2).exists()
    assert client.get("/take/").status_code == 302  # to the login page


@pytest.mark.parametrize("change", ["reissue", "withdraw"])
def test_a_page_read_after_a_reissue_or_withdrawal_ends_the_session(client, started, change):
    # A page's content reads the respondent with its answers in one query (respondents.selectors.respondent_answers),
    # and is checked as /take/ checks it.
    if change == "reissue":
        respondent_reissue_code(scope=COMMAND_LINE, respondent_id=started.pk)
    else:
        respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[started.pk], survey=started.survey)
    refused = client.get("/take/page/2/", headers={"X-Requested-With": "XMLHttpRequest"})
    assert refused.status_code == 401 and refused.json()["login_url"] == "/"
    assert client.get("/take/page/2/").status_code == 302  # the session is over: to the login page


def test_a_save_made_before_the_reissue_is_still_answered_as_saved_when_retried(client, started):
    first = save_page(client, 2, {"q-safe": "1"}, save_id="6f1c5a4e-2a53-4d43-9a53-0d8f2b9a1c11")
    respondent_reissue_code(scope=COMMAND_LINE, respondent_id=started.pk)
    retried = save_page(client, 2, {"q-safe": "1"}, save_id="6f1c5a4e-2a53-4d43-9a53-0d8f2b9a1c11")
    assert retried.status_code == 200 and retried.json() == first.json()


def test_a_withdrawn_respondent_cannot_log_in_is_logged_out_and_can_be_restored(client, started):
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[started.pk], survey=started.survey)
    assert Respondent.objects.get(pk=started.pk).is_withdrawn
    assert save_page(client, 2, {"q-safe": "1"}).status_code == 401
    assert client.get("/take/").status_code == 302
    _, refused = log_in_with(started.access_code)
    assert refused.status_code == 400 and "no longer in use" in refused.content.decode()
    respondent_restore(scope=COMMAND_LINE, respondent_ids=[started.pk], survey=started.survey)
    again, logged_in = log_in_with(started.access_code)
    assert logged_in.status_code == 302 and again.get("/take/").context["definition"].number == 2


def test_reissue_code_prints_the_new_code_and_refuses_an_unknown_respondent(started):
    out = io.StringIO()
    call_command("reissue_code", started.survey.slug, "s-17", stdout=out)
    printed = out.getvalue().strip()
    assert access_codes.normalize(printed) == Respondent.objects.get(pk=started.pk).access_code != started.access_code
    with pytest.raises(CommandError, match="No respondent 'nobody'"):
        call_command("reissue_code", started.survey.slug, "nobody")
    with pytest.raises(CommandError, match="No respondent"):
        call_command("reissue_code", "no-such-survey", "s-17")


def test_reissue_withdraw_and_restore_reach_only_the_scope_and_are_audited():
    from django.core.exceptions import PermissionDenied

    from accounts.models import AuditEntry, StaffMember
    from respondents.tests.factories import make_school, make_staff, scope_of

    survey = make_survey()
    lincoln, adams = make_school("LIN", "Lincoln"), make_school("ADA", "Adams", ("D2", "Two"))
    mine = make_respondents(survey, external_id="mine", school=lincoln)
    theirs = make_respondents(survey, external_id="theirs", school=adams)
    school = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lin"))
    with pytest.raises(Respondent.DoesNotExist):
        respondent_reissue_code(scope=school, respondent_id=theirs.pk)
    assert respondent_withdraw(scope=school, respondent_ids=[mine.pk, theirs.pk], survey=survey) == 1
    assert respondent_restore(scope=school, respondent_ids=[mine.pk, theirs.pk], survey=survey) == 1
    assert Respondent.objects.get(pk=theirs.pk).access_code == theirs.access_code
    district = scope_of(make_staff(StaffMember.Role.DISTRICT_COORDINATOR, districts=[adams.district]))
    assert respondent_reissue_code(scope=district, respondent_id=theirs.pk) != theirs.access_code
    with pytest.raises(PermissionDenied):
        respondent_withdraw(scope=scope_of(make_staff(StaffMember.Role.ANALYST)), respondent_ids=[mine.pk],
                            survey=survey)
    assert list(AuditEntry.objects.order_by("id").values_list("action", "username", "school__code")) == [
        ("withdrawn", "lin", "LIN"), ("restored", "lin", "LIN"), ("code_reissued", district.username, "ADA")]


def test_a_person_without_an_external_id_is_named_by_row_in_the_audit_log_never_by_a_code(lincoln, slip_fonts):
    from accounts.models import AuditEntry
    from rosters.slips import respondent_slip_print

    survey = make_survey()
    person = make_respondents(survey, school=lincoln)
    old = person.access_code
    new = respondent_reissue_code(scope=COMMAND_LINE, respondent_id=person.pk)
    respondent_slip_print(scope=COMMAND_LINE, survey=survey, respondent_id=person.pk, login_url="http://x/",
                          stream=io.BytesIO())
    details = list(AuditEntry.objects.values_list("detail", flat=True))
    assert f"respondent #{person.pk}" in details and f"1 slip, respondent #{person.pk}" in details
    for code in (old, new):
        assert not [detail for detail in details if code in detail or access_codes.format_code(code) in detail]
