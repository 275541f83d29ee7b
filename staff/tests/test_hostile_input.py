"""Hostile input to the staff screens: numbers too large for any column in a URL, a form or a query string are
answered 404 or with the form's error, never 500."""
import re

import pytest
from django.test import Client

from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from staff.tests.helpers import office_signed_in, staff_routes

pytestmark = pytest.mark.django_db
PASSWORD = "a long staff passphrase"
# Beyond SQLite's and PostgreSQL's bigint (2**63 - 1), and far beyond.
HUGE = (2 ** 63, 10 ** 30)


def signed_in_office():
    client = Client(raise_request_exception=False)
    office_signed_in(client)
    return client


def test_every_staff_url_with_a_number_too_large_for_its_column_is_answered_404(lincoln, survey):
    make_respondents(survey, school=lincoln)
    client = signed_in_office()
    numbered = [route for route in staff_routes() if re.search(r"<(int|id):", route)]
    assert len(numbered) >= 10, numbered  # the sweep sees the rosters', slips', people's, exports' and accounts'
    answers = {}
    for route in numbered:
        for number in HUGE:
            url = re.sub(r"<(int|id):\w+>", str(number), route.replace("<slug:slug>", survey.slug))
            url = url.replace("<str:school_code>", "LIN")
            for method in (client.get, client.post):
                answers[f"{method.__name__.upper()} {url}"] = method(url).status_code
    # 405: a GET of a view that takes only POST, refused before the id is read.
    assert {where: status for where, status in answers.items() if status not in (404, 405)} == {}
    assert set(answers.values()) & {404} and all(answers[where] == 404 for where in answers if "POST" in where)


def test_a_staff_account_url_beyond_the_id_column_is_a_404_and_one_within_it_too(db):
    client = signed_in_office()
    assert client.get(f"/staff/accounts/{10 ** 30}/").status_code == 404
    assert client.get(f"/staff/accounts/{2 ** 63 - 1}/").status_code == 404


def test_withdrawing_a_respondent_id_too_large_for_its_column_is_a_form_error_and_changes_nobody(lincoln, survey):
    person = make_respondents(survey, school=lincoln)
    client = signed_in_office()
    for number in (*HUGE, "1" * 5000):
        response = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/",
                               {"respondent": [str(person.pk), str(number)], "confirm": "on"}, follow=True)
        assert response.status_code == 200, number
        assert "Select a valid choice" in response.content.decode()
    assert not Respondent.objects.filter(withdrawn_at__isnull=False).exists()
    restored = client.post(f"/staff/surveys/{survey.slug}/people/restore/",
                           {"respondent": str(10 ** 30), "confirm": "on"}, follow=True)
    assert restored.status_code == 200 and "Select a valid choice" in restored.content.decode()


def test_a_page_number_or_a_date_at_the_calendars_end_in_a_staff_query_string_is_answered_without_a_500(
        lincoln, survey):
    client = signed_in_office()
    for query in (f"page={10 ** 30}", "until=9999-12-31", "since=9999-12-31", "since=0001-01-01",
                  "until=0001-01-01"):
        assert client.get(f"/staff/audit/?{query}").status_code == 200, query
    assert client.get(f"/staff/surveys/{survey.slug}/schools/LIN/?page={10 ** 30}").status_code == 200
    preview = client.get(f"/staff/surveys/{survey.slug}/preview/?page={10 ** 30}&answer-age={'9' * 5000}")
    assert preview.status_code == 200


# ---------------------------------------------------------------- survey files

def load(client, name, content):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post("/staff/surveys/import/", {"file": SimpleUploadedFile(name, content)})


@pytest.mark.parametrize(("content", "expected"), [
    (b"[" * 90_000 + b"]" * 90_000, "hostile.json: its objects and lists nest too deep to be read"),
    (b'{"slug": "s", "pages": [{"questions": [{"min": ' + b"9" * 5000 + b"}]}]}",
     "hostile.json, line 1 column 48: a number of 5,000 digits"),
    (b'{"slug": "s", "title": "T", "pages": [' + b",".join([b"{}"] * 350_000) + b"]}",
     "hostile.json: too many values for a survey document (700,003 objects, lists and commas; at most 100,000)"),
])
def test_a_hostile_survey_file_is_refused_on_the_load_page_with_its_reason(content, expected):
    from surveys.models import Survey

    response = load(signed_in_office(), "hostile.json", content)
    page = response.content.decode()
    assert response.status_code == 400 and "The survey has 1 problem: nothing was written" in page
    assert expected in page and not Survey.objects.exists()


def test_a_survey_whose_min_its_column_cannot_hold_is_refused_on_the_load_page(tmp_path):
    from surveys.models import Survey
    from surveys.tests.helpers import CHOICES, page, row, workbook

    rows = page(row("integer", "n", "N?", "¿N?", constraint=". >= 1099511627776"),
                row("text", "t", "T?", "¿T?", relevant="(" * 400 + "${n} > 1" + ")" * 400))
    response = load(signed_in_office(), "form.xlsx", workbook(tmp_path / "form.xlsx", rows, CHOICES).read_bytes())
    text = response.content.decode()
    assert response.status_code == 400 and "The survey has 2 problems: nothing was written" in text
    assert "survey sheet, row 3, column constraint: must be from -2,147,483,648 to 2,147,483,647" in text
    assert "survey sheet, row 4, column relevant: brackets nest deeper than 20 levels" in text
    assert not Survey.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_nul_character_in_a_staff_query_or_path_is_answered_without_a_500(lincoln, survey):
    """PostgreSQL refuses NUL in text (SQLite does not): each place a typed text reaches a query."""
    client = signed_in_office()
    slug = survey.slug
    for path in (f"/staff/surveys/{slug}/schools/LIN/?q=a%00b", f"/staff/surveys/{slug}/schools/LIN/?grade=%00",
                 f"/staff/surveys/{slug}/schools/LIN/slips.pdf?grade=%00", f"/staff/surveys/{slug}/schools/A%00/",
                 "/staff/schools/?q=%00", "/staff/audit/?username=%00", f"/staff/surveys/{slug}/monitoring/?grade=%00",
                 f"/staff/surveys/{slug}/schools/LIN/not-finished.csv?grade=%00"):
        assert client.get(path).status_code < 500, path
