"""Signing staff in with the agency's identity provider (OpenID Connect, through mozilla-django-oidc).

mozilla-django-oidc runs the authorisation code flow (with PKCE and a nonce)
and checks the ID token's signature against the provider's keys; which
account the claims name is ``accounts.sign_on`` 's rule, never the library's
(it would make accounts from any email). On when ``OIDC_RP_CLIENT_ID`` is set
(``config/settings/base.py``, "Single sign-on").
"""
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from django.apps import AppConfig
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import User
from django.core import checks
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from accounts.sign_on import SignOnClaims, SignOnRefused, SignOnRules, sign_on_account
from infra.clients import client_ip


def sign_on_rules() -> SignOnRules:
    return SignOnRules(match_email=settings.OIDC_MATCH_EMAIL, role_mapping=settings.OIDC_ROLE_MAPPING)


@checks.register(checks.Tags.security)
def sign_on_settings_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse at start (``manage.py check``, every command, gunicorn's first request) a role mapping that would make
    coordinators from a claim, rather than at someone's first sign-on."""
    if not settings.SINGLE_SIGN_ON:
        return []
    try:
        sign_on_rules()
    except ValueError as error:
        return [checks.Error(f"OIDC_ROLE_MAPPING: {error}", id="staff.E001")]
    return []


class StaffSignOnBackend(OIDCAuthenticationBackend):
    """The staff account the provider's claims name (``accounts.sign_on``); a refusal's reason is kept on the
    request for the sign-in page."""

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User | None:
        claims = {**self.get_userinfo(access_token, id_token, payload), **payload}
        roles = claims.get(settings.OIDC_ROLE_CLAIM, ()) if settings.OIDC_ROLE_CLAIM else ()
        try:
            user, note = sign_on_account(claims=SignOnClaims(
                issuer=str(payload.get("iss", "")), subject=str(payload.get("sub", "")),
                email=str(claims.get("email") or ""), email_verified=claims.get("email_verified") is True,
                username=str(claims.get("preferred_username") or ""), name=str(claims.get("name") or ""),
                roles=tuple(str(role) for role in (roles if isinstance(roles, list) else [roles]))),
                rules=sign_on_rules(), address=client_ip(self.request))
        except SignOnRefused as refused:
            self.request.sign_on_refused = str(refused)
            return None
        self.request.sign_on_note = note or "single sign-on"
        return user


def _sign_on_on(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not settings.SINGLE_SIGN_ON:
            raise Http404("Single sign-on is not set up.")
        return view(request, *args, **kwargs)
    return guarded


sign_on_start = _sign_on_on(OIDCAuthenticationRequestView.as_view())


class SignOnCallbackView(OIDCAuthenticationCallbackView):
    """The provider's answer: signed in, or back to the sign-in page saying why not."""

    def login_failure(self) -> HttpResponse:
        reason = getattr(self.request, "sign_on_refused", "") or (
            "Signing in with your identity provider did not work: try again, or ask the survey office.")
        messages.error(self.request, reason, extra_tags="sign-on")
        return redirect("staff:login")


sign_on_callback = _sign_on_on(SignOnCallbackView.as_view())


class StaffSignOutView(auth_views.LogoutView):
    """Sign out of the staff area; after a single sign-on, out of the provider too (its end-session endpoint,
    OpenID Connect RP-Initiated Logout), then back to the sign-in page. Otherwise the next person at a shared school
    computer who chose "Sign in with …" would be signed in by the provider's own session as the last one. The way
    back is on ``STAFF_SITE_URL`` (the address registered with the provider), never the request's Host."""

    next_page = "staff:login"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        id_token = request.session.get("oidc_id_token")
        response = super().post(request, *args, **kwargs)
        if id_token and settings.SINGLE_SIGN_ON and settings.OIDC_OP_LOGOUT_ENDPOINT:
            return HttpResponseRedirect(f"{settings.OIDC_OP_LOGOUT_ENDPOINT}?" + urlencode({
                "id_token_hint": id_token, "client_id": settings.OIDC_RP_CLIENT_ID,
                "post_logout_redirect_uri": f"{settings.STAFF_SITE_URL}{reverse('staff:login')}"}))
        return response
