"""Staff passwords by email: asking for a reset, and setting a password from an emailed link, a page for each kind
of link (Django's own views, rate-limited and audited). Where local passwords are off (``STAFF_LOCAL_PASSWORDS``) these pages do not exist."""
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse_lazy
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django_ratelimit.core import get_usage

from accounts.passwords import (
    PasswordTokens,
    password_reset_tokens,
    password_set_record,
    password_set_tokens,
    sign_on_only,
)
from infra.clients import client_ip
from staff.forms.passwords import StaffPasswordResetForm
from staff.password_mail import lifetime_text


class _LocalPasswordsOnly(View):
    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not settings.STAFF_LOCAL_PASSWORDS:
            raise Http404("Passwords are turned off: staff sign in with the agency's identity provider.")
        return super().dispatch(request, *args, **kwargs)


@method_decorator(never_cache, name="dispatch")
class PasswordResetAskView(_LocalPasswordsOnly, auth_views.PasswordResetView):
    """Ask for a reset link by email. The answer is the same, and as quick, whether an account has the address or
    not (no one learns which addresses have accounts: the form queues the lookup); past
    ``PASSWORD_RESET_RATE_PER_CLIENT`` from one address, 429."""

    template_name = "staff/password_reset.html"
    form_class = StaffPasswordResetForm
    success_url = reverse_lazy("staff:password-reset-sent")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        usage = get_usage(request, group="staff-password-reset", key=lambda group, request: client_ip(request),
                          rate=settings.PASSWORD_RESET_RATE_PER_CLIENT, increment=True)
        if usage is not None and usage["should_limit"]:
            response = render(request, "staff/password_reset.html",
                              {"form": self.get_form_class()(), "limited": True}, status=429)
            response["Retry-After"] = str(max(1, usage["time_left"]))
            return response
        return super().post(request, *args, **kwargs)


class PasswordResetSentView(_LocalPasswordsOnly, auth_views.PasswordResetDoneView):
    template_name = "staff/password_reset_sent.html"


@method_decorator(never_cache, name="dispatch")
class PasswordSetView(_LocalPasswordsOnly, auth_views.PasswordResetConfirmView):
    """Set a password from a "set your password" link: once per link, for its week; never for a deactivated account
    or one that signs in with single sign-on only (``accounts.passwords.sign_on_only``)."""

    template_name = "staff/password_set.html"
    success_url = reverse_lazy("staff:password-set-done")
    post_reset_login = False
    token_generator: PasswordTokens = password_set_tokens

    def get_user(self, uidb64: str) -> User | None:
        user = super().get_user(uidb64)
        if user is None or sign_on_only(users=[user]):  # (a deactivated account's tokens never check: PasswordTokens)
            return None
        return user

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "lifetime": lifetime_text(self.token_generator.lifetime())}

    def form_valid(self, form: "SetPasswordForm[User]") -> HttpResponse:
        response = super().form_valid(form)
        password_set_record(user=form.user, address=client_ip(self.request))
        return response


class PasswordResetLinkView(PasswordSetView):
    """Set a password from a reset link: the same page, with the reset links' own tokens (an hour), which a
    "set your password" link never passes for."""

    token_generator = password_reset_tokens


class PasswordSetDoneView(_LocalPasswordsOnly, auth_views.PasswordResetCompleteView):
    template_name = "staff/password_set_done.html"
