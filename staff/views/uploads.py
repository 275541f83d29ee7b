"""What the pages that take a file to check share (the school directory, a staff file; a roster's check runs as a
job, ``staff/views/rosters.py``)."""
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _

from fileformats.checked_files import CheckedFileNotReady
from fileformats.tables import TableError, local_path


def check_uploaded_file(request, form, check):
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


def discard_checked_file(request, *, uploads, upload_id, discard, upload_page, done_page):
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
