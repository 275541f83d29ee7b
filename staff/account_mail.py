"""The staff area's emails about an account's own change: its old address told that the email changed (what, by
whom, when), so that someone who had an administrator move their account elsewhere hears of it
(``accounts.staff_accounts.staff_emails_changed``). Written as the password emails are (``staff/password_mail.py``),
from templates in ``staff/templates/staff/email/``."""
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.base import BaseEmailBackend
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.dateformat import format as date_format

from accounts.scopes import Scope
from accounts.staff_accounts import email_change_notices_record
from staff.password_mail import messages_send_batched


def email_change_message(change: dict[str, Any], *, by: str, connection: BaseEmailBackend | None = None,
                         ) -> EmailMultiAlternatives:
    """The email to ``change["old"]`` saying that its account's address became ``change["new"]``, changed by ``by``
    (a user name), at ``change["at"]`` (ISO 8601; shown in the site's time zone, named)."""
    at = timezone.localtime(datetime.fromisoformat(change["at"]))
    context = {**change, "by": by, "when": date_format(at, "Y-m-d H:i T"), "site_url": settings.STAFF_SITE_URL}
    subject = render_to_string("staff/email/email_changed_subject.txt", context).strip()
    body = render_to_string("staff/email/email_changed.txt", context)
    return EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, [change["old"]], connection=connection)


def email_change_notices_send(*, scope: Scope, changes: Iterable[dict[str, Any]]) -> int:
    """Tell the old address of each of ``changes`` (``staff_emails_changed``'s) what changed, by whom and when, a
    batch per SMTP connection; audited per account. Return how many were sent."""
    return messages_send_batched(
        [change for change in changes if change["old"]],
        message=lambda change, connection: email_change_message(change, by=scope.username, connection=connection),
        record=lambda batch: email_change_notices_record(scope=scope, changes=batch))
