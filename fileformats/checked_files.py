"""What a file staff upload to be checked and then applied whole keeps (the school directory, a staff file): the
abstract model its app's own model extends with the rows that applying writes."""
from collections.abc import Iterable
from typing import TypeVar

from django.conf import settings
from django.db import models, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from fileformats.tables import Problem


class CheckedFileNotReady(Exception):
    """The file cannot be applied or discarded now (not checked, has problems, or done already)."""


class CheckedFile(models.Model):
    """A file checked first (its problems, and the counts of what applying it would do, kept here), then applied
    or discarded on confirmation by the person who uploaded it."""

    class Status(models.TextChoices):
        CHECKED = "checked", _("Checked: ready to apply")
        REFUSED = "refused", _("Not applied: the file has problems")
        APPLIED = "applied", _("Applied")
        DISCARDED = "discarded", _("Discarded: not applied")

    created_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    uploaded_from = models.CharField(max_length=45, blank=True)
    source_filename = models.CharField(max_length=255, blank=True)
    described = models.CharField(max_length=40, blank=True, help_text=_("The file as read: CSV (UTF-8), XLSX."))
    status = models.CharField(max_length=10, choices=Status.choices)
    # What applying would do, against the data when last checked: {"new": n, ...}, per kind for several kinds.
    counts = models.JSONField(default=dict, blank=True)
    # [[row, column, value, reason], ...]
    problem_list = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.source_filename or self._meta.verbose_name} ({self.get_status_display()})"

    @property
    def applied(self) -> bool:
        return self.status == self.Status.APPLIED

    def problems(self) -> list[Problem]:
        return [Problem(*problem) for problem in self.problem_list]


def problem_rows(problems: Iterable[Problem]) -> list[list[object]]:
    """``problems`` as a CheckedFile's ``problem_list`` keeps them."""
    return [[p.row, p.column, p.value, p.reason] for p in problems]


_Checked = TypeVar("_Checked", bound=CheckedFile)


def checked_file_discard(*, uploads: QuerySet[_Checked], upload_id: int,
                         not_ready: type[CheckedFileNotReady] = CheckedFileNotReady) -> _Checked:
    """Drop a checked file of ``uploads`` (those the person may discard) without applying it; return it. Raise
    ``not_ready`` (the app's own CheckedFileNotReady) unless it is CHECKED."""
    with transaction.atomic(durable=True):
        upload = uploads.select_for_update(of=("self",)).get(pk=upload_id)
        if upload.status != CheckedFile.Status.CHECKED:
            raise not_ready(f"This file is {upload.get_status_display().lower()}: it cannot be discarded.")
        upload.status = CheckedFile.Status.DISCARDED
        upload.save(update_fields=["status"])
    return upload
