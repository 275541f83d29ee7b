"""The form of the staff password reset (staff/views/passwords.py)."""
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_ratelimit.core import get_usage

from accounts.emails import EmailAddressField
from infra.clients import client_ip
from staff.tasks import password_reset_send_task


class StaffPasswordResetForm(PasswordResetForm):
    """Django's reset form, for staff accounts: at most ``PASSWORD_RESET_RATE_PER_EMAIL`` emails an hour to one
    address (normalised, as it is compared: ``accounts/emails.py``); every request audited. The request only counts
    the ask and queues it: who has the address, and the email, are the Celery task's (``staff/password_mail.py``'s
    ``password_reset_send``), so that the answer takes as long whether an account has the address or not."""

    email = EmailAddressField(label=_("Email"), widget=forms.EmailInput(attrs={"autocomplete": "email"}))

    def save(self, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        """Count the ask and queue it (Django's options for an email of its own, ``args`` and ``kwargs``, have no
        use here); ``PasswordResetView`` passes ``request``, whose address is counted and audited."""
        if request is None:
            raise TypeError("StaffPasswordResetForm.save() needs the request")
        email = self.cleaned_data["email"]
        usage = get_usage(request, group="staff-password-reset-email", key=lambda group, request: email,
                          rate=settings.PASSWORD_RESET_RATE_PER_EMAIL, increment=True)
        limited = usage is not None and usage["should_limit"]
        ask = {"email": email, "address": client_ip(request), "limited": limited,
               "asked_at": timezone.now().isoformat()}
        transaction.on_commit(lambda: password_reset_send_task.delay(**ask))
