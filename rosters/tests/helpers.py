"""What the roster tests share: a roster file's header, and uploading, checking and applying one as a coordinator
would through the services."""
from django.core.files.uploadedfile import SimpleUploadedFile

from rosters.importing import roster_apply, roster_apply_start, roster_check, roster_upload

HEADER = "external_id,school_code,grade,role,language,display_name\n"


def upload(scope, survey, content, name="roster.csv"):
    data = content.encode("utf-8") if isinstance(content, str) else content
    return roster_upload(scope=scope, survey=survey, file=SimpleUploadedFile(name, data), filename=name)


def check(scope, survey, content, name="roster.csv"):
    return roster_check(roster_id=upload(scope, survey, content, name).pk)


def apply(scope, roster):
    roster_apply_start(scope=scope, roster_id=roster.pk)
    return roster_apply(roster_id=roster.pk)
