"""The staff screens' downloads: a response the view writes its file into, named for what it holds."""
from django.http import HttpResponse
from django.utils.text import slugify

CSV = "text/csv; charset=utf-8"
PDF = "application/pdf"


def attachment(content_type, filename):
    """Return an empty download response named ``filename``; the caller writes the file into it."""
    response = HttpResponse(content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def school_file_name(survey, school, grade, what):
    """Return the name of a school's file ``what`` (``slips.pdf``), of one grade where ``grade`` is not None:
    ``small-LIN-grade-7-slips.pdf``."""
    of_grade = f"-grade-{slugify(grade)}" if grade is not None else ""
    return f"{survey.slug}-{school.code}{of_grade}-{what}"
