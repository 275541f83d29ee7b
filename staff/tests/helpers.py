"""What the staff screens' tests share: the staff password of the factories, a roster file's header,
uploading a roster through the page, and every staff URL pattern."""
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import StaffMember
from respondents.tests.factories import make_staff, staff_signed_in

PASSWORD = "a long staff passphrase"
HEADER = "external_id,school_code,grade,role,language,display_name\n"


def upload(client, survey, content, name="roster.csv"):
    file = SimpleUploadedFile(name, content.encode() if isinstance(content, str) else content)
    return client.post(f"/staff/surveys/{survey.slug}/rosters/new/", {"file": file}, follow=True)


def staff_routes():
    """Yield every staff URL pattern's route (``/staff/surveys/<slug:slug>/rosters/<id:roster_id>/``)."""
    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)
    yield from (route for route in walk(get_resolver().url_patterns, "/") if route.startswith("/staff/"))


def office_signed_in(client, username="office"):
    """Sign a new state administrator called ``username`` in on ``client``; return the account."""
    user = make_staff(StaffMember.Role.STATE_ADMIN, username=username)
    staff_signed_in(client, user)
    return user
