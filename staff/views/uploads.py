"""What the pages that take a file to check share (the school directory, a staff file; a roster's check runs as a
job, ``staff/views/rosters.py``)."""
from typing import Protocol, TypeVar

from django.contrib import messages
from django.db.models import QuerySet
from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _

from accounts.scopes import Scope
from fileformats.checked_files import CheckedFile, CheckedFileNotReady
from fileformats.tables import StrPath, TableError, local_path
from staff.access import StaffRequest

Checked_co = TypeVar("Checked_co", bound=CheckedFile, covariant=True)
Checked = TypeVar("Checked", bound=CheckedFile)


class FileCheck(Protocol[Checked_co]):
    """A service that checks an uploaded file (``school_directory_check``, ``staff_upload_check``)."""

    def __call__(self, *, scope: Scope, path: StrPath, filename: str = ...) -> Checked_co: ...


class FileDiscard(Protocol):
    """A service that discards a checked file (``school_directory_discard``, ``staff_upload_discard``)."""

    def __call__(self, *, scope: Scope, upload_id: int) -> CheckedFile: ...


def check_uploaded_file(request: StaffRequest, form: Form, check: FileCheck[Checked]) -> Checked | None:
    """Check the file of a posted, valid ``form`` (its field ``file``) with ``check(scope=, path=, filename=)`` and
    return what that returns; None for a form not posted or not valid, or for a file that cannot be read as a table
    (the reason is then on the form)."""
    if request.method != "POST" or not form.is_valid():
        return None
    upload = form.cleaned_data["file"]
    with local_path(upload) as path:
        try:
            return check(scope=request.scope, path=path, filename=upload.name)
        except TableError as error:
            form.add_error("file", str(error))
    return None


def discard_checked_file(request: StaffRequest, *, uploads: QuerySet[CheckedFile], upload_id: int,
                         discard: FileDiscard, upload_page: str, done_page: str) -> HttpResponse:
    """Discard one of ``uploads`` (the person's own) with the service ``discard``; back to ``upload_page`` with the
    reason when it cannot be, else to ``done_page``."""
    upload = get_object_or_404(uploads, pk=upload_id)
    try:
        discard(scope=request.scope, upload_id=upload.pk)
    except CheckedFileNotReady as error:
        messages.error(request, str(error))
        return redirect(upload_page, upload_id=upload.pk)
    messages.info(request, _("The file was discarded: nothing was applied."))
    return redirect(done_page)
