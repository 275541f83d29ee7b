"""The exports page: the filter's form (every problem at once), the list of one's exports a page at a time, each
with its filter in words."""
import html
import re
from datetime import date

import pytest

from accounts.models import AuditEntry, StaffMember
from exports.filters import ExportFilter
from exports.jobs import export_job_start
from exports.models import ExportJob
from exports.options import ExportOptions
from infra.sql import table
from respondents.models import District, Respondent
from respondents.tests.factories import make_respondents, make_staff, scope_of
from respondents.tests.factories import staff_signed_in as signed_in
from staff.views.lists import PAGE_SIZE

pytestmark = pytest.mark.django_db


def ask(client, survey, **fields):
    data = {"format": "csv", "answers": "values", "multiple": "joined", "roster_fields": ["external_id"], **fields}
    return client.post(f"/staff/surveys/{survey.slug}/exports/", data)


@pytest.fixture
def analyst(client, lincoln, adams):
    """An analyst of District One (Lincoln), signed in."""
    user = make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="d1")
    signed_in(client, user)
    return user


def test_the_form_shows_every_problem_of_the_filter_at_once_and_queues_nothing(client, survey, analyst):
    response = ask(client, survey, statuses=["in_progress"], districts="D2", schools="ADA NOPE",
                   completed_from="2026-11-30", completed_to="2026-11-01")
    page = html.unescape(response.content.decode())
    assert response.status_code == 400 and not ExportJob.objects.exists()
    summary = page[page.index('class="error-summary"'):page.index("</div>", page.index('class="error-summary"'))]
    for message in ("Status: A completion date range keeps only respondents who completed",
                    "Districts: District D2 is outside your scope",
                    "Schools: School ADA is outside your scope",
                    "Schools: No school has the code 'NOPE'.",
                    "Completed to: The completion range ends (2026-11-01) before it starts (2026-11-30)."):
        assert message in summary, message
    # What was typed stays in the form, to be mended.
    assert 'value="ADA NOPE"' in page and 'value="2026-11-30"' in page
    assert "You may export the schools you are named to, in District One (D1)." in page


def test_a_filtered_export_is_queued_with_its_filter_which_the_list_and_its_page_say_in_words(
        client, survey, analyst, lincoln):
    make_respondents(survey, 2, school=lincoln)
    Respondent.objects.filter(pk=Respondent.objects.order_by("pk").first().pk).update(status="completed")
    response = ask(client, survey, statuses=["completed"], districts="D1")
    job = ExportJob.objects.get()
    assert response.status_code == 302 and job.export_filter == ExportFilter(statuses=("completed",),
                                                                             districts=("D1",))
    assert job.status == ExportJob.Status.DONE and job.rows_done == 1  # Celery runs in-process here
    listed = client.get(f"/staff/surveys/{survey.slug}/exports/").content.decode()
    assert '<td class="export-filter">Status completed; district D1</td>' in listed
    detail = client.get(response.url).content.decode()
    assert '<span class="export-filter">Status completed; district D1</span>' in detail
    assert "filter: status completed; district D1" in AuditEntry.objects.get(action="export_requested").detail


def test_an_unfiltered_export_is_listed_as_every_respondent(client, survey, analyst):
    ask(client, survey)
    assert '<td class="export-filter">Every respondent</td>' in client.get(
        f"/staff/surveys/{survey.slug}/exports/").content.decode()


def test_the_exports_list_is_paged_newest_first(client, survey, analyst):
    scope = scope_of(analyst)
    jobs = [export_job_start(scope=scope, survey=survey, format="csv", options=ExportOptions())
            for _ in range(PAGE_SIZE + 1)]
    first = client.get(f"/staff/surveys/{survey.slug}/exports/").content.decode()
    assert first.count('<td class="export-filter">') == PAGE_SIZE and "Page 1 of 2" in first
    assert f"/exports/{jobs[-1].pk}/" in first and f"/exports/{jobs[0].pk}/" not in first
    second = client.get(f"/staff/surveys/{survey.slug}/exports/?page=2").content.decode()
    assert second.count('<td class="export-filter">') == 1 and f"/exports/{jobs[0].pk}/" in second


def test_the_exports_page_reads_a_fixed_number_of_queries_however_many_exports(client, survey, analyst):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    scope = scope_of(analyst)
    for n in range(PAGE_SIZE + 5):
        export_job_start(scope=scope, survey=survey, format="csv", options=ExportOptions(),
                         export_filter=ExportFilter(statuses=("completed",), districts=("D1",)) if n % 2
                         else ExportFilter())
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/staff/surveys/{survey.slug}/exports/?page=1")
    assert response.status_code == 200
    # session, user, staff member and its schools (the scope), the survey, the count and the page of exports,
    # the districts of the scope (the form's help)
    print(f"\nexports page (105 exports): {len(queries)} queries")
    assert len(queries) <= 8, "\n".join(q["sql"] for q in queries)


def test_counting_says_how_many_people_the_filter_holds_keeps_the_form_and_queues_nothing(
        client, survey, analyst, lincoln, adams):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    people = make_respondents(survey, 3, school=lincoln)
    make_respondents(survey, 2, school=adams)  # another district: not the analyst's
    Respondent.objects.filter(pk__in=[p.pk for p in people[:2]]).update(status="completed")
    with CaptureQueriesContext(connection) as queries:
        response = ask(client, survey, statuses=["completed"], districts="D1", count="1")
    page = html.unescape(response.content.decode())
    assert response.status_code == 200 and not ExportJob.objects.exists()
    assert ('<p class="export-count" id="export-count" role="status"' in page
            and "<strong>This export will hold 2 people (status completed; district D1).</strong>" in page)
    assert 'value="D1"' in page and 'value="completed" id="id_statuses_0" checked' in page  # the form as it was
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()
              and table(Respondent) in q["sql"]]
    assert len(counts) == 1, counts
    everyone = html.unescape(ask(client, survey, count="1").content.decode())
    assert "This export will hold 3 people (every respondent)." in everyone


def test_a_de_identified_count_leaves_out_the_withdrawn_and_says_small_schools_go_too(
        client, survey, analyst, lincoln, settings):
    from rosters.services import respondent_withdraw

    settings.EXPORT_SMALL_SCHOOL_MIN = 5
    people = make_respondents(survey, 3, school=lincoln)
    respondent_withdraw(scope=scope_of(make_staff(StaffMember.Role.STATE_ADMIN)), respondent_ids=[people[0].pk],
                        survey=survey)
    page = html.unescape(ask(client, survey, deidentified="on", count="1").content.decode())
    assert ("This export will hold at most 2 people (every respondent): de-identified, it leaves out the schools "
            "with fewer than 5 of them.") in page
    assert "This export will hold 3 people (every respondent)." in html.unescape(
        ask(client, survey, count="1").content.decode())


def test_a_count_of_nobody_says_so_and_a_filter_that_will_not_do_is_refused_before_any_count(
        client, survey, analyst, lincoln):
    make_respondents(survey, 1, school=lincoln)
    nobody = html.unescape(ask(client, survey, statuses=["completed"], count="1").content.decode())
    assert "This export would hold nobody: no respondent you may export matches the filter (status completed)." in nobody
    refused = ask(client, survey, districts="D2", count="1")
    page = html.unescape(refused.content.decode())
    assert refused.status_code == 400 and "District D2 is outside your scope" in page
    assert "This export will hold" not in page and "would hold" not in page and not ExportJob.objects.exists()


def test_a_count_is_written_with_thousands_separated():
    from exports.filters import NO_FILTER
    from staff.views.exports import count_said

    assert count_said(1234, export_filter=NO_FILTER, deidentified=False) == (
        "This export will hold 1,234 people (every respondent).")
    assert count_said(1, export_filter=ExportFilter(schools=("LIN",)), deidentified=False) == (
        "This export will hold 1 person (school LIN).")


# ---------------------------------------------------------------- places by name (issue 33, point 11)

def test_districts_and_schools_may_be_given_by_their_names_or_codes_separated_by_commas(client, survey, lincoln,
                                                                                          adams):
    from respondents.tests.factories import make_school

    make_school("HAY", "Hayes High", ("D1", "District One"))
    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN))
    response = ask(client, survey, districts="district two", schools="Lincoln, hayes")
    assert response.status_code == 302, response.content.decode()
    assert ExportJob.objects.get().export_filter == ExportFilter(districts=("D2",), schools=("HAY", "LIN"))
    ask(client, survey, schools="Hayes High (HAY),LIN")  # "Name (CODE)" as the results picker writes it
    assert ExportJob.objects.latest("pk").export_filter == ExportFilter(schools=("HAY", "LIN"))


def test_a_name_that_names_nothing_in_the_scope_is_a_message_on_its_field(client, survey, analyst):
    response = ask(client, survey, schools="Adams", districts="Nowhere")
    assert response.status_code == 400 and not ExportJob.objects.exists()
    assert response.context["form"].errors == {
        "districts": ["No district in your scope has the code or name “Nowhere”."],
        "schools": ["No school in your scope has the code or name “Adams”."]}
    assert '<p class="error" id="id_schools-error">' in response.content.decode()


def test_a_name_several_schools_hold_is_offered_to_choose_from_and_the_choice_replaces_only_it(
        client, survey, analyst):
    from respondents.tests.factories import make_school

    make_school("LIH", "Lincoln Heights", ("D1", "District One"))
    make_school("HAY", "Hayes", ("D1", "District One"))
    response = ask(client, survey, schools="hayes, linc", completed_from="2026-11-02")
    assert response.status_code == 400 and not ExportJob.objects.exists()
    body = html.unescape(response.content.decode())
    assert "Several schools match “linc”: choose one below" in body
    radios = re.findall(r'<input type="radio" name="schools_choice" value="([^"]+)"> ([^<]+)</label>', body)
    assert radios == [("hayes, LIN", "Lincoln (LIN), District One"),
                      ("hayes, LIH", "Lincoln Heights (LIH), District One")]
    assert '<input type="hidden" name="schools_was" value="hayes, linc">' in body
    # Typed again since: the choice offered for the old text is not taken.
    again = ask(client, survey, schools="lincoln heights", schools_choice="hayes, LIN", schools_was="hayes, linc")
    assert again.status_code == 302 and ExportJob.objects.get().export_filter == ExportFilter(schools=("LIH",))
    chosen = ask(client, survey, schools="hayes, linc", schools_choice="hayes, LIN", schools_was="hayes, linc",
                 completed_from="2026-11-02")
    assert chosen.status_code == 302
    assert ExportJob.objects.latest("pk").export_filter == ExportFilter(schools=("HAY", "LIN"),
                                                                        completed_from=date(2026, 11, 2))
