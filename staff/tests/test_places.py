"""The pickers' search as you type (staff:places): the places of the caller's scope whose code or name holds a
text, best first, capped, as JSON."""
import pytest

from accounts.models import StaffMember
from respondents.tests.factories import make_school, make_staff, staff_signed_in
from rosters.directory import PICKER_MATCHES

pytestmark = pytest.mark.django_db
Role = StaffMember.Role


def found(client, **query):
    response = client.get("/staff/places/", query)
    assert response.status_code == 200, response.content
    assert response["Cache-Control"].startswith("max-age=0") or "no-store" in response["Cache-Control"]
    return response.json()


def test_a_coordinator_finds_only_the_schools_of_their_scope_by_code_or_name(client, lincoln, adams, coordinator):
    make_school("LIH", "Lincoln Heights", ("D1", "District One"))
    staff_signed_in(client, coordinator)
    assert found(client, kind="school", q="lin") == {"matches": [
        {"code": "LIN", "name": "Lincoln", "label": "Lincoln (LIN)", "district": "District One (D1)"}],
        "more": False}
    assert found(client, kind="school", q="adams")["matches"] == []
    assert found(client, kind="district", q="")["matches"] == [
        {"code": "D1", "name": "District One", "label": "District One (D1)", "district": ""}]


def test_a_state_administrator_s_schools_come_best_first_narrowed_by_a_district_and_capped(client, lincoln, adams):
    make_school("LIH", "Lincoln Heights", ("D1", "District One"))
    make_school("BLI", "Abe Lincoln", ("D2", "District Two"))
    staff_signed_in(client, make_staff(Role.STATE_ADMIN))
    assert [m["code"] for m in found(client, kind="school", q="Lincoln")["matches"]] == ["LIN", "LIH", "BLI"]
    assert [m["code"] for m in found(client, kind="school", q="lincoln", district="District Two (D2)")[
        "matches"]] == ["BLI"]
    assert [m["code"] for m in found(client, kind="school", q="lincoln", district="nowhere")["matches"]] == [
        "LIN", "LIH", "BLI"]  # a district that names nothing narrows nothing: the form says so when sent
    for n in range(PICKER_MATCHES):
        make_school(f"X{n}", f"Extra {n}", ("D3", "District Three"))
    many = found(client, kind="school", q="")
    assert len(many["matches"]) == PICKER_MATCHES and many["more"]


def test_a_bad_search_is_refused_and_an_anonymous_one_signs_in_first(client, lincoln):
    assert client.get("/staff/places/", {"kind": "school", "q": "lin"}).status_code == 302
    staff_signed_in(client, make_staff(Role.ANALYST))
    assert client.get("/staff/places/", {"kind": "respondent", "q": "x"}).status_code == 400
    assert client.get("/staff/places/", {"kind": "school", "q": "x" * 300}).status_code == 400
