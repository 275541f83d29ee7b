"""Test data, made through the real services."""
import uuid

from respondents.models import Respondent
from rosters.services import RosterEntry, roster_create
from surveys.tests.factories import replicated


def make_respondents(survey, count=1, **fields):
    roster_create(survey=survey, name="Test roster", entries=[RosterEntry(**fields) for _ in range(count)])
    respondents = sorted(Respondent.objects.filter(survey=survey).order_by("-pk")[:count], key=lambda r: r.pk)
    return replicated(respondents[0] if count == 1 else respondents)


def login(client, respondent):
    """Log ``client`` in as ``respondent`` through the login view."""
    response = client.post("/", {"access_code": respondent.formatted_access_code})
    assert response.status_code == 302, response.content
    return response


def save_page(client, number, answers=None, *, nav="next", save_id=None, ajax=True):
    """POST page ``number`` as the survey page does; return the response."""
    data = {"save_id": str(save_id or uuid.uuid4()), "nav": nav, **(answers or {})}
    headers = {"X-Requested-With": "XMLHttpRequest"} if ajax else {}
    return client.post(f"/take/page/{number}/", data, headers=headers)


def make_school(code="LIN", name="Lincoln", district=("D1", "District One")):
    """A school of the directory (and its district), made through the directory service."""
    from rosters.directory import schools_ensure

    return schools_ensure([(district[0], district[1], code, name)])[code]


def make_staff(role, *, schools=(), districts=(), username=None, password="a long staff passphrase"):
    """A staff account with ``role`` (StaffMember.Role) covering ``schools`` or ``districts``."""
    from django.contrib.auth import get_user_model

    from accounts.models import StaffMember

    user = get_user_model().objects.create_user(username=username or f"{role}-{uuid.uuid4().hex[:6]}",
                                                password=password)
    member = StaffMember.objects.create(user=user, role=role)
    member.schools.set(schools)
    member.districts.set(districts)
    return user


def staff_signed_in(client, user, password="a long staff passphrase"):
    """Sign ``user`` (a staff account of ``make_staff``) in to the staff area through its sign-in page; return
    ``client``."""
    response = client.post("/staff/login/", {"username": user.username, "password": password})
    assert response.status_code == 302, response.content
    return client


def scope_of(user, address="192.0.2.7"):
    from accounts.scopes import staff_scope

    return staff_scope(user=user, address=address)
