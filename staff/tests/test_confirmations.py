"""Actions hard to undo ask first: withdrawing people, reissuing a code, publishing a survey. A GET (or a POST
without ``confirm``, as another page's form sends) shows what will happen and changes nothing; the confirm page's
button does it. After a reissue the person's page offers their replacement slip, a one-slip PDF."""
import io

import pytest
from pypdf import PdfReader

from accounts.models import AuditEntry, StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


# ---------------------------------------------------------------- withdrawing

def test_withdrawing_the_chosen_people_first_lists_who_and_how_many_and_only_its_button_withdraws(
        client, survey, lincoln, coordinator):
    ana, ben = make_respondents(survey, 2, school=lincoln, grade="7")
    Respondent.objects.filter(pk=ana.pk).update(external_id="s-ana", display_name="Ana Ruiz")
    signed_in(client, coordinator)
    back = f"/staff/surveys/{survey.slug}/schools/LIN/"
    withdraw = f"/staff/surveys/{survey.slug}/people/withdraw/"
    page = client.get(withdraw, {"respondent": [ana.pk, ben.pk], "next": back})
    text = page.content.decode()
    assert page.status_code == 200 and "Withdraw 2 people?" in text and "s-ana" in text and "Ana Ruiz" in text
    assert 'name="confirm"' in text and f'href="{back}"' in text and "Withdraw 2 people</button>" in text
    assert not Respondent.objects.filter(withdrawn_at__isnull=False).exists()

    done = client.post(withdraw, {"respondent": [ana.pk, ben.pk], "next": back, "confirm": "on"}, follow=True)
    assert done.redirect_chain[-1][0] == back and "2 withdrawn" in done.content.decode()
    assert Respondent.objects.filter(withdrawn_at__isnull=False).count() == 2
    assert AuditEntry.objects.filter(action="withdrawn").count() == 2


def test_a_withdrawal_posted_without_its_confirmation_shows_the_confirm_page_and_withdraws_nobody(
        client, survey, lincoln, coordinator):
    person = make_respondents(survey, school=lincoln)
    signed_in(client, coordinator)
    page = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/", {"respondent": [person.pk]})
    assert page.status_code == 200 and "Withdraw 1 person?" in page.content.decode()
    assert not Respondent.objects.get(pk=person.pk).is_withdrawn
    assert not AuditEntry.objects.filter(action="withdrawn").exists()


def test_the_withdraw_confirm_page_leaves_out_people_of_other_schools_and_those_withdrawn_already(
        client, survey, lincoln, adams, coordinator):
    here = make_respondents(survey, school=lincoln)
    gone = make_respondents(survey, school=lincoln)
    elsewhere = make_respondents(survey, school=adams)
    signed_in(client, coordinator)
    withdraw = f"/staff/surveys/{survey.slug}/people/withdraw/"
    client.post(withdraw, {"respondent": [gone.pk], "confirm": "on"})
    text = client.get(withdraw, {"respondent": [here.pk, gone.pk, elsewhere.pk]}).content.decode()
    assert "Withdraw 1 person?" in text
    assert "1 of 3 people: 1 already withdrawn, 1 not in your schools left out." in text
    assert f'name="respondent" value="{here.pk}"' in text
    assert f'value="{elsewhere.pk}"' not in text and f'value="{gone.pk}"' not in text
    nobody = client.get(withdraw, {"respondent": [elsewhere.pk]}).content.decode()
    assert "Nobody to withdraw" in nobody and 'name="confirm"' not in nobody
    assert "0 of 1 person: 1 not in your schools left out." in nobody


def test_the_roster_and_person_pages_ask_for_the_withdraw_confirm_page_by_get(client, survey, lincoln, coordinator):
    person = make_respondents(survey, school=lincoln)
    signed_in(client, coordinator)
    page = client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/").content.decode()
    assert f'<form method="get" action="/staff/surveys/{survey.slug}/people/withdraw/">' in page
    assert f'<form method="get" action="/staff/surveys/{survey.slug}/people/{person.pk}/reissue/">' in page


# ---------------------------------------------------------------- reissuing, and the replacement slip

def test_reissuing_a_code_asks_first_then_the_persons_page_offers_the_replacement_slip(
        client, survey, lincoln, coordinator):
    person = make_respondents(survey, school=lincoln, external_id="s1", grade="7")
    old = person.access_code
    signed_in(client, coordinator)
    reissue = f"/staff/surveys/{survey.slug}/people/{person.pk}/reissue/"
    for asked in (client.get(reissue), client.post(reissue)):
        text = asked.content.decode()
        assert asked.status_code == 200 and "Issue a new code for s1?" in text and "stops working at once" in text
    assert Respondent.objects.get(pk=person.pk).access_code == old and not AuditEntry.objects.filter(
        action="code_reissued").exists()

    page = client.post(reissue, {"confirm": "on"}, follow=True).content.decode()
    person.refresh_from_db()
    assert person.access_code != old and person.formatted_access_code in page
    slip = f"/staff/surveys/{survey.slug}/people/{person.pk}/slip.pdf"
    assert "Print this person's replacement slip (PDF)" in page and f'href="{slip}"' in page
    again = client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/").content.decode()
    assert "replacement slip" not in again and "Print this person's slip (PDF)" in again  # once, after it


def test_the_replacement_slip_is_one_page_with_the_new_code_and_is_audited(client, survey, lincoln, coordinator):
    person = make_respondents(survey, school=lincoln, external_id="s1", grade="7", display_name="Ana Ruiz")
    others = make_respondents(survey, 3, school=lincoln, grade="7")
    signed_in(client, coordinator)
    client.post(f"/staff/surveys/{survey.slug}/people/{person.pk}/reissue/", {"confirm": "on"})
    person.refresh_from_db()
    response = client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/slip.pdf")
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{survey.slug}-s1-slip.pdf"'
    pages = PdfReader(io.BytesIO(response.content)).pages
    text = pages[0].extract_text()
    assert len(pages) == 1 and person.formatted_access_code in text and "Ana Ruiz" in text
    assert not any(other.formatted_access_code in text for other in others)
    entry = AuditEntry.objects.get(action="slips_printed")
    assert (entry.detail, entry.school_id, entry.username) == ("1 slip, respondent s1", lincoln.pk, "lin-coord")


def test_nobody_prints_the_slip_of_a_person_outside_their_schools_withdrawn_or_as_an_analyst(
        client, survey, lincoln, adams, coordinator):
    elsewhere = make_respondents(survey, school=adams)
    withdrawn = make_respondents(survey, school=lincoln)
    signed_in(client, coordinator)
    client.post(f"/staff/surveys/{survey.slug}/people/withdraw/", {"respondent": [withdrawn.pk], "confirm": "on"})
    for person in (elsewhere, withdrawn):
        assert client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/slip.pdf").status_code == 404
    client.logout()
    signed_in(client, make_staff(Role.ANALYST, username="analyst"))
    person = make_respondents(survey, school=lincoln)
    assert client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/slip.pdf").status_code == 403
    assert not AuditEntry.objects.filter(action="slips_printed").exists()


# ---------------------------------------------------------------- publishing

@pytest.fixture
def draft(db):
    from surveys.models import Survey
    from surveys.tests.factories import make_survey

    survey = make_survey()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    survey.refresh_from_db()
    return survey


def test_publishing_asks_first_saying_how_many_people_can_then_log_in_and_only_its_button_publishes(client, draft):
    from surveys.models import Survey

    make_respondents(draft, 3)
    signed_in(client, make_staff(Role.STATE_ADMIN, username="office"))
    publish = f"/staff/surveys/{draft.slug}/publish/"
    # The preview's button posts without confirm: the same page as a GET, nothing published.
    for asked in (client.get(publish), client.post(publish)):
        text = asked.content.decode()
        assert asked.status_code == 200 and f"Publish “{draft.title}”?" in text
        assert "<dt>People on its rosters</dt><dd>3</dd>" in text and "as soon as it is published" in text
    assert Survey.objects.get(pk=draft.pk).status == "draft"
    assert not AuditEntry.objects.filter(action="survey_published").exists()

    done = client.post(publish, {"confirm": "on"}, follow=True)
    assert "Published: respondents can take it." in done.content.decode()
    assert Survey.objects.get(pk=draft.pk).status == "open"
    assert AuditEntry.objects.filter(action="survey_published").count() == 1
    assert "is published" in client.get(publish).content.decode()
