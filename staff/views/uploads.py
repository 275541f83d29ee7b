"""What the pages that take a file to check share (the school directory, a staff file; a roster's check runs as a
job, ``staff/views/rosters.py``)."""
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
