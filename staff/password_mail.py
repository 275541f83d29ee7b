"""The staff area's password emails: "set your password" for a new account (and sent again from the staff list), and
the reset link, each to its own page with its own one-use tokens (``accounts/passwords.py``). Every link is on
``STAFF_SITE_URL``, never a request's Host: a forged Host header would otherwise put an attacker's site in the
email."""
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.mail import EmailMessage, EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import ngettext

from accounts.passwords import (
    invitation_refused,
    linked_ids,
    password_mails_sent_record,
    password_reset_asked_record,
    password_reset_recipients,
    password_reset_tokens,
    password_set_tokens,
    sign_on_only,
)
from accounts.scopes import Scope

Item = TypeVar("Item")

SEND_BATCH = 200  # messages per SMTP connection
# Each kind of email: the page its link opens, and the tokens that page accepts.
LINKS = {"set": ("staff:password-set", password_set_tokens), "reset": ("staff:password-reset-link",
                                                                        password_reset_tokens)}


def password_link(user: User, *, kind: str) -> str:
    """The absolute link that lets ``user`` set a password once, from an email of ``kind`` ("set" or "reset")."""
    url_name, tokens = LINKS[kind]
    path = reverse(url_name, kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                                     "token": tokens.make_token(user)})
    return f"{settings.STAFF_SITE_URL}{path}"


def lifetime_text(seconds: int) -> str:
    """A link's lifetime in words: "7 days", "1 hour", "30 minutes"."""
    for unit, (one, many) in ((86400, ("%(count)d day", "%(count)d days")),
                              (3600, ("%(count)d hour", "%(count)d hours"))):
        if seconds >= unit and seconds % unit == 0:
            return ngettext(one, many, seconds // unit) % {"count": seconds // unit}
    minutes = max(1, round(seconds / 60))
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}


def password_message(user: User, *, kind: str, connection: BaseEmailBackend | None = None,
                     ) -> EmailMultiAlternatives:
    """The email to ``user``: ``kind`` "set" (a new account) or "reset" (asked for), saying how long its link
    works."""
    context = {"user": user, "link": password_link(user, kind=kind), "site_url": settings.STAFF_SITE_URL,
               "lifetime": lifetime_text(LINKS[kind][1].lifetime()),
               "reset_lifetime": lifetime_text(password_reset_tokens.lifetime())}
    subject = render_to_string(f"staff/email/password_{kind}_subject.txt", context).strip()
    body = render_to_string(f"staff/email/password_{kind}.txt", context)
    return EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email], connection=connection)


def messages_send_batched(items: Iterable[Item], *, message: Callable[[Item, BaseEmailBackend], EmailMessage],
                          record: Callable[[list[Item]], None]) -> int:
    """Send ``message(item, connection)`` of each of ``items``, a batch of SEND_BATCH per SMTP connection, and
    ``record(batch)`` each batch once it is sent (its audit entries)."""
    items = list(items)
    for start in range(0, len(items), SEND_BATCH):
        batch = items[start:start + SEND_BATCH]
        with get_connection() as connection:
            connection.send_messages([message(item, connection) for item in batch])
        record(batch)
    return len(items)


def password_mails_send(*, scope: Scope, user_ids: Iterable[int], again: bool = False) -> int:
    """Send each account of ``user_ids`` still to be invited its "set your password" email (``invitation_refused``:
    an account given a password meanwhile, or linked to single sign-on, is left alone), a batch per SMTP
    connection; audited per account (``again``: sent again from the staff list), and those without an address.
    Return how many were sent."""
    users = list(get_user_model().objects.filter(pk__in=user_ids, is_active=True).order_by("pk"))
    linked = linked_ids(users)
    refused = {user.pk: invitation_refused(user, linked=user.pk in linked) for user in users}
    sent = messages_send_batched(
        [user for user in users if not refused[user.pk]],
        message=lambda user, connection: password_message(user, kind="set", connection=connection),
        record=lambda batch: password_mails_sent_record(scope=scope, users=batch, again=again))
    left_out = [user for user in users if refused[user.pk] == "has no email address"]
    if left_out:
        password_mails_sent_record(scope=scope, users=[], left_out=left_out)
    return sent


def password_reset_send(*, email: str, address: str, limited: bool = False, asked_at: datetime | None = None) -> int:
    """Answer a reset asked for ``email`` from ``address`` (the Celery task's work, so that the request takes as
    long whether an account has the address or not): email a reset link to each staff account with the address
    (``password_reset_recipients``; nobody when the ask was ``limited``), except those that sign in with single
    sign-on only, and audit the ask with what came of it. Return how many were sent."""
    found = [] if limited else password_reset_recipients(email=email)
    refused = sign_on_only(users=found)
    users = [user for user in found if user not in refused]
    if users:
        with get_connection() as connection:
            connection.send_messages([password_message(user, kind="reset", connection=connection) for user in users])
    password_reset_asked_record(email=email, address=address, users=users, limited=limited, sign_on=refused,
                                at=asked_at)
    return len(users)
