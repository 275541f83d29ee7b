"""Staff accounts (a role and the districts or schools it covers) and the append-only audit log of what they do."""
from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from fileformats.checked_files import CheckedFile
from respondents.models import District, School
from surveys.models import Survey

NAME_MAX = 200


class StaffMember(models.Model):
    """A staff account's role, and the districts or schools it covers (``accounts/scopes.py`` reads it)."""

    class Role(models.TextChoices):
        STATE_ADMIN = "state_admin", _("State administrator")
        DISTRICT_COORDINATOR = "district", _("District coordinator")
        SCHOOL_COORDINATOR = "school", _("School coordinator")
        ANALYST = "analyst", _("Analyst")

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_member")
    role = models.CharField(max_length=12, choices=Role.choices)
    # The person's name as the office writes it ("Dr. María José Pérez-Ruiz"): one text, not Django's first and last
    # names, which fit neither a name with one part nor one written family name first.
    name = models.CharField(max_length=NAME_MAX, blank=True)
    districts = models.ManyToManyField(District, blank=True, related_name="+")
    schools = models.ManyToManyField(School, blank=True, related_name="+")

    class Meta:
        db_table = "respondents_staffmember"  # the name it had in respondents: no table is rebuilt

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()})"


class SignOnIdentity(models.Model):
    """A staff account as an identity provider knows it: the issuer and the subject (``sub``) of its OpenID Connect
    tokens, which, unlike an email address, never change or pass to someone else (OpenID Connect Core, 5.7).
    Recorded at an account's first single sign-on (``accounts/sign_on.py``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_on_identities")
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    linked_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="sign_on_identity_unique")]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"


class StaffUpload(CheckedFile):
    """A staff file (accounts in bulk) a state administrator uploaded: checked first (its accounts, counts, changes
    and problems kept here; a state's staff are some thousands of rows), applied or discarded on confirmation
    (``accounts/staff_import.py``)."""

    # [[line, username, email, name, role, [district codes], [school codes]], ...]: what applying writes; the
    # counts are {"new", "changed", "unchanged"}.
    account_rows = models.JSONField(default=list, blank=True)
    # [[line, username, what applying changes], ...] of the new and changed accounts, when last checked.
    changes = models.JSONField(default=list, blank=True)


class AuditLogIsAppendOnly(Exception):
    """An attempt to change or delete an audit entry."""


class AuditQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: Any) -> NoReturn:
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never changed")

    def delete(self) -> NoReturn:
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never deleted")


class AuditEntry(models.Model):
    """One staff action: who, when, what, which survey and school, from which address.

    Append-only. Nothing in the app changes or deletes an entry: the model and
    its queryset refuse, the admin shows it read-only, and on PostgreSQL a
    trigger refuses UPDATE and DELETE (migration 0005). The references keep no
    foreign-key constraint, so that deleting a user or a survey never has to
    touch the log; ``username`` keeps the name as it was.
    """

    class Action(models.TextChoices):
        SIGN_IN = "sign_in", _("Signed in")
        SIGN_IN_FAILED = "sign_in_failed", _("Sign-in failed")
        SIGN_OUT = "sign_out", _("Signed out")
        SCHOOLS_IMPORTED = "schools_imported", _("School directory imported")
        ROSTER_CHECKED = "roster_checked", _("Roster checked (dry run)")
        ROSTER_APPLIED = "roster_applied", _("Roster applied")
        SLIPS_PRINTED = "slips_printed", _("Code slips printed")
        CODES_DOWNLOADED = "codes_downloaded", _("Codes downloaded")
        CODE_REISSUED = "code_reissued", _("Code reissued")
        RESPONDENT_WITHDRAWN = "withdrawn", _("Respondent withdrawn")
        RESPONDENT_RESTORED = "restored", _("Respondent restored")
        STAFF_CHANGED = "staff_changed", _("Staff account changed")
        EXPORT_REQUESTED = "export_requested", _("Export requested")
        EXPORT_DOWNLOADED = "export_downloaded", _("Export downloaded")
        SURVEY_LOADED = "survey_loaded", _("Survey loaded")
        SURVEY_REVISED = "survey_revised", _("Survey given a new version")
        SURVEY_PUBLISHED = "survey_published", _("Survey published")
        ROSTER_DISCARDED = "roster_discarded", _("Roster discarded")
        CODES_SHOWN = "codes_shown", _("Codes shown on a page")
        ADMIN_CHANGED = "admin_changed", _("Changed in /admin/")
        SURVEY_DATES_CHANGED = "survey_dates", _("Survey opening or closing time changed")
        STAFF_IMPORT_CHECKED = "staff_import_checked", _("Staff file checked (dry run)")
        STAFF_IMPORTED = "staff_imported", _("Staff file applied")
        PASSWORD_MAIL_SENT = "password_mail_sent", _("Set-your-password email sent")
        PASSWORD_RESET_ASKED = "password_reset_asked", _("Password reset asked for")
        PASSWORD_SET = "password_set", _("Password set from an emailed link")
        SIGN_ON_UNLINKED = "sign_on_unlinked", _("Single sign-on link removed")
        EMAIL_CHANGE_TOLD = "email_change_told", _("Old address told of an email change")
        LOGIN_LIMIT_LIFTED = "login_limit_lifted", _("Respondent login limit lifted")
        TEXT_ANSWERS_READ = "text_answers_read", _("Text answers read")

    at = models.DateTimeField(db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False,
                             null=True, blank=True, related_name="+")
    username = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    survey = models.ForeignKey(Survey, on_delete=models.DO_NOTHING, db_constraint=False, null=True, blank=True,
                               related_name="+")
    school = models.ForeignKey(School, on_delete=models.DO_NOTHING, db_constraint=False, null=True, blank=True,
                               related_name="+")
    address = models.CharField(max_length=45, blank=True)
    detail = models.TextField(blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        db_table = "respondents_auditentry"  # the name it had in respondents: no table is rebuilt
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.username or '-'} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditLogIsAppendOnly("the audit log is append-only: entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AuditLogIsAppendOnly("the audit log is append-only: entries are never deleted")


