"""The search page of a survey's people across the scope, and its actions: a confirm page listing who (the ticked,
or everyone found), then the change; bad input answered with a message, nothing changed."""
import io

import pytest
from django.test import Client
from pypdf import PdfReader

from accounts.models import AuditEntry, StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import SlipsJob

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


@pytest.fixture
def district(client, survey, lincoln, adams):
    """A district coordinator of D1 (Lincoln, Jefferson) signed in; Ana and Ben Ruiz at Lincoln, Carla Ruiz at
    Jefferson, Eva Ruiz at Adams (D2)."""
    jefferson = make_school("JEF", "Jefferson", ("D1", "District One"))
    for school, external_id, name in [(lincoln, "s-ana", "Ana Ruiz"), (lincoln, "s-ben", "Ben Ruiz"),
                                      (jefferson, "s-carla", "Carla Ruiz"), (adams, "s-eva", "Eva Ruiz")]:
        make_respondents(survey, school=school, external_id=external_id, display_name=name, grade="7")
    signed_in(client, make_staff(Role.DISTRICT_COORDINATOR, districts=[lincoln.district], username="d1"))
    return client


def people(survey):
    return {person.external_id: person for person in Respondent.objects.filter(survey=survey)}


def test_a_name_search_finds_the_scopes_people_across_its_schools_with_codes_and_audits_the_codes_shown(
        district, survey):
    page = district.get(f"/staff/surveys/{survey.slug}/people/", {"q": "ruiz", "by": "name"})
    text = page.content.decode()
    assert page.status_code == 200 and "3 people found." in text
    assert "Ana Ruiz" in text and "Carla Ruiz" in text and "Eva Ruiz" not in text
    assert people(survey)["s-ana"].formatted_access_code in text
    assert AuditEntry.objects.get(action="codes_shown").detail.startswith("3 codes")
    assert 'name="action" value="withdraw"' in text and 'name="everyone"' in text


def test_an_analyst_sees_who_without_codes_or_names_and_no_actions(survey, district):
    client = signed_in(Client(), make_staff(Role.ANALYST, username="analyst"))
    text = client.get(f"/staff/surveys/{survey.slug}/people/").content.decode()
    assert "4 people found." in text and "s-eva" in text
    assert people(survey)["s-ana"].formatted_access_code not in text and "Ana Ruiz" not in text
    assert 'name="action"' not in text and 'value="code"' not in text and 'value="name"' not in text
    assert not AuditEntry.objects.filter(action="codes_shown").exists()
    refused = client.get(f"/staff/surveys/{survey.slug}/people/", {"q": "ruiz", "by": "name"})
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()
    assert client.post(f"/staff/surveys/{survey.slug}/people/act/", {"action": "withdraw", "everyone": "on"}
                       ).status_code == 403


def test_ticked_people_are_withdrawn_after_a_confirm_page_that_lists_them_and_restored_likewise(district, survey):
    who = people(survey)
    act = f"/staff/surveys/{survey.slug}/people/act/"
    back = f"/staff/surveys/{survey.slug}/people/?q=ruiz&by=name"
    chosen = {"action": "withdraw", "respondent": [who["s-ana"].pk, who["s-carla"].pk, who["s-eva"].pk],
              "next": back}
    confirm = district.post(act, chosen)
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "Withdraw 2 people?" in text
    assert "2 of 3 people: 1 not in your schools left out." in text
    assert "s-ana" in text and "s-carla" in text and "s-eva" not in text
    assert not Respondent.objects.filter(withdrawn_at__isnull=False).exists()
    done = district.post(act, {**chosen, "confirm": "on"}, follow=True)
    assert done.redirect_chain[-1][0] == back and "2 withdrawn: their codes" in done.content.decode()
    assert set(Respondent.objects.filter(withdrawn_at__isnull=False).values_list("external_id", flat=True)) == {
        "s-ana", "s-carla"}
    district.post(act, {"action": "restore", "respondent": [who["s-ana"].pk], "confirm": "on"})
    assert not Respondent.objects.get(pk=who["s-ana"].pk).is_withdrawn
    assert AuditEntry.objects.filter(action="withdrawn").count() == 2
    assert AuditEntry.objects.filter(action="restored").count() == 1


def test_everyone_a_search_finds_is_confirmed_by_count_and_asked_again_if_the_search_finds_others(
        district, survey, lincoln):
    act = f"/staff/surveys/{survey.slug}/people/act/"
    everyone = {"action": "reissue", "everyone": "on", "q": "ruiz", "by": "name", "grade": "", "status": ""}
    text = district.post(act, everyone).content.decode()
    assert "Give 3 people new codes?" in text and 'name="expected" value="3"' in text
    make_respondents(survey, school=lincoln, external_id="s-new", display_name="Dora Ruiz")
    again = district.post(act, {**everyone, "expected": "3", "confirm": "on"}, follow=True).content.decode()
    assert "finds 4 people now, not 3" in again and "Give 4 people new codes?" in again
    before = dict(Respondent.objects.values_list("external_id", "access_code"))
    unnumbered = district.post(act, {**everyone, "confirm": "on"}).content.decode()  # not from the confirm page
    assert "Give 4 people new codes?" in unnumbered
    assert dict(Respondent.objects.values_list("external_id", "access_code")) == before
    district.post(act, {**everyone, "expected": "4", "confirm": "on"})
    after = dict(Respondent.objects.values_list("external_id", "access_code"))
    assert {key for key in after if after[key] != before[key]} == {"s-ana", "s-ben", "s-carla", "s-new"}
    assert AuditEntry.objects.filter(action="code_reissued").count() == 4


def test_the_chosen_peoples_slips_come_as_one_pdf_and_many_as_a_job(district, survey, settings):
    who = people(survey)
    act = f"/staff/surveys/{survey.slug}/people/act/"
    pdf = district.post(act, {"action": "slips", "respondent": [who["s-ana"].pk, who["s-carla"].pk],
                              "confirm": "on"})
    assert pdf["Content-Type"] == "application/pdf"
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages)
    assert who["s-ana"].formatted_access_code in text and who["s-carla"].formatted_access_code in text
    assert who["s-ben"].formatted_access_code not in text
    settings.SLIPS_INLINE_MAX = 2
    job_page = district.post(act, {"action": "slips", "everyone": "on", "q": "ruiz", "by": "name",
                                   "expected": "3", "confirm": "on"}, follow=True)
    job = SlipsJob.objects.get()
    assert job.school is None and job.slips_total == 3 and job.status == "done"
    assert job_page.redirect_chain[-1][0] == f"/staff/surveys/{survey.slug}/slips/{job.pk}/"
    assert "3 people chosen" in job_page.content.decode()
    assert AuditEntry.objects.filter(action="slips_printed").count() == 5


@pytest.mark.parametrize("data, message", [
    ({"action": "withdraw"}, "Choose at least one person, or everyone the search finds."),
    ({"action": "withdraw", "respondent": ["x1"]}, "Select a valid choice"),
    ({"action": "explode", "respondent": ["1"]}, "Choose what to do."),
    ({"action": "withdraw", "everyone": "on", "status": "gone"}, "Select a valid choice"),
])
def test_bad_choices_are_refused_with_a_message_and_change_nothing(district, survey, data, message):
    back = f"/staff/surveys/{survey.slug}/people/?q=ruiz&by=name"
    page = district.post(f"/staff/surveys/{survey.slug}/people/act/", {**data, "next": back}, follow=True)
    assert page.redirect_chain[-1][0] == back and message in page.content.decode()
    assert not Respondent.objects.filter(withdrawn_at__isnull=False).exists()
    assert not AuditEntry.objects.exclude(action__in=["sign_in", "codes_shown"]).exists()


def test_a_page_out_of_range_or_not_a_number_shows_a_page_that_exists(district, survey):
    for asked in ("999", "x", "-1"):
        page = district.get(f"/staff/surveys/{survey.slug}/people/", {"page": asked})
        assert page.status_code == 200 and "3 people found." in page.content.decode()


def test_more_found_than_the_count_cap_says_so_and_takes_no_everyone(district, survey, monkeypatch):
    import staff.views.search

    monkeypatch.setattr(staff.views.search, "COUNT_CAP", 2)
    text = district.get(f"/staff/surveys/{survey.slug}/people/").content.decode()
    assert "More than 2 people found." in text and "id=\"id_everyone\"" not in text
    monkeypatch.setattr(staff.views.search, "SELECTION_MAX", 2)
    refused = district.post(f"/staff/surveys/{survey.slug}/people/act/",
                            {"action": "withdraw", "everyone": "on"}, follow=True)
    assert "The search finds more than 2 people" in refused.content.decode()


def test_the_survey_page_pages_its_schools_and_finds_them_by_district(client, survey, settings, monkeypatch):
    import staff.views.lists
    from rosters.directory import schools_ensure

    schools_ensure([(f"D{n % 2}", f"District {n % 2}", f"S{n:03d}", f"School {n}") for n in range(5)])
    signed_in(client, make_staff(Role.STATE_ADMIN, username="state"))
    monkeypatch.setattr(staff.views.lists, "PAGE_SIZE", 2)
    first = client.get(f"/staff/surveys/{survey.slug}/").content.decode()
    assert "5 schools." in first and "Page 1 of 3" in first and "School 0 (S000)" in first
    found = client.get(f"/staff/surveys/{survey.slug}/", {"q": "district 1"}).content.decode()
    assert "2 schools matching" in found and "S001" in found and "S000" not in found
    assert "No school matches" in client.get(f"/staff/surveys/{survey.slug}/", {"q": "zzz"}).content.decode()


# ---------------------------------------------------------------- one box; who is left out; new codes, then slips

def test_one_box_finds_a_name_whatever_its_accents_an_external_id_or_a_code(district, survey, lincoln):
    for external_id, name in [("g-1", "María García"), ("g-2", "JOSÉ GARCÍA"), ("g-3", "ana garcía")]:
        make_respondents(survey, school=lincoln, external_id=external_id, display_name=name)
    url = f"/staff/surveys/{survey.slug}/people/"
    page = district.get(url).content.decode()
    assert '<option value="anything">Name, external id or access code</option>' in page
    assert "A name on the slip (accents and case aside), the start of an external id or of an access code" in page
    for typed in ("garcia", "GARCÍA", "garcía"):
        text = district.get(url, {"q": typed}).content.decode()
        assert "3 people found." in text and "María García" in text and "JOSÉ GARCÍA" in text, typed
    ids = district.get(url, {"q": "S-"}).content.decode()  # the external ids (and any code starting with S)
    assert all(f">{external_id}</a>" in ids for external_id in ("s-ana", "s-ben", "s-carla")) and "s-eva" not in ids
    carla = people(survey)["s-carla"]
    typed = carla.formatted_access_code[:7].lower()  # "abcde-f", as read off a slip
    text = district.get(url, {"q": typed}).content.decode()
    assert "1 person found." in text and "Carla Ruiz" in text
    assert "1 person found." in district.get(url, {"q": typed, "by": "code"}).content.decode()
    assert "0 people found." in district.get(url, {"q": typed, "by": "name"}).content.decode()


def test_an_analyst_s_one_box_is_the_external_id(survey, district):
    client = signed_in(Client(), make_staff(Role.ANALYST, username="analyst"))
    url = f"/staff/surveys/{survey.slug}/people/"
    page = client.get(url).content.decode()
    assert 'value="anything"' not in page and "The start of an external id." in page
    assert "1 person found." in client.get(url, {"q": "s-ca"}).content.decode()
    code = people(survey)["s-carla"].access_code
    assert "0 people found." in client.get(url, {"q": code[:6]}).content.decode()
    assert "Select a valid choice" in client.get(url, {"q": "ruiz", "by": "anything"}).content.decode()


def test_every_confirm_page_says_how_many_of_those_chosen_it_takes_and_who_it_leaves_out_and_why(
        district, survey, lincoln, settings):
    from accounts.scopes import COMMAND_LINE
    from rosters.services import respondent_withdraw

    who = people(survey)
    respondent_withdraw(scope=COMMAND_LINE, survey=survey, respondent_ids=[who["s-ben"].pk])
    act = f"/staff/surveys/{survey.slug}/people/act/"
    ticked = [who[key].pk for key in ("s-ana", "s-ben", "s-carla", "s-eva")]  # Eva is of Adams, not D1
    said = {action: district.post(act, {"action": action, "respondent": ticked}).content.decode()
            for action in ("withdraw", "restore", "reissue", "slips")}
    assert "2 of 4 people: 1 already withdrawn, 1 not in your schools left out." in said["withdraw"]
    assert "1 of 4 people: 2 not withdrawn, 1 not in your schools left out." in said["restore"]
    assert "2 of 4 people: 1 withdrawn, 1 not in your schools left out." in said["reissue"]
    assert "2 of 4 people: 1 withdrawn, 1 not in your schools left out." in said["slips"]
    left_out = said["slips"].split('id="left-out-people"')[1].split("</table>")[0]
    assert "s-ben" in left_out and "Withdrawn" in left_out and "s-ana" not in left_out and "s-eva" not in left_out
    assert "Eva Ruiz" not in said["slips"]  # not theirs: counted, never named
    # Everyone a search finds: those it leaves out are of the scope.
    everyone = district.post(act, {"action": "withdraw", "everyone": "on", "q": "ruiz"}).content.decode()
    assert "Withdraw 2 people?" in everyone and "2 of 3 people: 1 already withdrawn left out." in everyone
    assert "Withdraw" in district.post(act, {"action": "withdraw", "respondent": [who["s-ana"].pk]}).content.decode()
    assert 'id="left-out"' not in district.post(act, {"action": "withdraw", "respondent": [who["s-ana"].pk]}
                                                ).content.decode()


def test_the_slips_confirm_page_says_what_the_pdf_will_hold(district, survey, settings):
    who = people(survey)
    act = f"/staff/surveys/{survey.slug}/people/act/"
    page = district.post(act, {"action": "slips", "respondent": [who["s-ana"].pk, who["s-carla"].pk]})
    text = page.content.decode()
    assert ("One PDF of 2 slips, school by school, eight a page, without cover sheets. Slips work like passwords"
            in text)
    assert 'data-download-done="Done: the PDF of 2 slips is downloaded. Hand each to its person only."' in text
    settings.SLIPS_INLINE_MAX = 1
    text = district.post(act, {"action": "slips", "respondent": [who["s-ana"].pk, who["s-carla"].pk]}
                         ).content.decode()
    assert "without cover sheets; that many are prepared in the background" in text
    assert "data-download-done" not in text  # the answer is the job's page, not a file


def test_new_codes_keep_the_same_people_chosen_with_their_slips_one_click_away(district, survey):
    who = people(survey)
    act = f"/staff/surveys/{survey.slug}/people/act/"
    back = f"/staff/surveys/{survey.slug}/people/?q={who['s-ana'].access_code}"
    done = district.post(act, {"action": "reissue", "respondent": [who["s-ana"].pk, who["s-carla"].pk],
                               "confirm": "on", "next": back}, follow=True)
    text = done.content.decode()
    kept_path = done.redirect_chain[-1][0]
    assert kept_path.startswith(f"/staff/surveys/{survey.slug}/people/kept/")
    assert "2 given new codes" in text and "2 people with new codes" in text
    assert "s-ana" in text and "s-carla" in text and "s-ben" not in text
    assert "One PDF of 2 slips, school by school, eight a page, without cover sheets." in text
    assert '<button type="submit" class="button primary">Print their slips</button>' in text
    assert f'href="{back}"' in text  # back to the search it came from
    token = kept_path.split("/kept/")[1].split("/")[0]
    now = people(survey)
    assert now["s-ana"].access_code != who["s-ana"].access_code
    pdf = district.post(act, {"action": "slips", "kept": token, "confirm": "on", "next": kept_path})
    assert pdf["Content-Type"] == "application/pdf"
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages]
    assert len(pages) == 1 and "For the teacher" not in pages[0]
    assert now["s-ana"].formatted_access_code in pages[0] and now["s-carla"].formatted_access_code in pages[0]
    assert who["s-ana"].formatted_access_code not in pages[0]
    # The kept list is the session's, of this survey only.
    other = signed_in(Client(), make_staff(Role.DISTRICT_COORDINATOR, districts=[now["s-ana"].school.district]))
    lost = other.get(kept_path, follow=True)
    assert lost.redirect_chain[-1][0] == f"/staff/surveys/{survey.slug}/people/"
    assert "That list of people is no longer kept: find them again." in lost.content.decode()
    assert "no longer kept" in district.post(act, {"action": "slips", "kept": "nope", "confirm": "on"},
                                             follow=True).content.decode()
    # A session keeps its three latest choices.
    for _ in range(3):
        district.post(act, {"action": "reissue", "respondent": [who["s-ben"].pk], "confirm": "on"})
    assert "no longer kept" in district.get(kept_path, follow=True).content.decode()


def test_a_slips_pdf_asked_for_with_a_token_answers_with_the_cookie_that_tells_the_page_it_is_done(
        district, survey, settings):
    who = people(survey)
    act = f"/staff/surveys/{survey.slug}/people/act/"
    chosen = {"action": "slips", "respondent": [who["s-ana"].pk], "confirm": "on"}
    pdf = district.post(act, {**chosen, "download": "a1b2c3d4e5f6"})
    cookie = pdf.cookies["staff_download"]
    assert cookie.value == "a1b2c3d4e5f6" and cookie["path"] == "/staff/" and cookie["samesite"] == "Strict"
    assert cookie["max-age"] == 120 and not cookie["httponly"]
    for token in ("", "short", "<script>", "a" * 41):
        assert "staff_download" not in district.post(act, {**chosen, "download": token}).cookies, token
    school = district.get(f"/staff/surveys/{survey.slug}/schools/LIN/slips.pdf", {"download": "0123456789ab"})
    assert school["Content-Type"] == "application/pdf" and school.cookies["staff_download"].value == "0123456789ab"
    one = district.get(f"/staff/surveys/{survey.slug}/people/{who['s-ana'].pk}/slip.pdf", {"download": "x" * 20})
    assert one.cookies["staff_download"].value == "x" * 20
    settings.SLIPS_INLINE_MAX = 1
    job_page = district.post(act, {"action": "slips", "everyone": "on", "q": "ruiz", "expected": "3",
                                   "confirm": "on"}, follow=True)
    text = job_page.content.decode()
    assert "One PDF of 3 slips, school by school, eight a page, without cover sheets." in text
    assert "Done: 3 slips printed into one PDF, ready to download." in text
    assert 'data-download-done="Done: the PDF of 3 slips is downloaded. Hand each to its person only."' in text
    download = district.get(job_page.redirect_chain[-1][0] + "download/", {"download": "feedfacecafe"})
    assert download.cookies["staff_download"].value == "feedfacecafe"


def test_a_school_s_page_is_the_same_one_box_within_its_school_and_lists_the_names_found(district, survey, lincoln):
    jefferson = make_school("JEF", "Jefferson", ("D1", "District One"))
    make_respondents(survey, school=lincoln, external_id="g-1", display_name="María García")
    make_respondents(survey, school=jefferson, external_id="g-2", display_name="José García")
    page = district.get(f"/staff/surveys/{survey.slug}/schools/LIN/", {"q": "GARCIA"}).content.decode()
    assert "1 person." in page and "María García" in page and "José García" not in page
    assert '<th scope="col">Name on the slip</th>' in page and 'value="school"' not in page
    code = people(survey)["s-ben"].access_code
    assert "Ben Ruiz" in district.get(f"/staff/surveys/{survey.slug}/schools/LIN/", {"q": code[:4]}).content.decode()
