"""The staff area's password emails: "set your password" for a new account, and the reset link, both to the same
page (``staff:password-set``), with Django's one-use tokens (``default_token_generator``: a link stops working once
the password is set, and after ``PASSWORD_RESET_TIMEOUT``)."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMultiAlternatives, get_connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.passwords import password_mails_sent_record
from accounts.scopes import Scope

SEND_BATCH = 200  # messages per SMTP connection


def password_link(user, *, site_url):
    """The absolute link that lets ``user`` set a password, once."""
    path = reverse("staff:password-set", kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                                                 "token": default_token_generator.make_token(user)})
    return f"{site_url}{path}"


def password_message(user, *, kind, site_url=None, connection=None):
    """The email to ``user``: ``kind`` "set" (a new account) or "reset" (asked for); links on ``site_url`` (the
    request's site), else ``STAFF_SITE_URL``."""
    site_url = (site_url or settings.STAFF_SITE_URL).rstrip("/")
    context = {"user": user, "link": password_link(user, site_url=site_url), "site_url": site_url,
               "hours": settings.PASSWORD_RESET_TIMEOUT // 3600}
    subject = render_to_string(f"staff/email/password_{kind}_subject.txt", context).strip()
    body = render_to_string(f"staff/email/password_{kind}.txt", context)
    return EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email], connection=connection)


def password_mails_send(*, scope: Scope, user_ids):
    """Send each account of ``user_ids`` still without a usable password its "set your password" email (an account
    given one meanwhile is left alone), a batch per SMTP connection; audited per account. Return how many were
    sent."""
    users = list(get_user_model().objects.filter(pk__in=user_ids, is_active=True).order_by("pk"))
    waiting = [user for user in users if not user.has_usable_password()]
    with_address = [user for user in waiting if user.email]
    sent = 0
    for start in range(0, len(with_address), SEND_BATCH):
        batch = with_address[start:start + SEND_BATCH]
        with get_connection() as connection:
            connection.send_messages([password_message(user, kind="set", connection=connection) for user in batch])
        password_mails_sent_record(scope=scope, users=batch)
        sent += len(batch)
    left_out = [user for user in waiting if not user.email]
    if left_out:
        password_mails_sent_record(scope=scope, users=[], left_out=left_out)
    return sent
