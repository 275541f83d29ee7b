"""The staff screens' downloads: a response the view writes a file into, or a file a job stored; their names."""
import re
from typing import TypeVar

from django.db.models.fields.files import FieldFile
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.utils.text import slugify

from respondents.models import School
from surveys.models import Survey

CSV = "text/csv; charset=utf-8"
PDF = "application/pdf"
ZIP = "application/zip"

Response = TypeVar("Response", bound=HttpResponseBase)


def attachment(content_type: str, filename: str) -> HttpResponse:
    """Return an empty download response named ``filename``; the caller writes the file into it."""
    response = HttpResponse(content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# The cookie that tells the page a download came from that it is done (staff/static/staff/staff.js): its value is
# the token the page sent in ``download``; it says nothing else, and lives two minutes.
DOWNLOAD_COOKIE = "staff_download"
DOWNLOAD_TOKEN = re.compile(r"[A-Za-z0-9]{8,40}")


def download_done(request: HttpRequest, response: Response) -> Response:
    """Return ``response`` (a file being downloaded) with the cookie that tells the page it came from that it is
    done, when the page asked (a ``download`` token: see staff.js); without JavaScript, the page stays as it was."""
    token = (request.POST if request.method == "POST" else request.GET).get("download", "")
    if DOWNLOAD_TOKEN.fullmatch(token):
        response.set_cookie(DOWNLOAD_COOKIE, token, max_age=120, path="/staff/", samesite="Strict",
                            secure=request.is_secure(), httponly=False)  # read by the page's script
    return response


def school_file_name(survey: Survey, school: School, grade: str | None, what: str) -> str:
    """Return the name of a school's file ``what`` (``slips.pdf``), of one grade where ``grade`` is not None:
    ``small-LIN-grade-7-slips.pdf``."""
    of_grade = f"-grade-{slugify(grade)}" if grade is not None else ""
    return f"{survey.slug}-{school.code}{of_grade}-{what}"


def stored_file(file: FieldFile, content_type: str) -> FileResponse:
    """Return a download of a file a job stored (a FieldFile), read as it is sent, under its own name."""
    return FileResponse(file.open("rb"), as_attachment=True, filename=stored_name(file), content_type=content_type)


def stored_name(file: FieldFile) -> str:
    """Return the name of a stored file without its folders: ``small-xlsx.zip``."""
    return (file.name or "").rsplit("/", 1)[-1]
